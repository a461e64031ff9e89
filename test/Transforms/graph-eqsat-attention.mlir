// RUN: tb-opt --split-input-file --graph-eqsat %s | FileCheck %s

// softmax(Q·Kᵀ / sqrt(d) + mask) · V, K given transposed as exporters write it, is one
// graph.attention over K transposed back.
// CHECK-LABEL: func.func @attention_from_softmax
// CHECK:         %[[K:.*]] = graph.transpose %arg1 {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT:    %[[Y:.*]] = graph.attention %arg0, %[[K]], %arg2, %arg3 {scale = 2.500000e-01 : f32}
// CHECK-NEXT:    return %[[Y]]
func.func @attention_from_softmax(%q: tensor<1x2x8x16xf32>, %kt: tensor<1x2x16x8xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x8x16xf32> {
  %c = graph.constant dense<4.0> : tensor<f32>
  %s = graph.matmul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %z = graph.div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %zm = graph.add %z, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = graph.softmax %zm {axis = -1 : i64} : tensor<1x2x8x8xf32>
  %y = graph.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %y : tensor<1x2x8x16xf32>
}

// -----

// A softmax over another axis is not attention.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT:     graph.attention
// CHECK:         graph.softmax
func.func @softmax_over_queries(%q: tensor<1x2x8x16xf32>, %kt: tensor<1x2x16x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %s = graph.matmul %q, %kt : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<1x2x8x8xf32>
  %y = graph.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %y : tensor<1x2x8x16xf32>
}

// -----

// The tanh GELU, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), is one
// graph.gelu with approximate = "tanh".
// CHECK-LABEL: func.func @gelu_from_tanh
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %arg0 {approximate = "tanh"} : tensor<2x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_from_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %k = graph.constant dense<0.797884583> : tensor<f32>
  %c = graph.constant dense<0.044715> : tensor<f32>
  %three = graph.constant dense<3.0> : tensor<f32>
  %cube = graph.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ct = graph.mul %cube, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %in = graph.add %x, %ct : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %ks = graph.mul %k, %in : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = graph.tanh %ks : tensor<2x8xf32>
  %a = graph.add %one, %t : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %h = graph.mul %half, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = graph.mul %h, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
