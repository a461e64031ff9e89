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

// -----

func.func @vector_load_element_type(%A: memref<100xf32>, %i: index) {
  // expected-error@+1 {{'affine.vector_load' op requires memref and vector types of the same elemental type}}
  %0 = affine.vector_load %A[%i] : memref<100xf32>, vector<8xf64>
  return
}

// -----

func.func @vector_store_into_memref_of_vectors(%A: memref<100xvector<8xf32>>, %v: vector<8xf32>, %i: index) {
  // expected-error@+1 {{'affine.vector_store' op requires memref and vector types of the same elemental type}}
  affine.vector_store %v, %A[%i] : memref<100xvector<8xf32>>, vector<8xf32>
  return
}

// -----

func.func @vector_load_rank(%A: memref<10x10xf32>, %i: index) {
  // expected-error@+1 {{'affine.vector_load' op affine map num results must equal memref rank}}
  %0 = affine.vector_load %A[%i] : memref<10x10xf32>, vector<8xf32>
  return
}

// -----

func.func @vector_load_not_a_vector(%A: memref<10xf32>, %i: index) {
  // expected-error@+1 {{invalid kind of type specified: expected builtin.vector, but found 'f32'}}
  %0 = affine.vector_load %A[%i] : memref<10xf32>, f32
  return
}

// -----

func.func @dma_start_src_index(%A: memref<100xf32>, %B: memref<100xf32, 2>, %tag: memref<1xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  affine.for %i = 0 to 10 {
    %x = arith.muli %i, %n : index
    // expected-error@+1 {{'affine.dma_start' op src index must be a valid dimension or symbol identifier}}
    affine.dma_start %A[%x], %B[%i], %tag[%c0], %n : memref<100xf32>, memref<100xf32, 2>, memref<1xi32>
  }
  return
}

// -----

func.func @dma_start_tag_index(%A: memref<100xf32>, %B: memref<100xf32, 2>, %tag: memref<1xi32>, %n: index) {
  affine.for %i = 0 to 10 {
    %x = arith.muli %i, %n : index
    // expected-error@+1 {{'affine.dma_start' op tag index must be a valid dimension or symbol identifier}}
    affine.dma_start %A[%i], %B[%i], %tag[%x], %n : memref<100xf32>, memref<100xf32, 2>, memref<1xi32>
  }
  return
}

// -----

func.func @dma_start_one_stride_operand(%A: memref<100xf32>, %B: memref<100xf32, 2>, %tag: memref<1xi32>, %n: index) {
  // expected-error@+1 {{expected two stride related operands}}
  affine.dma_start %A[0], %B[0], %tag[0], %n, %n : memref<100xf32>, memref<100xf32, 2>, memref<1xi32>
  return
}

// -----

func.func @dma_start_two_types(%A: memref<100xf32>, %B: memref<100xf32, 2>, %tag: memref<1xi32>, %n: index) {
  // expected-error@+1 {{expected three types}}
  affine.dma_start %A[0], %B[0], %tag[0], %n : memref<100xf32>, memref<100xf32, 2>
  return
}

// -----

func.func @dma_start_generic_not_memref(%A: memref<100xf32>, %B: memref<100xf32, 2>, %n: index) {
  // expected-error@+1 {{'affine.dma_start' op expected DMA tag to be of memref type}}
  "affine.dma_start"(%A, %n, %B, %n, %n, %n) {src_map = affine_map<(d0) -> (d0)>, dst_map = affine_map<(d0) -> (d0)>, tag_map = affine_map<() -> ()>} : (memref<100xf32>, index, memref<100xf32, 2>, index, index, index) -> ()
  return
}

// -----

func.func @dma_start_operand_count(%A: memref<100xf32>, %B: memref<100xf32, 2>, %tag: memref<1xi32>, %n: index) {
  // expected-error@+1 {{'affine.dma_start' op incorrect number of operands}}
  "affine.dma_start"(%A, %n, %B, %n, %tag, %n, %n, %n) {src_map = affine_map<(d0) -> (d0)>, dst_map = affine_map<(d0) -> (d0)>, tag_map = affine_map<(d0) -> (d0)>} : (memref<100xf32>, index, memref<100xf32, 2>, index, memref<1xi32>, index, index, index) -> ()
  return
}

// -----

func.func @dma_wait_index(%tag: memref<1xi32>, %n: index) {
  affine.for %i = 0 to 10 {
    %x = arith.muli %i, %n : index
    // expected-error@+1 {{'affine.dma_wait' op index must be a valid dimension or symbol identifier}}
    affine.dma_wait %tag[%x], %n : memref<1xi32>
  }
  return
}

// -----

func.func @dma_wait_tag_not_memref(%t: tensor<1xi32>, %n: index) {
  // expected-error@+1 {{expected tag to be of memref type}}
  affine.dma_wait %t[0], %n : tensor<1xi32>
  return
}

// -----

// Only sizes given to memref.alloc, view or subview make a dim of the memref a symbol.
func.func @alloca_size_is_not_a_symbol(%n: index) {
  affine.for %i = 0 to 10 {
    %m = memref.alloca(%n) : memref<?xf32>
    %c0 = arith.constant 0 : index
    %d = memref.dim %m, %c0 : memref<?xf32>
    // expected-error@+1 {{'affine.for' op operand cannot be used as a symbol}}
    affine.for %j = 0 to %d {
    }
  }
  return
}

// -----

// A size read from a memref defined in a loop is not a valid symbol.
func.func @subview_size_not_a_symbol(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  affine.for %i = 0 to 10 {
    %s = memref.subview %A[%c0][%i][%c1] : memref<?xf32> to memref<?xf32, strided<[?], offset: ?>>
    %e = memref.dim %s, %c0 : memref<?xf32, strided<[?], offset: ?>>
    // expected-error@+1 {{'affine.for' op operand cannot be used as a symbol}}
    affine.for %j = 0 to %e {
    }
  }
  return
}
