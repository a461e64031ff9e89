// RUN: tb-opt %s --allow-unregistered-dialect --split-input-file --convert-te-to-loop --verify-diagnostics

// expected-error @+1 {{'func.func' op argument #0: 'tensor<?xf32>' has a dynamic shape; convert-te-to-loop needs static shapes}}
func.func @dynamic_argument(%a: tensor<?xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0: 'tensor<*xf32>' is unranked}}
func.func private @unranked_result() -> tensor<*xf32>

// -----

func.func @dynamic_compute(%a: tensor<4xf32>) {
  // expected-error @+1 {{'te.compute' op 'tensor<?xf32>' has a dynamic shape; convert-te-to-loop needs static shapes}}
  %c = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @graph_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.relu' op operates on tensors, which convert-te-to-loop only converts for te.compute, te.extract, tensor arith.constant, scf.if, scf.for, scf.while, func.call and func.return}}
  %r = graph.relu %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @sparse_constant() -> tensor<4xf32> {
  // expected-error @+1 {{'arith.constant' op holds a value that is neither 'dense' nor 'dense_resource'}}
  %c = arith.constant sparse<[[1]], [2.0]> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @nested_compute(%a: tensor<4xf32>) {
  loop.for %i = 0 to 2 {
    // expected-error @+1 {{'te.compute' op must be in a function body or in scf.if/scf.for/scf.while regions there for convert-te-to-loop}}
    %c = te.compute (%a) [%j] {
      %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
      te.yield %x : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
  }
  return
}

// -----

func.func @complex_reduction(%a: tensor<4xcomplex<f32>>) -> tensor<complex<f32>> {
  // expected-error @+1 {{'te.compute' op reduces with 'sum' over element type 'complex<f32>', which arith cannot accumulate}}
  %c = te.compute (%a) [] reduce [%k] in [4] combiner = sum {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xcomplex<f32>>
    te.yield %x : complex<f32>
  } : (tensor<4xcomplex<f32>>) -> tensor<complex<f32>>
  return %c : tensor<complex<f32>>
}

// -----

func.func @negative_divisor(%a: tensor<4xf32>) -> tensor<8xf32> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{'te.read' op has a padded index map whose result #0 ((d0 - 1) floordiv -2) divides by something other than a positive constant}}
    %x = te.read %a[(d0) -> ((d0 - 1) floordiv -2)] {padding = 0.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// expected-error @+1 {{'func.func' op has several blocks; convert-te-to-loop converts single-block function bodies}}
func.func @blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  "test.br"() [^next] : () -> ()
^next:
  return %a : tensor<4xf32>
}
