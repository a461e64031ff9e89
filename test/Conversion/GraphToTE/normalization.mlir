// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Softmax: max along the axis, sum of exp(x - max), then exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[M:.*]] = te.compute (%{{.*}}) [%{{.*}}, %{{.*}}] reduce [%{{.*}}] in [5] combiner = max {
// CHECK: } : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK: %[[S:.*]] = te.compute (%{{.*}}, %[[M]]) [%{{.*}}, %{{.*}}] reduce [%{{.*}}] in [5] combiner = sum {
// CHECK: math.exp
// CHECK: } : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK: te.compute (%{{.*}}, %[[M]], %[[S]]) [%{{.*}}, %{{.*}}] {
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0, d1) -> (d0, d1)] : tensor<2x5xf32>
// CHECK-NEXT: %[[MX:.*]] = te.read %[[M]][(d0, d1) -> (d0, 0)] : tensor<2x1xf32>
// CHECK-NEXT: %[[SX:.*]] = te.read %[[S]][(d0, d1) -> (d0, 0)] : tensor<2x1xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[MX]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: arith.divf %[[E]], %[[SX]] : f32
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.softmax %x : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[L:.*]] = math.log %{{.*}} : f32
// CHECK-NEXT: arith.subf %{{.*}}, %[[L]] : f32
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.log_softmax %x : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// LayerNorm: mean, mean of squared deviations, 1 / sqrt(var + eps), normalize.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SUM:.*]] = te.compute {{.*}} reduce [%{{.*}}] in [8] combiner = sum
// CHECK: %[[MEAN:.*]] = te.compute (%[[SUM]])
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: %[[SQ:.*]] = te.compute (%{{.*}}, %[[MEAN]]) {{.*}} combiner = sum
// CHECK: %[[INV:.*]] = te.compute (%[[SQ]])
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.sqrt
// CHECK: te.compute (%{{.*}}, %[[MEAN]], %[[INV]], %{{.*}}, %{{.*}})
// CHECK: te.read %[[MEAN]][(d0, d1) -> (d0, 0)] : tensor<2x1xf32>
// CHECK: te.read %{{.*}}[(d0, d1) -> (d1)] : tensor<8xf32>
func.func @layer_norm(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = graph.layer_normalization %x, %s, %b : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// The optional statistics results are the mean and inverse standard deviation.
// CHECK-LABEL: func.func @layer_norm_statistics
// CHECK: %[[SUM:.*]] = te.compute
// CHECK: %[[MEAN:.*]] = te.compute (%[[SUM]])
// CHECK: %[[SQ:.*]] = te.compute
// CHECK: %[[INV:.*]] = te.compute (%[[SQ]])
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = te.compute
// CHECK: return %[[Y]], %[[MEAN]], %[[INV]]
func.func @layer_norm_statistics(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %0:3 = graph.layer_normalization %x, %s : (tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// BatchNorm folds scale / sqrt(var + eps) and B - mean * that per channel first.
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[A:.*]] = te.compute (%{{.*}}, %{{.*}}) [%{{.*}}] {
// CHECK: math.sqrt
// CHECK: } : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: %[[B:.*]] = te.compute (%{{.*}}, %{{.*}}, %[[A]]) [%{{.*}}] {
// CHECK: te.compute (%{{.*}}, %[[A]], %[[B]]) [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0, d1, d2, d3) -> (d0, d1, d2, d3)]
// CHECK-NEXT: %[[AC:.*]] = te.read %[[A]][(d0, d1, d2, d3) -> (d1)] : tensor<3xf32>
// CHECK-NEXT: %[[BC:.*]] = te.read %[[B]][(d0, d1, d2, d3) -> (d1)] : tensor<3xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[AC]] : f32
// CHECK-NEXT: arith.addf %[[P]], %[[BC]] : f32
func.func @batch_norm(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  %0 = graph.batch_normalization %x, %s, %b, %m, %v : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// InstanceNorm reads its statistics per (n, c).
// CHECK-LABEL: func.func @instance_norm
// CHECK: reduce [%{{.*}}] in [5] combiner = sum
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d0, d1, 0)] : tensor<2x3x1xf32>
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d1)] : tensor<3xf32>
func.func @instance_norm(%x: tensor<2x3x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %0 = graph.instance_normalization %x, %s, %b : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
