// graph ops run their ONNX kernels; values checked by hand.
// RUN: tb-run --interpret %s --function activations | FileCheck %s --check-prefix=ACT
// RUN: tb-run --interpret %s --function conv | FileCheck %s --check-prefix=CONV
// RUN: tb-run --interpret %s --function shapes | FileCheck %s --check-prefix=SHAPES
// RUN: tb-run --interpret %s --function split | FileCheck %s --check-prefix=SPLIT

// ACT: result #0: tensor<4xf32> = [0.0, 0.0, 0.5, 2.0]
// ACT-NEXT: result #1: tensor<4xf32> = [-0.2, -0.05, 0.5, 2.0]
// ACT-NEXT: result #2: tensor<2x2xf32> = {{\[\[}}0.26894143, 0.7310586], [0.5, 0.5]]
// ACT-NEXT: result #3: tensor<4xf32> = [-1.0, -0.5, 0.5, 1.0]
func.func @activations() -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %x = graph.constant dense<[-2.0, -0.5, 0.5, 2.0]> : tensor<4xf32>
  %r = graph.relu %x : tensor<4xf32>
  %l = graph.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<4xf32>
  %s = graph.constant dense<[[1.0, 2.0], [3.0, 3.0]]> : tensor<2x2xf32>
  %p = graph.softmax %s : tensor<2x2xf32>
  %c = graph.clip %x {min = -1.0 : f32, max = 1.0 : f32} : tensor<4xf32>
  %h = graph.prelu %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r, %l, %p, %c : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>
}

// A 3x3 box filter over a 4x4 ramp, padded by one, stride 2, plus a bias.
// CONV: result #0: tensor<1x1x2x2xf32> = {{\[\[\[\[}}11.0, 25.0], [52.0, 91.0]]]]
func.func @conv() -> tensor<1x1x2x2xf32> {
  %x = graph.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]]> : tensor<1x1x4x4xf32>
  %w = graph.constant dense<1.0> : tensor<1x1x3x3xf32>
  %b = graph.constant dense<1.0> : tensor<1xf32>
  %y = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// SHAPES: result #0: tensor<2xi64> = [2, 6]
// SHAPES-NEXT: result #1: tensor<3x2xf32> = {{\[\[}}0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
// SHAPES-NEXT: result #2: tensor<2x1xf32> = {{\[\[}}3.0], [12.0]]
func.func @shapes() -> (tensor<2xi64>, tensor<3x2xf32>, tensor<2x1xf32>) {
  %x = graph.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %f = graph.reshape %x {shape = array<i64: 2, -1, 1>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %c = graph.concat %x, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %s = graph.shape %c : (tensor<2x6xf32>) -> tensor<2xi64>
  return %s, %t, %r : tensor<2xi64>, tensor<3x2xf32>, tensor<2x1xf32>
}

// SPLIT: result #0: tensor<1xi32> = [1]
// SPLIT-NEXT: result #1: tensor<2xi32> = [2, 3]
func.func @split() -> (tensor<1xi32>, tensor<2xi32>) {
  %x = graph.constant dense<[1, 2, 3]> : tensor<3xi32>
  %a, %b = graph.split %x {split = array<i64: 1, 2>} : (tensor<3xi32>) -> (tensor<1xi32>, tensor<2xi32>)
  return %a, %b : tensor<1xi32>, tensor<2xi32>
}
