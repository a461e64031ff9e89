// RUN: tb-opt %s --convert-graph-to-te --verify-diagnostics --split-input-file

// arith computes on signless integers only: unsigned arithmetic has no te lowering, and
// the pass says so at the op instead of producing IR that does not verify.
func.func @unsigned_add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error@+1 {{'graph.add' op has no lowering to te: arithmetic on the unsigned type ui8}}
  %0 = graph.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @unsigned_matmul(%a: tensor<2x2xui32>, %b: tensor<2x2xui32>) -> tensor<2x2xui32> {
  // expected-error@+1 {{'graph.matmul' op has no lowering to te}}
  %0 = graph.matmul %a, %b : (tensor<2x2xui32>, tensor<2x2xui32>) -> tensor<2x2xui32>
  return %0 : tensor<2x2xui32>
}
