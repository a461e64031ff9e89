// RUN: tb-opt --split-input-file --verify-diagnostics %s

func.func @too_few_elements(%x: f32) -> vector<3xf32> {
  // expected-error@+1 {{number of operands and types do not match: got 2 operands and 3 types}}
  %v = vector.from_elements %x, %x : vector<3xf32>
  return %v : vector<3xf32>
}

// -----

func.func @element_of_another_type(%x: f32, %y: f16) -> vector<2xf32> {
  // expected-error@+1 {{'vector.from_elements' op requires every element to have the result's element type}}
  %v = "vector.from_elements"(%x, %y) : (f32, f16) -> vector<2xf32>
  return %v : vector<2xf32>
}

// -----

func.func @position_out_of_range(%v: vector<2x2xf32>) -> f32 {
  // expected-error@+1 {{'vector.extract' op expected position attribute #1 to be a non-negative integer smaller than the corresponding vector dimension}}
  %e = vector.extract %v[2, 0] : f32 from vector<2x2xf32>
  return %e : f32
}

// -----

func.func @too_many_positions(%v: vector<2x2xf32>) -> f32 {
  // expected-error@+1 {{'vector.extract' op expected position attribute of rank no greater than vector rank}}
  %e = vector.extract %v[1, 0, 0] : f32 from vector<2x2xf32>
  return %e : f32
}

// -----

func.func @wrong_result(%v: vector<2x2xf32>) -> f32 {
  // expected-error@+1 {{'vector.extract' op result type f32 does not match the source's vector<2x2xf32> at 1 positions}}
  %e = vector.extract %v[1] : f32 from vector<2x2xf32>
  return %e : f32
}

// -----

func.func @dynamic_position(%v: vector<2x2xf32>, %i: index) -> f32 {
  // expected-error@+1 {{dynamic positions in 'vector.extract' are not supported by TensorBind yet}}
  %e = vector.extract %v[%i, 0] : f32 from vector<2x2xf32>
  return %e : f32
}
