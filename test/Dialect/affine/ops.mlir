// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// CHECK-DAG: #[[$APPLY:.*]] = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-DAG: #[[$MIN:.*]] = affine_map<(d0)[s0] -> (1000, d0 + 512, s0)>
// CHECK-DAG: #[[$CONSTS:.*]] = affine_map<() -> (77, 78, 79)>
// CHECK-DAG: #[[$LB:.*]] = affine_map<(d0)[s0] -> (d0, s0)>
// CHECK-DAG: #[[$UB:.*]] = affine_map<()[s0] -> (s0, 64)>
// CHECK-DAG: #[[$SET:.*]] = affine_set<(d0)[s0] : (d0 - 10 >= 0, s0 == 0)>
// CHECK-DAG: #[[$TRUE:.*]] = affine_set<() : (0 == 0)>

// CHECK-LABEL: func.func @apply(%arg0: index, %arg1: index) -> index {
// CHECK-NEXT:    %0 = affine.apply #[[$APPLY]](%arg0)[%arg1]
// GENERIC-LABEL: sym_name = "apply"
// GENERIC:         "affine.apply"(%{{.*}}, %{{.*}}) <{map = {{.*}}}> : (index, index) -> index
func.func @apply(%i: index, %n: index) -> index {
  %0 = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]
  return %0 : index
}

// CHECK-LABEL: func.func @min_max(
// CHECK-NEXT:    %0 = affine.min #[[$MIN]](%arg0)[%arg1]
// CHECK-NEXT:    %1 = affine.max #[[$CONSTS]]()
func.func @min_max(%i: index, %n: index) -> (index, index) {
  %0 = affine.min affine_map<(d0)[s0] -> (1000, d0 + 512, s0)>(%i)[%n]
  %1 = affine.max affine_map<()[] -> (77, 78, 79)>()
  return %0, %1 : index, index
}

// Bounds: a map with several results needs max/min; a bare value is a symbol; the
// attribute dictionary follows the body.
// CHECK-LABEL: func.func @for_bounds(
// CHECK-NEXT:    affine.for %arg2 = max #[[$LB]](%arg0)[%arg1] to min #[[$UB]]()[%arg1] step 4 {
// CHECK-NEXT:      affine.for %arg3 = %arg1 to 10 {
// CHECK-NEXT:        "foo"(%arg2, %arg3) : (index, index) -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    } {some_attr = true}
// GENERIC-LABEL: sym_name = "for_bounds"
// GENERIC:         "affine.for"(%{{.*}}, %{{.*}}, %{{.*}}) <{lowerBoundMap = {{.*}}, operandSegmentSizes = array<i32: 2, 1, 0>, step = 4 : index, upperBoundMap = {{.*}}}> ({
// GENERIC:           "affine.yield"() : () -> ()
func.func @for_bounds(%i: index, %n: index) {
  affine.for %k = max affine_map<(d0)[s0] -> (d0, s0)>(%i)[%n] to min affine_map<()[s0] -> (s0, 64)>()[%n] step 4 {
    affine.for %l = %n to 10 {
      "foo"(%k, %l) : (index, index) -> ()
    }
  } {some_attr = true}
  return
}

// CHECK-LABEL: func.func @for_iter_args(
// CHECK:         %0:2 = affine.for %arg1 = 0 to 10 step 2 iter_args(%arg2 = %cst, %arg3 = %cst) -> (f32, f32) {
// CHECK-NEXT:      %1 = affine.load %arg0[%arg1] : memref<1024xf32>
// CHECK-NEXT:      %2 = arith.addf %arg2, %1 : f32
// CHECK-NEXT:      affine.yield %2, %arg3 : f32, f32
// CHECK-NEXT:    }
func.func @for_iter_args(%A: memref<1024xf32>) -> (f32, f32) {
  %zero = arith.constant 0.0 : f32
  %r:2 = affine.for %k = 0 to 10 step 2 iter_args(%a = %zero, %b = %zero) -> (f32, f32) {
    %v = affine.load %A[%k] : memref<1024xf32>
    %s = arith.addf %a, %v : f32
    affine.yield %s, %b : f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

// CHECK-LABEL: func.func @if_else(
// CHECK:         %0 = affine.if #[[$SET]](%arg1)[%arg2] -> f32 {
// CHECK-NEXT:      %1 = affine.load %arg0[%arg1, %arg2] : memref<100x100xf32>
// CHECK-NEXT:      affine.yield %1 : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      affine.yield %cst : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.if #[[$TRUE]]() {
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "if_else"
// GENERIC:         "affine.if"(%{{.*}}, %{{.*}}) <{condition = {{.*}}}> ({
func.func @if_else(%A: memref<100x100xf32>, %i: index, %n: index) -> f32 {
  %zero = arith.constant 0.0 : f32
  %0 = affine.if affine_set<(d0)[s0] : (d0 - 10 >= 0, s0 == 0)>(%i)[%n] -> f32 {
    %v = affine.load %A[%i, %n] : memref<100x100xf32>
    affine.yield %v : f32
  } else {
    affine.yield %zero : f32
  }
  affine.if affine_set<() : ()>() {
  }
  return %0 : f32
}

// Subscripts are affine expressions of dims (bare values) and symbols (`symbol(%v)`).
// CHECK-LABEL: func.func @load_store_subscripts(
// CHECK-NEXT:    %0 = affine.load %arg0[%arg1 + 1, symbol(%arg2)] : memref<100x100xf32>
// CHECK-NEXT:    affine.store %0, %arg0[%arg1 floordiv 2, %arg1 * 3 - symbol(%arg2) mod 4] : memref<100x100xf32>
// CHECK-NEXT:    affine.store %0, %arg0[%arg1, 3] : memref<100x100xf32>
// GENERIC-LABEL: sym_name = "load_store_subscripts"
// GENERIC:         "affine.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{map = {{.*}}}> : (memref<100x100xf32>, index, index) -> f32
func.func @load_store_subscripts(%A: memref<100x100xf32>, %i: index, %n: index) {
  %v = affine.load %A[%i + 1, symbol(%n)] : memref<100x100xf32>
  affine.store %v, %A[%i floordiv 2, %i * 3 - symbol(%n) mod 4] : memref<100x100xf32>
  affine.store %v, %A[%i, 3] : memref<100x100xf32>
  return
}

// CHECK-LABEL: func.func @parallel(
// CHECK-NEXT:    affine.parallel (%arg3, %arg4) = (0, max(%arg1, %arg2)) to (symbol(%arg2), 100) step (10, 10) {
// CHECK-NEXT:      "foo"(%arg3, %arg4) : (index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %0:2 = affine.parallel (%arg3, %arg4) = (0, 0) to (100, 100) reduce ("addf", "maximumf") -> (f32, f32) {
// CHECK-NEXT:      %1 = affine.load %arg0[%arg3, %arg4] : memref<100x100xf32>
// CHECK-NEXT:      affine.yield %1, %1 : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.parallel () = () to () {
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "parallel"
// GENERIC:         "affine.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{lowerBoundsGroups = dense<[1, 2]> : tensor<2xi32>, lowerBoundsMap = {{.*}}, reductions = [], steps = [10, 10], upperBoundsGroups = dense<1> : tensor<2xi32>, upperBoundsMap = {{.*}}}> ({
func.func @parallel(%A: memref<100x100xf32>, %i: index, %n: index) -> (f32, f32) {
  affine.parallel (%x, %y) = (0, max(%i, %n)) to (symbol(%n), 100) step (10, 10) {
    "foo"(%x, %y) : (index, index) -> ()
  }
  %r:2 = affine.parallel (%x, %y) = (0, 0) to (100, 100) reduce ("addf", "maximumf") -> (f32, f32) {
    %v = affine.load %A[%x, %y] : memref<100x100xf32>
    affine.yield %v, %v : f32, f32
  }
  affine.parallel () = () to () {
  }
  return %r#0, %r#1 : f32, f32
}

// CHECK-LABEL: func.func @prefetch(
// CHECK-NEXT:    affine.prefetch %arg0[%arg1, %arg1 + 1], read, locality<3>, data : memref<100x100xf32>
// CHECK-NEXT:    affine.prefetch %arg0[%arg1, 0], write, locality<0>, instr : memref<100x100xf32>
// GENERIC-LABEL: sym_name = "prefetch"
// GENERIC:         "affine.prefetch"(%{{.*}}, %{{.*}}) <{isDataCache = true, isWrite = false, localityHint = 3 : i32, map = {{.*}}}> : (memref<100x100xf32>, index) -> ()
func.func @prefetch(%A: memref<100x100xf32>, %i: index) {
  affine.prefetch %A[%i, %i + 1], read, locality<3>, data : memref<100x100xf32>
  affine.prefetch %A[%i, 0], write, locality<0>, instr : memref<100x100xf32>
  return
}

// CHECK-LABEL: func.func @vector_access(
// CHECK:         %0 = affine.vector_load %arg0[%arg2, %arg2 * 8 + 1] : memref<100x100xf32>, vector<2x8xf32>
// CHECK-NEXT:    affine.vector_store %0, %arg0[%arg2 + symbol(%arg1), 3] : memref<100x100xf32>, vector<2x8xf32>
// GENERIC-LABEL: sym_name = "vector_access"
// GENERIC:         "affine.vector_load"(%{{.*}}, %{{.*}}) <{map = {{.*}}}> : (memref<100x100xf32>, index) -> vector<2x8xf32>
// GENERIC:         "affine.vector_store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{map = {{.*}}}> : (vector<2x8xf32>, memref<100x100xf32>, index, index) -> ()
func.func @vector_access(%A: memref<100x100xf32>, %n: index) {
  affine.for %i = 0 to 10 {
    %v = affine.vector_load %A[%i, %i * 8 + 1] : memref<100x100xf32>, vector<2x8xf32>
    affine.vector_store %v, %A[%i + symbol(%n), 3] : memref<100x100xf32>, vector<2x8xf32>
  }
  return
}

// The DMA maps are ordinary attributes, as in MLIR; the stride pair is optional.
// CHECK-LABEL: func.func @dma(
// CHECK:         affine.dma_start %arg0[%arg3, %arg3 + symbol(%arg2)], %arg1[%arg3 floordiv 2], %alloc[0], %c64 : memref<100x100xf32>, memref<50xf32, 2>, memref<1xi32>
// CHECK-NEXT:    affine.dma_start %arg0[%arg3, 0], %arg1[0], %alloc[%arg3 mod 3], %c64, %c4, %c2 : memref<100x100xf32>, memref<50xf32, 2>, memref<1xi32>
// CHECK-NEXT:    affine.dma_wait %alloc[0], %c64 : memref<1xi32>
// GENERIC-LABEL: sym_name = "dma"
// GENERIC:         "affine.dma_start"({{.*}}) {dst_map = {{.*}}, src_map = {{.*}}, tag_map = {{.*}}} : (memref<100x100xf32>, index, index, memref<50xf32, 2>, index, memref<1xi32>, index) -> ()
// GENERIC:         "affine.dma_wait"({{.*}}) {tag_map = {{.*}}} : (memref<1xi32>, index) -> ()
func.func @dma(%src: memref<100x100xf32>, %dst: memref<50xf32, 2>, %n: index) {
  %tag = memref.alloc() : memref<1xi32>
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  affine.for %i = 0 to 10 {
    affine.dma_start %src[%i, %i + symbol(%n)], %dst[%i floordiv 2], %tag[0], %c64
      : memref<100x100xf32>, memref<50xf32, 2>, memref<1xi32>
    affine.dma_start %src[%i, 0], %dst[0], %tag[%i mod 3], %c64, %c4, %c2
      : memref<100x100xf32>, memref<50xf32, 2>, memref<1xi32>
    affine.dma_wait %tag[0], %c64 : memref<1xi32>
  }
  return
}

// A memref.dim of a subview (or view, or alloc) is a valid symbol when the size it reads
// is a valid symbol; index (de)linearizations of valid dims are valid dims.
// CHECK-LABEL: func.func @dims_and_symbols_from_memref_sizes(
// CHECK:         affine.for %{{.*}} = 0 to %{{.*}} {
// CHECK:         affine.load %arg1[%{{.*}}] : memref<?xf32>
func.func @dims_and_symbols_from_memref_sizes(%A: memref<?x?xf32>, %B: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  affine.for %i = 0 to 10 {
    %d = memref.dim %A, %c0 : memref<?x?xf32>
    %s = memref.subview %A[%c0, %c0][%d, %i][%c1, %c1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    %e = memref.dim %s, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
    affine.for %j = 0 to %e {
      %l = affine.linearize_index disjoint [%i, %j] by (10, %n) : index
      %v = affine.load %B[%l] : memref<?xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @linearize_delinearize(
// CHECK-NEXT:    %0:3 = affine.delinearize_index %arg0 into (2, %arg2, 3) : index, index, index
// CHECK-NEXT:    %1 = affine.linearize_index disjoint [%arg0, %arg1, %0#0] by (2, %arg2, 3) : index
// CHECK-NEXT:    %2 = affine.linearize_index [%arg0, %arg1] by (%arg2, 3) : index
// GENERIC-LABEL: sym_name = "linearize_delinearize"
// GENERIC:         "affine.delinearize_index"(%{{.*}}, %{{.*}}) <{static_basis = array<i64: 2, -9223372036854775808, 3>}> : (index, index) -> (index, index, index)
func.func @linearize_delinearize(%i: index, %j: index, %n: index) -> (index, index, index) {
  %d:3 = affine.delinearize_index %i into (2, %n, 3) : index, index, index
  %l = affine.linearize_index disjoint [%i, %j, %d#0] by (2, %n, 3) : index
  %m = affine.linearize_index [%i, %j] by (%n, 3) : index
  return %d#1, %l, %m : index, index, index
}
