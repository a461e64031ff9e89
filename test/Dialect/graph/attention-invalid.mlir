// RUN: tb-opt %s --split-input-file --verify-diagnostics

// graph.attention's shape rule: 4-D operands, matching head sizes, grouped heads, a mask
// that broadcasts to the scores.

func.func @not_4d(%q: tensor<8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x32xf32>) {
  // expected-error @+1 {{Q must be 4-D [batch, heads, sequence, head size], got rank 2}}
  %y = graph.attention %q, %k, %v : (tensor<8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
  return
}

// -----

func.func @head_size(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x8xf32>, %v: tensor<2x4x10x32xf32>) {
  // expected-error @+1 {{K's head size 8 must equal Q's 16}}
  %y = graph.attention %q, %k, %v : (tensor<2x4x8x16xf32>, tensor<2x4x10x8xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
  return
}

// -----

func.func @ungrouped_heads(%q: tensor<1x3x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{the query heads (3) must be a multiple of the key/value heads (2)}}
  %y = graph.attention %q, %k, %v : (tensor<1x3x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x3x4x8xf32>
  return
}

// -----

func.func @mask_shape(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<4x4xf32>) {
  // expected-error @+1 {{shapes [4, 4], [1, 2, 4, 5] are not broadcastable}}
  %y = graph.attention %q, %k, %v, %m : (tensor<1x2x4x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<4x4xf32>) -> tensor<1x2x4x8xf32>
  return
}
