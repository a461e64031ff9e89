// The elide flags apply to the IR tb-run dumps while lowering, and only there.
// RUN: tb-run %s --random-inputs 1 --print-limit 0 --mlir-print-ir-after-all --mlir-elide-elementsattrs-if-larger=4 2>&1 | FileCheck %s
// RUN: not tb-run %s --random-inputs 1 --mlir-elide-elementsattrs-if-larger=4 2>&1 | FileCheck %s --check-prefix=ALONE

// CHECK: // -----// IR Dump After
// CHECK: dense_resource<__elided__> : tensor<8xf32>
// CHECK-NOT: dense<[1.000000e+00, 2.000000e+00
// ALONE: tb-run: --mlir-elide-elementsattrs-if-larger applies to the IR --mlir-print-ir-after-all prints
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %y = "graph.add"(%x, %w) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
