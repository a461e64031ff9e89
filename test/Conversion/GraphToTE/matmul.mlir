// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Matrix products are a sum over k: the domain is the result dims, then k.

// CHECK-LABEL: func.func @matmul
// CHECK: te.compute (%{{.*}}, %{{.*}}) [%{{.*}}, %{{.*}}] reduce [%{{.*}}] in [4] combiner = sum {
// CHECK-NEXT: %[[A:.*]] = te.read %{{.*}}[(d0, d1, d2) -> (d0, d2)] : tensor<3x4xf32>
// CHECK-NEXT: %[[B:.*]] = te.read %{{.*}}[(d0, d1, d2) -> (d2, d1)] : tensor<4x5xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: te.yield %[[P]] : f32
// CHECK-NEXT: } : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// Batch dimensions broadcast like elementwise operands.
// CHECK-LABEL: func.func @batched_broadcast
// CHECK: reduce [%{{.*}}] in [4] combiner = sum
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)] : tensor<2x1x3x4xf32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4) -> (d1, d4, d3)] : tensor<5x4x2xf32>
func.func @batched_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32>
  return %0 : tensor<2x5x3x2xf32>
}

// A 1-D left operand is a row vector whose dimension the result drops.
// CHECK-LABEL: func.func @vector_matrix
// CHECK: te.read %{{.*}}[(d0, d1) -> (d1)] : tensor<4xf32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1) -> (d1, d0)] : tensor<4x3xf32>
// CHECK: -> tensor<3xf32>
func.func @vector_matrix(%a: tensor<4xf32>, %b: tensor<4x3xf32>) -> tensor<3xf32> {
  %0 = graph.matmul %a, %b : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Gemm: transposes are read maps, alpha and beta * C an elementwise epilogue.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[P:.*]] = te.compute
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (d2, d0)] : tensor<4x3xf32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (d1, d2)] : tensor<5x4xf32>
// CHECK: %{{.*}} = te.compute (%[[P]], %{{.*}}) [%{{.*}}, %{{.*}}] {
// CHECK-NEXT: %[[V:.*]] = te.read %[[P]][(d0, d1) -> (d0, d1)] : tensor<3x5xf32>
// CHECK-NEXT: %[[C:.*]] = te.read %{{.*}}[(d0, d1) -> (d1)] : tensor<5xf32>
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[AV:.*]] = arith.mulf %[[ALPHA]], %[[V]] : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[BETA]], %[[C]] : f32
// CHECK-NEXT: arith.addf %[[AV]], %[[BC]] : f32
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = graph.gemm %a, %b, %c {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// f16 products accumulate in f32; one more compute rounds the sums to f16.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[S:.*]] = te.compute
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: } : (tensor<2x8xf16>, tensor<8x3xf16>) -> tensor<2x3xf32>
// CHECK: te.compute (%[[S]])
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: -> tensor<2x3xf16>
func.func @matmul_f16(%a: tensor<2x8xf16>, %b: tensor<8x3xf16>) -> tensor<2x3xf16> {
  %0 = graph.matmul %a, %b : (tensor<2x8xf16>, tensor<8x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
