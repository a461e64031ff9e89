// RUN: tb-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics

func.func @oob(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{index map result #1 (d1 + 1) takes values in [1, 8], out of bounds for dimension 1 (size 8) of input #0 ('tensor<4x8xf32>')}}
    %x = te.read %a[(d0, d1) -> (d0, d1 + 1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @negative(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] {
    // expected-error @+1 {{index map result #0 (d1 - 1) takes values in [-1, 6], out of bounds for dimension 0 (size 8) of input #1 ('tensor<8xf32>')}}
    %x = te.read %b[(d0, d1) -> (d1 - 1)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @reduction_oob(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = te.compute (%a) [%i] reduce [%k] in [16] combiner = sum {
    // expected-error @+1 {{index map result #1 (d1) takes values in [0, 15], out of bounds for dimension 1 (size 8) of input #0 ('tensor<4x8xf32>')}}
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @map_dims(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{index map has 1 dimensions, but the iteration domain of the enclosing 'te.compute' has 2}}
    %x = te.read %a[(d0) -> (d0, d0)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @map_results(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{index map has 1 results, but input #0 ('tensor<4x8xf32>') has rank 2}}
    %x = te.read %a[(d0, d1) -> (d0)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @map_symbols(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{index map must not have symbols}}
    %x = te.read %a[(d0, d1)[s0] -> (d0, d1 + s0)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @not_an_input(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{operand is not an input of the enclosing 'te.compute'}}
    %x = te.read %b[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @read_outside(%a: tensor<4x8xf32>) -> f32 {
  // expected-error @+1 {{expects to be nested in a 'te.compute'}}
  %x = te.read %a[() -> (0, 0)] : tensor<4x8xf32>
  return %x : f32
}

// -----

func.func @read_type(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    // expected-error @+1 {{result type 'f16' must be the (signless) element type of input #0 ('tensor<4x8xf32>')}}
    %x = "te.read"(%a) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : (tensor<4x8xf32>) -> f16
    te.yield %x : f16
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @yield_type(%a: tensor<4x8xf32>) -> tensor<4x8xf16> {
  %c = te.compute (%a) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    // expected-error @+1 {{type 'f32' of the yielded value must be the (signless) element type of the result 'tensor<4x8xf16>'}}
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %c : tensor<4x8xf16>
}

// -----

func.func @yield_parent(%x: f32) {
  // expected-error @+1 {{expects parent op 'te.compute'}}
  te.yield %x : f32
}

// -----

func.func @combiner(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown combiner 'mean'; expected one of sum, max, min, prod}}
  %c = te.compute (%a) [%i] reduce [%k] in [8] combiner = mean {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @no_combiner(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has reduction axes but no combiner}}
  %c = "te.compute"(%a) <{reduction_extents = array<i64: 8>}> ({
  ^bb0(%i: index, %k: index):
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @combiner_without_axes(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has a combiner but no reduction axes}}
  %c = "te.compute"(%a) <{combiner = #te.combiner<sum>}> ({
  ^bb0(%i: index):
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @empty_reduction(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires at least one reduction axis with a combiner}}
  %c = te.compute (%a) [%i] reduce [] in [] combiner = sum {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @extent(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduction extents must be positive, but got 0}}
  %c = te.compute (%a) [%i] reduce [%k] in [0] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @arg_count(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{expects 2 index block arguments (2 result dimensions and 0 reduction axes), but the body has 1}}
  %c = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0, d0)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{block argument #0 must be of index type, but got 'i32'}}
  %c = "te.compute"(%a) ({
  ^bb0(%i: i32):
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body must end with 'te.yield'}}
  %c = "te.compute"(%a) ({
  ^bb0(%i: index):
    "unreg.terminator"() : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @reduce_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{2 reduction axes but 1 extents}}
  %c = te.compute (%a) [%i] reduce [%k, %l] in [4] combiner = sum {
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @padding_type(%a: tensor<8xf32>) -> tensor<8xf32> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{padding must be a f32 attribute, the type of the result}}
    %x = te.read %a[(d0) -> (d0 - 1)] {padding = 0 : i32} : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

func.func @read_at_rank(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{has 1 indices for an input of rank 2}}
    %x = te.read_at %a[%i] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @read_at_outside(%a: tensor<4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{expects to be nested in a 'te.compute'}}
  %x = te.read_at %a[%i] : tensor<4xf32>
  return %x : f32
}

// -----

// A read of an unsigned tensor gives the signless integer of the same width, not another.
func.func @read_unsigned_width(%a: tensor<4xui8>) -> tensor<4xi16> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{result type 'i16' must be the (signless) element type of input #0 ('tensor<4xui8>')}}
    %x = "te.read"(%a) <{map = affine_map<(d0) -> (d0)>}> : (tensor<4xui8>) -> i16
    te.yield %x : i16
  } : (tensor<4xui8>) -> tensor<4xi16>
  return %c : tensor<4xi16>
}

// -----

// Body scalars are signless: the unsigned type itself is not read.
func.func @read_unsigned_type(%a: tensor<4xui8>) -> tensor<4xui8> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{result type 'ui8' must be the (signless) element type of input #0 ('tensor<4xui8>')}}
    %x = "te.read"(%a) <{map = affine_map<(d0) -> (d0)>}> : (tensor<4xui8>) -> ui8
    "te.yield"(%x) : (ui8) -> ()
  } : (tensor<4xui8>) -> tensor<4xui8>
  return %c : tensor<4xui8>
}

// -----

func.func @yield_unsigned_width(%a: tensor<4xi16>) -> tensor<4xui8> {
  %c = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xi16>
    // expected-error @+1 {{type 'i16' of the yielded value must be the (signless) element type of the result 'tensor<4xui8>'}}
    te.yield %x : i16
  } : (tensor<4xi16>) -> tensor<4xui8>
  return %c : tensor<4xui8>
}

// -----

func.func @unknown_combiner_attr(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown combiner 'mean'; expected one of sum, max, min, prod}}
  %c = "te.compute"(%a) <{combiner = #te.combiner<mean>, reduction_extents = array<i64: 8>}> ({
  ^bb0(%i: index, %k: index):
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @combiner_not_a_combiner(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'te.compute' op attribute 'combiner' failed to satisfy constraint: #te.combiner attribute}}
  %c = "te.compute"(%a) <{combiner = 1 : i64, reduction_extents = array<i64: 8>}> ({
  ^bb0(%i: index, %k: index):
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// The combiner is a typed attribute; a string, even one naming a combiner, is refused.
func.func @combiner_string(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{combiner must be a #te.combiner attribute (one of sum, max, min, prod), not "sum"}}
  %c = "te.compute"(%a) <{combiner = "sum", reduction_extents = array<i64: 8>}> ({
  ^bb0(%i: index, %k: index):
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @extract_rank(%a: tensor<4x8xf32>, %i: index) -> f32 {
  // expected-error @+1 {{has 1 indices for a tensor of rank 2}}
  %x = te.extract %a[%i] : tensor<4x8xf32>
  return %x : f32
}

// -----

func.func @extract_in_compute(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = te.compute (%a) [%i] {
    // expected-error @+1 {{must not be nested in a 'te.compute'; a body reads with 'te.read_at'}}
    %x = te.extract %a[%i] : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @extract_type(%a: tensor<4xui8>, %i: index) -> i16 {
  // expected-error @+1 {{result type 'i16' must be the (signless) element type of 'tensor<4xui8>'}}
  %x = "te.extract"(%a, %i) : (tensor<4xui8>, index) -> i16
  return %x : i16
}
