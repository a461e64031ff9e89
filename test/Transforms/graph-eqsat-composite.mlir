// RUN: tb-opt --split-input-file --graph-eqsat %s | FileCheck %s

// The exporters' erf GELU, x * 0.5 * (1 + erf(x / sqrt 2)), is one graph.gelu.
// CHECK-LABEL: func.func @gelu_from_erf
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_from_erf(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %d = graph.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = graph.erf %d : tensor<2x8xf32>
  %a = graph.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = graph.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = graph.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// A constant that is not 1/2 is not a GELU.
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT:     graph.gelu
// CHECK:         graph.erf
func.func @not_gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %third = graph.constant dense<0.333> : tensor<f32>
  %d = graph.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = graph.erf %d : tensor<2x8xf32>
  %a = graph.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = graph.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = graph.mul %m, %third : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// exp(x - max(x)) / sum(exp(x - max(x))) along one axis is one graph.softmax.
// CHECK-LABEL: func.func @softmax_from_exp
// CHECK-NEXT:    %[[S:.*]] = graph.softmax %arg0 {axis = 1 : i64} : tensor<4x6xf32>
// CHECK-NEXT:    return %[[S]]
func.func @softmax_from_exp(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %m = graph.reduce_max %x {axes = array<i64: -1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = graph.exp %d : tensor<4x6xf32>
  %s = graph.reduce_sum %e {axes = array<i64: -1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %r = graph.div %e, %s : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// The sum along another axis than the max is not a softmax of x; the unshifted form
// exp(d) / sum(exp(d)) still is a softmax of d.
// CHECK-LABEL: func.func @softmax_of_the_shifted_input
// CHECK:         %[[M:.*]] = graph.reduce_max %arg0
// CHECK-NEXT:    %[[D:.*]] = graph.sub %arg0, %[[M]]
// CHECK-NEXT:    %[[S:.*]] = graph.softmax %[[D]] {axis = 0 : i64}
// CHECK-NEXT:    return %[[S]]
func.func @softmax_of_the_shifted_input(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = graph.exp %d : tensor<4x6xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %r = graph.div %e, %s : (tensor<4x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Layer normalization spelled out as the pre-opset-17 exporters do (two means, a power,
// a square root, a division, a scale and a shift) is one graph.layer_normalization.
// CHECK-LABEL: func.func @layernorm_from_moments
// CHECK-DAG:     %[[G:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-DAG:     %[[B:.*]] = graph.constant dense<[5.000000e-01, 0.000000e+00, -5.000000e-01, 1.000000e+00]>
// CHECK:         %[[Y:.*]] = graph.layer_normalization %arg0, %[[G]], %[[B]] {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @layernorm_from_moments(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %eps = graph.constant dense<9.99999974E-6> : tensor<f32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %g = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = graph.constant dense<[0.5, 0.0, -0.5, 1.0]> : tensor<4xf32>
  %m = graph.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %d = graph.sub %x, %m : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %q = graph.pow %d, %two : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %v = graph.reduce_mean %q {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %a = graph.add %v, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %s = graph.sqrt %a : tensor<2x3x1xf32>
  %n = graph.div %d, %s : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %y = graph.mul %n, %g : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %z = graph.add %y, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %z : tensor<2x3x4xf32>
}

// -----

// Means over a leading axis are not a layer normalization (it normalizes trailing axes).
// CHECK-LABEL: func.func @moments_over_a_leading_axis
// CHECK-NOT:     graph.layer_normalization
// CHECK:         graph.reduce_mean
func.func @moments_over_a_leading_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %eps = graph.constant dense<9.99999974E-6> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  %d = graph.sub %x, %m : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  %q = graph.mul %d, %d : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v = graph.reduce_mean %q {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  %a = graph.add %v, %eps : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<1x3x4xf32>
  %s = graph.sqrt %a : tensor<1x3x4xf32>
  %n = graph.div %d, %s : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  return %n : tensor<2x3x4xf32>
}
