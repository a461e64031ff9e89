// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

func.func @apply_operand_count(%i: index) {
  // expected-error@+1 {{'affine.apply' op operand count and affine map dimension and symbol count must match}}
  %0 = "affine.apply"(%i, %i) {map = affine_map<(d0) -> (d0)>} : (index, index) -> index
  return
}

// -----

func.func @apply_two_results(%i: index) {
  // expected-error@+1 {{'affine.apply' op mapping must produce one value}}
  %0 = "affine.apply"(%i) {map = affine_map<(d0) -> (d0, d0)>} : (index) -> index
  return
}

// -----

func.func @apply_iv_as_symbol() {
  affine.for %i = 0 to 10 {
    // expected-error@+1 {{dimensional operand cannot be used as a symbol}}
    %0 = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%i]
  }
  return
}

// -----

func.func @min_no_results(%i: index) {
  // expected-error@+1 {{'affine.min' op affine map expect at least one result}}
  %0 = "affine.min"(%i) {map = affine_map<(d0) -> ()>} : (index) -> index
  return
}

// -----

#map = affine_map<(d0)[s0] -> (d0 + s0)>

func.func @for_bound_iv_as_symbol() {
  affine.for %i = 0 to 7 {
    // expected-error@+1 {{operand cannot be used as a symbol}}
    affine.for %j = #map(%i)[%i] to 7 {
    }
  }
  return
}

// -----

func.func @for_lower_bound_needs_max(%i: index) {
  // expected-error@+1 {{lower loop bound affine map with multiple results requires 'max' prefix}}
  affine.for %j = affine_map<(d0) -> (d0, 0)>(%i) to 7 {
  }
  return
}

// -----

func.func @for_negative_step() {
  // expected-error@+1 {{expected step to be representable as a positive signed integer}}
  affine.for %i = 0 to 7 step -1 {
  }
  return
}

// -----

func.func @for_iter_args_mismatch(%x: f32) {
  // expected-error@+1 {{mismatch between the number of loop-carried values and results}}
  %r = affine.for %i = 0 to 10 iter_args(%a = %x) -> (f32, f32) {
    affine.yield %a : f32
  }
  return
}

// -----

func.func @yield_type_mismatch(%x: f32, %y: i32) {
  %r = affine.for %i = 0 to 10 iter_args(%a = %x) -> (f32) {
    // expected-error@+1 {{'affine.yield' op types mismatch between yield op and its parent}}
    affine.yield %y : i32
  }
  return
}

// -----

func.func @load_in_unknown_region(%M: memref<10xi32>) {
  "unknown"() ({
  ^bb0(%arg: index):
    // expected-error@+1 {{'affine.load' op operand cannot be used as a dimension id}}
    %v = affine.load %M[%arg] : memref<10xi32>
    "unknown.end"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @store_type_mismatch(%M: memref<10xf32>, %v: i32, %i: index) {
  // expected-error@+1 {{'affine.store' op value to store must have the same type as memref element type}}
  "affine.store"(%v, %M, %i) {map = affine_map<(d0) -> (d0)>} : (i32, memref<10xf32>, index) -> ()
  return
}

// -----

func.func @load_rank_mismatch(%M: memref<10x10xf32>, %i: index) {
  // expected-error@+1 {{'affine.load' op affine map num results must equal memref rank}}
  %v = affine.load %M[%i] : memref<10x10xf32>
  return
}

// -----

func.func @parallel_reduction_type(%n: index) {
  // expected-error@+1 {{'affine.parallel' op result type cannot match reduction attribute}}
  %r = affine.parallel (%i) = (0) to (%n) reduce ("addi") -> (f32) {
    %c = arith.constant 0.0 : f32
    affine.yield %c : f32
  }
  return
}

// -----

func.func @parallel_bad_reduction(%n: index) {
  // expected-error@+1 {{invalid reduction value: "bad"}}
  %r = affine.parallel (%i) = (0) to (%n) reduce ("bad") -> (f32) {
    %c = arith.constant 0.0 : f32
    affine.yield %c : f32
  }
  return
}

// -----

func.func @if_symbol_is_iv() {
  affine.for %i = 0 to 7 {
    // expected-error@+1 {{operand cannot be used as a symbol}}
    affine.if affine_set<(d0)[s0] : (d0 >= 0, s0 - d0 >= 0)>(%i)[%i] {
    }
  }
  return
}

// -----

func.func @delinearize_result_count(%x: index) {
  // expected-error@+1 {{'affine.delinearize_index' op should return an index for each basis element and up to one extra index}}
  %0:4 = affine.delinearize_index %x into (2, 3) : index, index, index, index
  return
}

// -----

func.func @delinearize_nonpositive_basis(%x: index) {
  // expected-error@+1 {{'affine.delinearize_index' op no basis element may be statically non-positive}}
  %0:2 = affine.delinearize_index %x into (0, 3) : index, index
  return
}

// -----

func.func @linearize_basis_count(%a: index, %b: index) {
  // expected-error@+1 {{'affine.linearize_index' op should be passed a basis element for each index except possibly the first}}
  %0 = affine.linearize_index [%a, %b] by (2, 3, 4) : index
  return
}
