// RUN: not tb-opt %s --convert-graph-to-te --mlir-print-ir-after-failure 2>&1 | FileCheck %s

// A conversion that fails for one op changes nothing: the ops that could be lowered (the
// relu before the failing op and the add after it) are still graph ops, and no te op is
// left behind.

// CHECK: IR Dump After ConvertGraphToTe Failed (convert-graph-to-te)
// CHECK-LABEL: func.func @partly_lowerable
// CHECK-NEXT: %[[R:.*]] = graph.relu %arg1
// CHECK-NEXT: %[[G:.*]] = graph.gemm %arg0, %arg0
// CHECK-NEXT: %[[S:.*]] = graph.add %[[R]], %[[R]]
// CHECK-NEXT: return %[[G]], %[[S]]
// CHECK-NEXT: }
// CHECK: error: 'graph.gemm' op has no lowering to te: Gemm on integers
func.func @partly_lowerable(%a: tensor<2x2xi32>, %c: tensor<2x2xf32>) -> (tensor<2x2xi32>, tensor<2x2xf32>) {
  %0 = graph.relu %c : tensor<2x2xf32>
  %1 = graph.gemm %a, %a : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %2 = graph.add %0, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1, %2 : tensor<2x2xi32>, tensor<2x2xf32>
}
