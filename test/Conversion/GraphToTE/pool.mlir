// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Pooling reduces over the kernel window (domain: n, c, output positions | kernel).

// Max pooling pads with -inf, skips NaNs (as -inf, as onnxruntime does) and reduces with
// max in the element type.
// CHECK-LABEL: func.func @max_pool
// CHECK: te.compute (%{{.*}}) [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] reduce [%{{.*}}, %{{.*}}] in [3, 3] combiner = max {
// CHECK-NEXT: %[[V:.*]] = te.read %{{.*}}[(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4 + -1, d3 * 2 + d5 + -1)] {padding = 0xFF800000 : f32} : tensor<1x2x7x7xf32>
// CHECK-NEXT: %[[NAN:.*]] = math.isnan %[[V]] : f32
// CHECK-NEXT: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[X:.*]] = arith.select %[[NAN]], %[[LOW]], %[[V]] : f32
// CHECK-NEXT: te.yield %[[X]] : f32
func.func @max_pool(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// Without count_include_pad, border windows divide by fewer positions: a product of
// per-dimension counts, read from small constant vectors.
// CHECK-LABEL: func.func @average_pool_exclude_pad
// CHECK: %[[S:.*]] = te.compute {{.*}} combiner = sum {
// CHECK-NEXT: te.read %{{.*}} {padding = 0.000000e+00 : f32} : tensor<1x1x4x4xf32>
// CHECK: %[[H:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[W:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: te.compute (%[[S]], %[[H]], %[[W]])
// CHECK-NEXT: %[[SUM:.*]] = te.read %[[S]]
// CHECK-NEXT: %[[CH:.*]] = te.read %[[H]][(d0, d1, d2, d3) -> (d2)]
// CHECK-NEXT: %[[CW:.*]] = te.read %[[W]][(d0, d1, d2, d3) -> (d3)]
// CHECK-NEXT: %[[C:.*]] = arith.mulf %[[CH]], %[[CW]] : f32
// CHECK-NEXT: arith.divf %[[SUM]], %[[C]] : f32
func.func @average_pool_exclude_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// With count_include_pad every window counts kernel-size positions.
// CHECK-LABEL: func.func @average_pool_include_pad
// CHECK: combiner = sum
// CHECK: %[[N:.*]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[N]] : f32
func.func @average_pool_include_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = graph.average_pool %x {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// CHECK-LABEL: func.func @global_average_pool
// CHECK: reduce [%{{.*}}, %{{.*}}] in [4, 5] combiner = sum
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)] : tensor<2x3x4x5xf32>
// CHECK: } : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// CHECK: arith.constant 2.000000e+01 : f32
func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = graph.global_average_pool %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// Indices: the smallest flat input position whose value is the window's maximum. A window
// inside the input needs no padding and no bounds test.
// CHECK-LABEL: func.func @max_pool_indices
// CHECK: %[[Y:.*]] = te.compute {{.*}} combiner = max {
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)] : tensor<1x1x4x4xf32>
// CHECK: %[[I:.*]] = te.compute (%{{.*}}, %[[Y]]) {{.*}} reduce [%{{.*}}, %{{.*}}] in [2, 2] combiner = min {
// CHECK: %[[HIT:.*]] = arith.cmpf oeq
// CHECK: %[[P:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: arith.select %[[HIT]], %[[P]], %[[NONE]] : i64
// CHECK: return %[[Y]], %[[I]]
func.func @max_pool_indices(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %0:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#0, %0#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}
