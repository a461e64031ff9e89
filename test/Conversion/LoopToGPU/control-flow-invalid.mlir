// RUN: not tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s 2>&1 | FileCheck %s

// Run-time control flow around kernels is refused at the op: it is not mapped to GPU
// kernels yet (the CPU pipeline compiles it).
// CHECK: control-flow-invalid.mlir:[[# @LINE + 4]]:3: error: convert-loop-to-gpu: run-time control flow ('scf.if') is not mapped to the GPU yet
func.func @branch(%c: memref<i1>, %x: memref<4xf32>) -> memref<4xf32> {
  %b = loop.load %c[] : memref<i1>
  %out = loop.alloc() : memref<4xf32>
  scf.if %b {
    loop.parallel (%i) = (0) to (4) {
      %v = loop.load %x[%i] : memref<4xf32>
      %n = arith.negf %v : f32
      loop.store %n, %out[%i] : memref<4xf32>
    }
  } else {
    memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  }
  return %out : memref<4xf32>
}
