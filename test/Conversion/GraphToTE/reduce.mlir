// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Reductions: kept input dims are result dims (at their own position with keepdims),
// reduced ones the reduction axes that follow.

// CHECK-LABEL: func.func @reduce_mean_keepdims
// CHECK: %[[S:.*]] = te.compute (%{{.*}}) [%{{.*}}, %{{.*}}, %{{.*}}] reduce [%{{.*}}] in [3] combiner = sum {
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3) -> (d0, d3, d2)] : tensor<2x3x4xf32>
// CHECK: } : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: te.compute (%[[S]])
// CHECK-NEXT: %[[V:.*]] = te.read %[[S]]
// CHECK-NEXT: %[[N:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[V]], %[[N]] : f32
func.func @reduce_mean_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// Max needs no finishing compute.
// CHECK-LABEL: func.func @reduce_max_dropped_dims
// CHECK: %[[M:.*]] = te.compute (%{{.*}}) [%{{.*}}] reduce [%{{.*}}, %{{.*}}] in [2, 4] combiner = max {
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (d1, d0, d2)] : tensor<2x3x4xf32>
// CHECK: } : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[M]]
func.func @reduce_max_dropped_dims(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// CHECK-LABEL: func.func @reduce_sum_square
// CHECK: combiner = sum
// CHECK-NEXT: %[[V:.*]] = te.read
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: te.yield %[[Q]] : f32
func.func @reduce_sum_square(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = graph.reduce_sum_square %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// No axes with noop_with_empty_axes is the identity.
// CHECK-LABEL: func.func @reduce_noop
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reduce_noop(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reduce_sum %x {noop_with_empty_axes = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// ArgMax: the maximum, then the smallest position holding it (NaN matches NaN).
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[M:.*]] = te.compute {{.*}} combiner = max {
// CHECK: } : (tensor<3x4xf32>) -> tensor<1x4xf32>
// CHECK: te.compute (%{{.*}}, %[[M]]) [%{{.*}}] reduce [%[[K:.*]]] in [3] combiner = min {
// CHECK-NEXT: %[[V:.*]] = te.read %{{.*}}[(d0, d1) -> (d1, d0)] : tensor<3x4xf32>
// CHECK-NEXT: %[[B:.*]] = te.read %[[M]][(d0, d1) -> (0, d0)] : tensor<1x4xf32>
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[B]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: arith.select %[[HIT]], %[[P]], %[[NONE]] : i64
// CHECK: -> tensor<4xi64>
func.func @arg_max(%x: tensor<3x4xf32>) -> tensor<4xi64> {
  %0 = graph.arg_max %x {keepdims = false} : (tensor<3x4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// A reduction of a 0-d tensor has no axis to reduce: each output is its one element, so
// the compute only maps it (no combiner).
// CHECK-LABEL: func.func @reduce_scalar
// CHECK-NEXT:    %[[R:.*]] = te.compute (%arg0) [] {
// CHECK-NEXT:      %[[V:.*]] = te.read %arg0[() -> ()] : tensor<f32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    } : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = graph.reduce_sum %x : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// A no-op reduction of a value lowered in the same pass is that value.
// CHECK-LABEL: func.func @noop_reduction_of_lowered_value
// CHECK-NEXT:    %[[R:.*]] = te.compute (%arg0)
// CHECK:         return %[[R]] : tensor<4x2xf32>
func.func @noop_reduction_of_lowered_value(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = graph.relu %x : tensor<4x2xf32>
  %1 = graph.reduce_min %0 {noop_with_empty_axes = true} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}
