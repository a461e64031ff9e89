// RUN: tb-opt %s --split-input-file | tb-opt --split-input-file | FileCheck %s

// graph.attention prints in the functional form and round-trips, with and without a mask.

// CHECK-LABEL: func.func @plain
// CHECK: graph.attention %arg0, %arg1, %arg2 : (tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
func.func @plain(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32> {
  %y = graph.attention %q, %k, %v : (tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
  return %y : tensor<2x4x8x32xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_masked_causal
// CHECK: graph.attention %arg0, %arg1, %arg2, %arg3 {is_causal = true, scale = 1.250000e-01 : f32, softcap = 5.000000e+00 : f32}
func.func @grouped_masked_causal(%q: tensor<1x8x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %m: tensor<1x1x4x4xf32>) -> tensor<1x8x4x8xf32> {
  %y = graph.attention %q, %k, %v, %m {is_causal = true, scale = 0.125 : f32, softcap = 5.0 : f32} : (tensor<1x8x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x8x4x8xf32>
  return %y : tensor<1x8x4x8xf32>
}
