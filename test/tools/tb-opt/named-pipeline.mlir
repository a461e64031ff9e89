// The CPU pipeline is registered by name, as MLIR registers pass pipelines: in a textual
// pipeline and as a flag.
// RUN: tb-opt %s --pass-pipeline='builtin.module(tb-cpu)' | FileCheck %s
// RUN: tb-opt %s --tb-cpu | FileCheck %s
// RUN: tb-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST: --tb-cpu {{ *}}The CPU pipeline: graph -> te -> loop

// CHECK-LABEL: func.func @relu(
// CHECK-SAME: memref<2x3xf32>
// CHECK-NOT: graph.
// CHECK: loop.
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
