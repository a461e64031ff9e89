// RUN: tb-opt --canonicalize %s | FileCheck %s

// Unlike MLIR's canonicalizer, tb keeps a run-time choice between two tensors defined
// outside an scf.if as the scf.if: the te level lowers it by branch (each branch's buffer),
// and has no select of whole tensors. Scalar results still become arith.select.
// CHECK-LABEL: func.func @tensor_results_stay
// CHECK: %[[S:.*]] = arith.select %arg0, %arg3, %arg4 : f32
// CHECK: %[[T:.*]] = scf.if %arg0 -> (tensor<4xf32>) {
// CHECK-NEXT: scf.yield %arg1 : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg2 : tensor<4xf32>
// CHECK: return %[[T]], %[[S]]
func.func @tensor_results_stay(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>, %x: f32, %y: f32) -> (tensor<4xf32>, f32) {
  %0:2 = scf.if %c -> (tensor<4xf32>, f32) {
    scf.yield %a, %x : tensor<4xf32>, f32
  } else {
    scf.yield %b, %y : tensor<4xf32>, f32
  }
  return %0#0, %0#1 : tensor<4xf32>, f32
}
