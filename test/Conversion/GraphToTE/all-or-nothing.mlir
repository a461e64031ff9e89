// RUN: not tb-opt %s --convert-graph-to-te --mlir-print-ir-after-failure 2>&1 | FileCheck %s

// A conversion that fails for some ops changes nothing: the ops that could be lowered (the
// relu before the failing ops and the add between them) are still graph ops, no te op is
// left behind, and every op that failed is reported, in program order, each at its
// location. An op in a branch of a run-time If fails it likewise: the If keeps its
// graph branches (no scf.if is left behind). An op imported from ONNX (a name location around the file position) is named
// by its node.

// CHECK: IR Dump After ConvertGraphToTe Failed (convert-graph-to-te)
// CHECK-NOT: te.
// CHECK-LABEL: func.func @partly_lowerable
// CHECK-NEXT: %[[R:.*]] = graph.relu %arg1
// CHECK-NEXT: %[[G:.*]] = graph.gemm %arg0, %arg0
// CHECK-NEXT: %[[S:.*]] = graph.add %[[R]], %[[R]]
// CHECK-NEXT: %[[P:.*]] = graph.reduce_l2 %arg2
// CHECK-NEXT: return %[[G]], %[[S]], %[[P]]
// CHECK-NEXT: }
// CHECK-NOT: te.
// CHECK-NOT: scf.
// CHECK-LABEL: func.func @unlowerable_branch
// CHECK-NEXT:    %{{.*}} = graph.if %arg0 : (tensor<i1>) -> tensor<2x2xi32> {
// CHECK-NEXT:      %{{.*}} = graph.gemm %arg1, %arg1
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %{{.*}} = graph.neg %arg1
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NOT: te.
// CHECK-NOT: scf.
// CHECK: model.onnx:3:1: error: 'graph.gemm' op (node "my_gemm") has no lowering to te: Gemm on integers
// CHECK: model.onnx:5:1: error: 'graph.reduce_l2' op (node "norm/1") has no lowering to te: a logarithmic or L2 reduction of integers
// CHECK: error: 'graph.gemm' op has no lowering to te: Gemm on integers
func.func @partly_lowerable(%a: tensor<2x2xi32>, %c: tensor<2x2xf32>, %x: tensor<4xui8>) -> (tensor<2x2xi32>, tensor<2x2xf32>, tensor<ui8>) {
  %0 = graph.relu %c : tensor<2x2xf32>
  %1 = graph.gemm %a, %a : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32> loc("my_gemm"("model.onnx":3:1))
  %2 = graph.add %0, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = graph.reduce_l2 %x {axes = array<i64: 0>, keepdims = false} : (tensor<4xui8>) -> tensor<ui8> loc("norm/1"("model.onnx":5:1))
  return %1, %2, %3 : tensor<2x2xi32>, tensor<2x2xf32>, tensor<ui8>
}

func.func @unlowerable_branch(%c: tensor<i1>, %a: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %y = graph.if %c : (tensor<i1>) -> tensor<2x2xi32> {
    %g = graph.gemm %a, %a : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
    graph.yield %g : tensor<2x2xi32>
  } else {
    %n = graph.neg %a : tensor<2x2xi32>
    graph.yield %n : tensor<2x2xi32>
  }
  return %y : tensor<2x2xi32>
}
