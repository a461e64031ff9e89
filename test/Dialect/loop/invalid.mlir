// RUN: tb-opt %s --split-input-file --verify-diagnostics

func.func @alloc_sizes(%n: index) {
  // expected-error @+1 {{has 1 dynamic size operands, but 'memref<4x8xf32>' has 0 dynamic dimensions}}
  %m = loop.alloc(%n) : memref<4x8xf32>
  return
}

// -----

func.func @alloc_alignment() {
  // expected-error @+1 {{alignment must be a positive power of two, but got 48}}
  %m = loop.alloc() {alignment = 48} : memref<4xf32>
  return
}

// -----

func.func @step() {
  // expected-error @+1 {{step must be positive, but got 0}}
  loop.for %i = 0 to 8 step 0 {
  }
  return
}

// -----

func.func @unroll() {
  // expected-error @+1 {{unroll factor must be positive, but got 0}}
  loop.for %i = 0 to 8 unroll = 0 {
  }
  return
}

// -----

func.func @vectorize() {
  // expected-error @+1 {{vectorize width must be positive, but got -2}}
  loop.parallel (%i) = (0) to (8) vectorize = -2 {
  }
  return
}

// -----

func.func @vector_width(%m: memref<64xf32>) {
  // expected-error @+1 {{vectorize width 8 does not match the 4 lanes of a 'loop.vector_load' in its body}}
  loop.for %i = 0 to 64 step 4 vectorize = 8 {
    %v = loop.vector_load %m[%i] : memref<64xf32>, vector<4xf32>
  }
  return
}

// -----

func.func @bound_operands(%n: index) {
  // expected-error @+1 {{bounds do not match their operands (1 lower and 0 upper bound operands) or the 1 induction variables}}
  "loop.for"(%n) <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 1, 0, 0>}> ({
  ^bb0(%i: index):
    loop.yield
  }) : (index) -> ()
  return
}

// -----

func.func @bound_results() {
  // expected-error @+1 {{upper bound map of dimension 0 has no results}}
  "loop.for"() <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> ()>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index):
    loop.yield
  }) : () -> ()
  return
}

// -----

func.func @iv_count() {
  // expected-error @+1 {{expects 1 body arguments (the induction variable and 0 iter_args), but the body has 2}}
  "loop.for"() <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index, %j: index):
    loop.yield
  }) : () -> ()
  return
}

// -----

func.func @iv_type() {
  // expected-error @+1 {{induction variable #0 must be of index type, but got 'i32'}}
  "loop.for"() <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: i32):
    loop.yield
  }) : () -> ()
  return
}

// -----

func.func @parallel_ivs() {
  // expected-error @+1 {{expects at least one induction variable}}
  loop.parallel () = () to () {
  }
  return
}

// -----

func.func @parallel_counts() {
  // expected-error @+1 {{2 induction variables, but 2 lower bounds, 1 upper bounds and 2 steps}}
  loop.parallel (%i, %j) = (0, 0) to (8) {
  }
  return
}

// -----

func.func @max_keyword(%n: index) {
  // expected-error @+1 {{expected 'max' before a bound map with several results}}
  loop.for %i = affine_map<(d0) -> (d0, 0)>(%n) to 8 {
  }
  return
}

// -----

func.func @bound_map_inputs(%n: index) {
  // expected-error @+1 {{bound map takes 1 dims and 0 symbols, but 0 and 1 are given}}
  loop.for %i = 0 to affine_map<(d0) -> (d0)>()[%n] {
  }
  return
}

// -----

func.func @map_inputs(%m: memref<4x8xf32>, %i: index) {
  // expected-error @+1 {{index map takes 2 inputs, but 1 indices are given}}
  %x = loop.load %m[(d0, d1) -> (d0, d1)](%i) : memref<4x8xf32>
  return
}

// -----

func.func @map_results(%m: memref<4x8xf32>, %i: index, %v: f32) {
  // expected-error @+1 {{index map has 1 results, but memref 'memref<4x8xf32>' has rank 2}}
  loop.store %v, %m[%i] : memref<4x8xf32>
  return
}

// -----

func.func @load_type(%m: memref<4xf32>, %i: index) {
  // expected-error @+1 {{result type 'f16' must be the (signless) element type of memref 'memref<4xf32>'}}
  %x = "loop.load"(%m, %i) <{map = affine_map<(d0) -> (d0)>}> : (memref<4xf32>, index) -> f16
  return
}

// -----

func.func @store_type(%m: memref<4xf32>, %i: index, %v: f64) {
  // expected-error @+1 {{stored value type 'f64' must be the (signless) element type of memref 'memref<4xf32>'}}
  "loop.store"(%v, %m, %i) <{map = affine_map<(d0) -> (d0)>}> : (f64, memref<4xf32>, index) -> ()
  return
}

// -----

// An unsigned memref is loaded as the signless integer of its width.
func.func @load_unsigned(%m: memref<4xui8>, %i: index) {
  // expected-error @+1 {{result type 'ui8' must be the (signless) element type of memref 'memref<4xui8>'}}
  %x = "loop.load"(%m, %i) <{map = affine_map<(d0) -> (d0)>}> : (memref<4xui8>, index) -> ui8
  return
}

// -----

func.func @store_unsigned_width(%m: memref<4xui8>, %i: index, %v: i16) {
  // expected-error @+1 {{stored value type 'i16' must be the (signless) element type of memref 'memref<4xui8>'}}
  "loop.store"(%v, %m, %i) <{map = affine_map<(d0) -> (d0)>}> : (i16, memref<4xui8>, index) -> ()
  return
}

// -----

func.func @vector_element(%m: memref<64xf32>, %i: index) {
  // expected-error @+1 {{vector type 'vector<8xf16>' must have the (signless) element type of memref 'memref<64xf32>'}}
  %v = loop.vector_load %m[%i] : memref<64xf32>, vector<8xf16>
  return
}

// -----

func.func @vector_rank(%m: memref<64xf32>, %i: index) {
  // expected-error @+1 {{vector type 'vector<2x8xf32>' has a higher rank than memref 'memref<64xf32>'}}
  %v = loop.vector_load %m[%i] : memref<64xf32>, vector<2x8xf32>
  return
}

// -----

func.func @out_of_bounds(%m: memref<4x8xf32>) {
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 8 {
      // expected-error @+1 {{index map result #1 (d1 + 1) takes values in [1, 8], out of bounds for dimension 1 (size 8) of memref 'memref<4x8xf32>'}}
      %x = loop.load %m[(d0, d1) -> (d0, d1 + 1)](%i, %j) : memref<4x8xf32>
    }
  }
  return
}

// -----

// A constant index is a point: `%c4` is past the end.
func.func @constant_index_out_of_bounds(%m: memref<4x8xf32>) {
  %c4 = arith.constant 4 : index
  loop.for %j = 0 to 8 {
    // expected-error @+1 {{index map result #0 (d0) takes values in [4, 4], out of bounds for dimension 0 (size 4) of memref 'memref<4x8xf32>'}}
    %x = loop.load %m[%c4, %j] : memref<4x8xf32>
  }
  return
}

// -----

func.func @vector_out_of_bounds(%m: memref<60xf32>) {
  loop.for %i = 0 to 60 step 8 {
    // expected-error @+1 {{index map result #0 (d0) takes values in [0, 63], out of bounds for dimension 0 (size 60) of memref 'memref<60xf32>'}}
    %v = loop.vector_load %m[%i] : memref<60xf32>, vector<8xf32>
  }
  return
}

// -----

func.func @broadcast(%x: f32) {
  // expected-error @+1 {{result 'vector<8xf64>' must be a vector of the scalar input type 'f32'}}
  %v = loop.broadcast %x : f32 to vector<8xf64>
  return
}

// -----

func.func @fma(%x: f32, %y: f64) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %v = "loop.fma"(%x, %y, %x) : (f32, f64, f32) -> f32
  return
}

// -----

func.func @fma_int(%x: i32) {
  // expected-error @+1 {{operand #0 must be floating-point-like, but got 'i32'}}
  %v = loop.fma %x, %x, %x : i32
  return
}

// -----

func.func @yield() {
  // expected-error @+1 {{expects parent op 'loop.for' or 'loop.parallel'}}
  loop.yield
}

// -----

func.func @no_yield() {
  // expected-error @+1 {{body must end with 'loop.yield'}}
  "loop.for"() <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index):
    func.return
  }) : () -> ()
  return
}

// -----

func.func @iter_args_results(%x: f32) {
  // expected-error @+1 {{mismatch in number of loop-carried values (1) and results (0)}}
  "loop.for"(%x) <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 1>}> ({
  ^bb0(%i: index, %acc: f32):
    loop.yield %acc : f32
  }) : (f32) -> ()
  return
}

// -----

func.func @iter_args_body(%x: f32) {
  // expected-error @+1 {{expects 2 body arguments (the induction variable and 1 iter_args), but the body has 1}}
  %r = "loop.for"(%x) <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 1>}> ({
  ^bb0(%i: index):
    loop.yield %x : f32
  }) : (f32) -> f32
  return
}

// -----

func.func @iter_args_init_type(%x: f64) {
  // expected-error @+1 {{types mismatch between init #0 ('f64') and result #0 ('f32')}}
  %r = "loop.for"(%x) <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 1>}> ({
  ^bb0(%i: index, %acc: f32):
    loop.yield %acc : f32
  }) : (f64) -> f32
  return
}

// -----

func.func @iter_args_arg_type(%x: f32) {
  // expected-error @+1 {{types mismatch between iter_arg #0 ('i32') and result #0 ('f32')}}
  %r = "loop.for"(%x) <{lower_bound = affine_map<() -> (0)>, upper_bound = affine_map<() -> (8)>, operandSegmentSizes = array<i32: 0, 0, 1>}> ({
  ^bb0(%i: index, %acc: i32):
    loop.yield %x : f32
  }) : (f32) -> f32
  return
}

// -----

func.func @iter_args_type_count(%x: f32) {
  // expected-error @+1 {{mismatch in number of loop-carried values (1) and result types (2)}}
  %r = loop.for %i = 0 to 8 iter_args(%acc = %x) -> (f32, f32) {
    loop.yield %acc : f32
  }
  return
}

// -----

func.func @yield_count(%x: f32) {
  %r = loop.for %i = 0 to 8 iter_args(%acc = %x) -> (f32) {
    // expected-error @+1 {{yields 0 values, but the parent 'loop.for' carries 1}}
    loop.yield
  }
  return
}

// -----

// A body that carries values needs its loop.yield written out.
func.func @yield_implicit(%x: f32) {
  // expected-error @+1 {{yields 0 values, but the parent 'loop.for' carries 1}}
  %r = loop.for %i = 0 to 8 iter_args(%acc = %x) -> (f32) {
  }
  return
}

// -----

func.func @yield_type(%x: f32, %y: f64) {
  %r = loop.for %i = 0 to 8 iter_args(%acc = %x) -> (f32) {
    // expected-error @+1 {{types mismatch between yielded value #0 ('f64') and the loop-carried value ('f32')}}
    loop.yield %y : f64
  }
  return
}

// -----

func.func @parallel_yield(%x: f32) {
  loop.parallel (%i) = (0) to (8) {
    // expected-error @+1 {{yields 1 values, but the parent 'loop.parallel' carries 0}}
    loop.yield %x : f32
  }
  return
}

// -----

func.func @iter_args_parallel(%x: f32) {
  // expected-error @+1 {{carries values between iterations (iter_args), so it cannot be marked 'parallel'}}
  %r = loop.for %i = 0 to 8 iter_args(%acc = %x) -> (f32) parallel {
    loop.yield %acc : f32
  }
  return
}

// -----

func.func @dot_group_size(%acc: vector<8xi32>, %a: vector<2xi16>, %b: vector<8xi16>) {
  // expected-error @+1 {{b must have 2 elements per accumulator lane (16 in all), got 8}}
  %r = loop.dot %acc, %a, %b : vector<8xi32>, vector<2xi16>, vector<8xi16>
  return
}

// -----

func.func @dot_element_types(%acc: vector<8xi32>, %a: vector<2xi16>, %b: vector<16xi8>) {
  // expected-error @+1 {{a and b must both be of i8 or of i16, got i16 and i8}}
  %r = loop.dot %acc, %a, %b : vector<8xi32>, vector<2xi16>, vector<16xi8>
  return
}

// -----

func.func @dot_accumulators(%acc: vector<8xf32>, %a: vector<2xi16>, %b: vector<16xi16>) {
  // expected-error @+1 {{expects a 1-D vector of i32 accumulators and 1-D integer vectors a and b}}
  %r = loop.dot %acc, %a, %b : vector<8xf32>, vector<2xi16>, vector<16xi16>
  return
}

// -----

func.func @vector_alignment(%m: memref<64xf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{alignment must be a positive power of two, but got 12}}
  %v = loop.vector_load %m[%c0] {alignment = 12} : memref<64xf16>, vector<8xf16>
  return
}
