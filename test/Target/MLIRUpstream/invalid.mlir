// RUN: not tb-translate --emit=mlir-upstream %s 2>&1 | FileCheck %s

// Only the loop level is exported; ops above it need --lower first.
// CHECK: invalid.mlir:6:8: error: 'graph.relu' is above the loop level, which --emit compiles: lower the module first (add --lower
func.func @graph_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
