// RUN: tb-opt %s --convert-graph-to-te --verify-diagnostics --split-input-file

// What te cannot express is refused at the op, before anything changed.
func.func @gemm_integers(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  // expected-error@+1 {{'graph.gemm' op has no lowering to te: Gemm on integers}}
  %0 = graph.gemm %a, %b : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @l2_of_unsigned(%a: tensor<4xui8>) -> tensor<ui8> {
  // expected-error@+1 {{'graph.reduce_l2' op has no lowering to te: a logarithmic or L2 reduction of integers}}
  %0 = graph.reduce_l2 %a {axes = array<i64: 0>, keepdims = false} : (tensor<4xui8>) -> tensor<ui8>
  return %0 : tensor<ui8>
}

// -----

// Every op that cannot be lowered is reported, not only the first.
func.func @two_failures(%a: tensor<2x2xi32>, %b: tensor<4xui8>, %c: tensor<2x2xf32>) -> (tensor<2x2xi32>, tensor<2x2xf32>, tensor<ui8>) {
  // expected-error@+1 {{'graph.gemm' op has no lowering to te: Gemm on integers}}
  %0 = graph.gemm %a, %a : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %1 = graph.relu %c : tensor<2x2xf32>
  // expected-error@+1 {{'graph.reduce_l2' op has no lowering to te: a logarithmic or L2 reduction of integers}}
  %2 = graph.reduce_l2 %b {axes = array<i64: 0>, keepdims = false} : (tensor<4xui8>) -> tensor<ui8>
  return %0, %1, %2 : tensor<2x2xi32>, tensor<2x2xf32>, tensor<ui8>
}

// -----

// The element count of an operand beyond i64 is refused, not wrapped.
func.func @size_beyond_i64(%x: tensor<4294967296x4294967296xf32>) -> tensor<i64> {
  // expected-error@+1 {{'graph.size' op has no lowering to te: [4294967296, 4294967296] has more elements than i64 can count}}
  %0 = graph.size %x : (tensor<4294967296x4294967296xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}
