// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Ops whose values are known at compile time become arith.constant.

// CHECK-LABEL: func.func @dense_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @dense_constant() -> tensor<2xf32> {
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Weights keep their dense_resource blob.
// CHECK-LABEL: func.func @resource_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense_resource<weights> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @resource_constant() -> tensor<2xf32> {
  %0 = graph.constant dense_resource<weights> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @constant_of_shape
// CHECK-NEXT: arith.constant dense<7> : tensor<2x3xi64>
func.func @constant_of_shape() -> tensor<2x3xi64> {
  %0 = graph.constant_of_shape {shape = array<i64: 2, 3>, value = 7 : i64} : tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// CHECK-LABEL: func.func @range
// CHECK-NEXT: arith.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00]> : tensor<4xf32>
func.func @range() -> tensor<4xf32> {
  %0 = graph.range {delta = 5.000000e-01 : f32, limit = 2.000000e+00 : f32, start = 0.000000e+00 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @shape_and_size
// CHECK-NEXT: %[[S:.*]] = arith.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NEXT: %[[N:.*]] = arith.constant dense<6> : tensor<i64>
// CHECK-NEXT: return %[[S]], %[[N]]
func.func @shape_and_size(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<i64>) {
  %0 = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
  %1 = graph.size %x : (tensor<2x3xf32>) -> tensor<i64>
  return %0, %1 : tensor<2xi64>, tensor<i64>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}
