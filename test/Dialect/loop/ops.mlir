// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: tb-opt --mlir-print-op-generic %s | tb-opt | FileCheck %s

// CHECK-DAG: #[[$UB:.*]] = affine_map<(d0) -> (d0 + 8, 64)>
// CHECK-DAG: #[[$SYM:.*]] = affine_map<()[s0] -> (s0 * 2)>
#ub = affine_map<(d0) -> (d0 + 8, 64)>

// Buffers: the default 64-byte alignment is left out; dynamic sizes are operands.
// CHECK-LABEL: func.func @buffers
// CHECK-NEXT:    %[[M:.*]] = loop.alloc() : memref<4x8xf32>
// CHECK-NEXT:    %[[D:.*]] = loop.alloc(%arg0) {alignment = 128 : i64} : memref<?x8xf32>
// CHECK-NEXT:    loop.dealloc %[[M]] : memref<4x8xf32>
// CHECK-NEXT:    loop.dealloc %[[D]] : memref<?x8xf32>
// GENERIC-LABEL: sym_name = "buffers"
// GENERIC:         "loop.alloc"() <{alignment = 64 : i64}> : () -> memref<4x8xf32>
// GENERIC:         "loop.dealloc"(%{{.*}}) : (memref<4x8xf32>) -> ()
func.func @buffers(%n: index) {
  %m = loop.alloc() : memref<4x8xf32>
  %d = loop.alloc(%n) {alignment = 128} : memref<?x8xf32>
  loop.dealloc %m : memref<4x8xf32>
  loop.dealloc %d : memref<?x8xf32>
  return
}

// A vectorized kernel: parallel outer loop, schedule annotations, vector accesses, an
// access through a non-identity map; the implicit loop.yield is not printed.
// CHECK-LABEL: func.func @kernel
// CHECK:         loop.parallel (%[[I:.*]]) = (0) to (64) {
// CHECK-NEXT:      loop.for %[[J:.*]] = 0 to 64 step 8 unroll = 2 vectorize = 8 {
// CHECK-NEXT:        %[[V:.*]] = loop.vector_load %arg0[%[[I]], %[[J]]] : memref<64x64xf32>, vector<8xf32>
// CHECK-NEXT:        %[[S:.*]] = loop.load %arg1[(d0) -> (d0, 0)](%[[I]]) : memref<64x1xf32>
// CHECK-NEXT:        %[[W:.*]] = loop.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-NEXT:        %[[R:.*]] = loop.fma %[[V]], %[[W]], %[[V]] : vector<8xf32>
// CHECK-NEXT:        loop.vector_store %[[R]], %arg2[%[[I]], %[[J]]] : memref<64x64xf32>, vector<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "kernel"
// GENERIC:         "loop.parallel"() <{lower_bounds = [affine_map<() -> (0)>], operandSegmentSizes = array<i32: 0, 0>, steps = array<i64: 1>, upper_bounds = [affine_map<() -> (64)>]}> ({
// GENERIC:           "loop.for"() <{lower_bound = affine_map<() -> (0)>, operandSegmentSizes = array<i32: 0, 0, 0>, step = 8 : i64, unroll = 2 : i64, upper_bound = affine_map<() -> (64)>, vectorize = 8 : i64}> ({
// GENERIC-NEXT:      ^bb0(%{{.*}}: index):
// GENERIC:             "loop.load"(%{{.*}}, %{{.*}}) <{map = affine_map<(d0) -> (d0, 0)>}> : (memref<64x1xf32>, index) -> f32
// GENERIC:             "loop.yield"() : () -> ()
func.func @kernel(%a: memref<64x64xf32>, %b: memref<64x1xf32>, %c: memref<64x64xf32>) {
  loop.parallel (%i) = (0) to (64) {
    loop.for %j = 0 to 64 step 8 vectorize = 8 unroll = 2 {
      %v = loop.vector_load %a[%i, %j] : memref<64x64xf32>, vector<8xf32>
      %s = loop.load %b[(d0) -> (d0, 0)](%i) : memref<64x1xf32>
      %w = loop.broadcast %s : f32 to vector<8xf32>
      %r = loop.fma %v, %w, %v : vector<8xf32>
      loop.vector_store %r, %c[%i, %j] : memref<64x64xf32>, vector<8xf32>
      loop.yield
    }
  }
  return
}

// Affine bounds over outer induction variables and symbols, min/max of several results,
// a parallel-marked loop, a scalar fma, and discardable attributes.
// CHECK-LABEL: func.func @bounds
// CHECK:         loop.for %[[T:.*]] = 0 to 64 step 8 parallel {
// CHECK-NEXT:      loop.for %[[U:.*]] = %[[T]] to min #[[$UB]](%[[T]]) attributes {tag} {
// CHECK-NEXT:        %[[X:.*]] = loop.load %arg0[%[[T]], %[[U]]] : memref<64x64xf32>
// CHECK-NEXT:        %[[F:.*]] = loop.fma %[[X]], %[[X]], %[[X]] : f32
// CHECK-NEXT:        loop.store %[[F]], %arg0[(d0, d1) -> (d1, d0)](%[[T]], %[[U]]) : memref<64x64xf32>
// CHECK:         loop.for %{{.*}} = max #{{.*}}(%arg1)[%arg1] to %arg1 {
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, %arg1) to (4, #[[$SYM]]()[%arg1]) step (1, 2) {
// CHECK-NEXT:    }
func.func @bounds(%a: memref<64x64xf32>, %n: index) {
  loop.for %t = 0 to 64 step 8 parallel {
    loop.for %u = %t to min #ub(%t) attributes {tag} {
      %x = loop.load %a[%t, %u] : memref<64x64xf32>
      %f = loop.fma %x, %x, %x : f32
      loop.store %f, %a[(d0, d1) -> (d1, d0)](%t, %u) : memref<64x64xf32>
    }
  }
  loop.for %k = max affine_map<(d0)[s0] -> (d0 - 4, s0 floordiv 2)>(%n)[%n] to %n {
  }
  loop.parallel (%i, %j) = (0, %n) to (4, affine_map<()[s0] -> (s0 * 2)>()[%n]) step (1, 2) {
  }
  return
}

// Rank-0 buffers and negative constant bounds.
// CHECK-LABEL: func.func @scalar
// CHECK:         loop.for %{{.*}} = -4 to 4 {
// CHECK-NEXT:      %{{.*}} = loop.load %arg0[] : memref<f32>
func.func @scalar(%s: memref<f32>) {
  loop.for %i = -4 to 4 {
    %x = loop.load %s[] : memref<f32>
    loop.store %x, %s[] : memref<f32>
  }
  return
}

// Loads and stores of unsigned memrefs carry signless scalars and vectors.
// CHECK-LABEL: func.func @unsigned
// CHECK:         %[[X:.*]] = loop.load %arg0[%{{.*}}] : memref<8xui16>
// CHECK-NEXT:    %[[M:.*]] = arith.maxui %[[X]], %[[X]] : i16
// CHECK-NEXT:    loop.store %[[M]], %arg0[%{{.*}}] : memref<8xui16>
// CHECK-NEXT:    %[[V:.*]] = loop.vector_load %arg0[%{{.*}}] : memref<8xui16>, vector<8xi16>
// CHECK-NEXT:    loop.vector_store %[[V]], %arg0[%{{.*}}] : memref<8xui16>, vector<8xi16>
// GENERIC-LABEL: sym_name = "unsigned"
// GENERIC:         "loop.load"(%{{.*}}, %{{.*}}) <{map = affine_map<(d0) -> (d0)>}> : (memref<8xui16>, index) -> i16
func.func @unsigned(%m: memref<8xui16>) {
  %c0 = arith.constant 0 : index
  %x = loop.load %m[%c0] : memref<8xui16>
  %y = arith.maxui %x, %x : i16
  loop.store %y, %m[%c0] : memref<8xui16>
  %v = loop.vector_load %m[%c0] : memref<8xui16>, vector<8xi16>
  loop.vector_store %v, %m[%c0] : memref<8xui16>, vector<8xi16>
  return
}

// Loop-carried values: iter_args spelled as scf.for spells them, after the step and before
// the schedule; the body yields the next values explicitly; the results are the final ones.
// CHECK-LABEL: func.func @iter_args
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = loop.for %[[K:.*]] = 0 to 16 step 2 iter_args(%[[ACC:.*]] = %[[Z]]) -> (f32) unroll = 2 {
// CHECK-NEXT:      %[[X:.*]] = loop.load %arg0[%[[K]]] : memref<16xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      loop.yield %[[N]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.store %[[S]], %arg1[] : memref<f32>
// GENERIC-LABEL: sym_name = "iter_args"
// GENERIC:         "loop.for"(%{{.*}}) <{lower_bound = affine_map<() -> (0)>, operandSegmentSizes = array<i32: 0, 0, 1>, step = 2 : i64, unroll = 2 : i64, upper_bound = affine_map<() -> (16)>}> ({
// GENERIC-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: f32):
// GENERIC:           "loop.yield"(%{{.*}}) : (f32) -> ()
// GENERIC-NEXT:    }) : (f32) -> f32
func.func @iter_args(%a: memref<16xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %sum = loop.for %k = 0 to 16 step 2 iter_args(%acc = %zero) -> (f32) unroll = 2 {
    %x = loop.load %a[%k] : memref<16xf32>
    %next = arith.addf %acc, %x : f32
    loop.yield %next : f32
  }
  loop.store %sum, %out[] : memref<f32>
  return
}

// Several carried values of different types, a single result type written without
// parentheses, bounds from values, and nests whose inner loop carries the outer iter_args.
// CHECK-LABEL: func.func @nested_iter_args
// CHECK:         %[[R:.*]]:2 = loop.for %[[I:.*]] = 0 to %arg1 iter_args(%[[A:.*]] = %arg2, %[[B:.*]] = %arg3) -> (f32, i32) {
// CHECK-NEXT:      %[[IN:.*]] = loop.for %[[J:.*]] = %[[I]] to 8 iter_args(%[[C:.*]] = %[[A]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = loop.load %arg0[%[[J]]] : memref<8xf32>
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[C]], %[[X]] : f32
// CHECK-NEXT:        loop.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[D:.*]] = arith.addi %[[B]], %[[B]] : i32
// CHECK-NEXT:      loop.yield %[[IN]], %[[D]] : f32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1 : f32, i32
func.func @nested_iter_args(%a: memref<8xf32>, %n: index, %f: f32, %g: i32) -> (f32, i32) {
  %r:2 = loop.for %i = 0 to %n iter_args(%x = %f, %y = %g) -> (f32, i32) {
    %inner = loop.for %j = %i to 8 iter_args(%c = %x) -> f32 {
      %v = loop.load %a[%j] : memref<8xf32>
      %m = arith.maximumf %c, %v : f32
      loop.yield %m : f32
    }
    %d = arith.addi %y, %y : i32
    loop.yield %inner, %d : f32, i32
  }
  return %r#0, %r#1 : f32, i32
}

// Integer dot products: i16 pairs, and unsigned-by-signed bytes in groups of four.
// CHECK-LABEL: func.func @dot
// CHECK-NEXT:    %[[P:.*]] = loop.dot %arg0, %arg1, %arg2 : vector<8xi32>, vector<2xi16>, vector<16xi16>
// CHECK-NEXT:    %[[Q:.*]] = loop.dot %[[P]], %arg3, %arg4 {unsigned_lhs} : vector<8xi32>, vector<4xi8>, vector<32xi8>
// CHECK-NEXT:    return %[[Q]] : vector<8xi32>
// GENERIC-LABEL: sym_name = "dot"
// GENERIC:         "loop.dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{unsigned_lhs}> : (vector<8xi32>, vector<4xi8>, vector<32xi8>) -> vector<8xi32>
func.func @dot(%acc: vector<8xi32>, %a: vector<2xi16>, %b: vector<16xi16>, %c: vector<4xi8>, %d: vector<32xi8>) -> vector<8xi32> {
  %p = loop.dot %acc, %a, %b : vector<8xi32>, vector<2xi16>, vector<16xi16>
  %q = loop.dot %p, %c, %d {unsigned_lhs} : vector<8xi32>, vector<4xi8>, vector<32xi8>
  return %q : vector<8xi32>
}

// A vector access may promise the alignment of its first element in bytes, as MLIR's
// vector.load does; the CPU and GPU translations then move the row as one aligned access.
// CHECK-LABEL: func.func @aligned_vectors
// CHECK:         %[[V:.*]] = loop.vector_load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<64xf16>, vector<8xf16>
// CHECK-NEXT:    loop.vector_store %[[V]], %arg0[%{{.*}}] {alignment = 16 : i64} : memref<64xf16>, vector<8xf16>
// GENERIC-LABEL: sym_name = "aligned_vectors"
// GENERIC:         "loop.vector_load"(%{{.*}}, %{{.*}}) <{alignment = 16 : i64, map = affine_map<(d0) -> (d0)>}> : (memref<64xf16>, index) -> vector<8xf16>
func.func @aligned_vectors(%m: memref<64xf16>) {
  %c8 = arith.constant 8 : index
  %v = loop.vector_load %m[%c8] {alignment = 16} : memref<64xf16>, vector<8xf16>
  loop.vector_store %v, %m[%c8] {alignment = 16} : memref<64xf16>, vector<8xf16>
  return
}
