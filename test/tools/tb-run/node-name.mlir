// An error at an op imported from a named ONNX node keeps the node's name, which the file
// position alone ("model.onnx:0:0") would lose.
// RUN: env TB_MAX_MEMORY=1M not tb-run %s --random-inputs 1 --pipeline='builtin.module()' 2>&1 | FileCheck %s
// CHECK: model.onnx:0:0: error: 'loop.alloc' op result #0: 'memref<1024x1024xf32>' needs 4194304 bytes, more than the memory limit of 1048576 bytes (set TB_MAX_MEMORY to change it) [at 'scratch_node']
func.func @scratch(%x: memref<4xf32>) -> memref<4xf32> {
  %big = loop.alloc() : memref<1024x1024xf32> loc("scratch_node"("model.onnx":0:0))
  return %x : memref<4xf32>
}
