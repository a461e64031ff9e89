// Upstream-style affine loops are converted to the loop level (convert-affine-to-loop),
// compiled for the host CPU by tb-run, and agree with the interpreter, which runs the
// affine ops themselves.
// RUN: tb-run %s --function matmul --random-inputs 3 > %t.compiled
// RUN: tb-run --interpret %s --function matmul --random-inputs 3 > %t.interpreted
// RUN: diff %t.compiled %t.interpreted
// RUN: tb-run %s --function tiled_reverse --random-inputs 5 > %t.compiled
// RUN: tb-run --interpret %s --function tiled_reverse --random-inputs 5 | diff %t.compiled -
// RUN: tb-run %s --function row_sums --random-inputs 7 > %t.compiled
// RUN: tb-run --interpret %s --function row_sums --random-inputs 7 | diff %t.compiled -
// RUN: tb-opt --convert-affine-to-loop %s | FileCheck %s

// CHECK-LABEL: func.func @matmul(
// CHECK:         loop.for %{{.*}} = 0 to 16 {
// CHECK:           loop.for %{{.*}} = 0 to 12 {
// CHECK:             loop.store
// CHECK:             loop.for %{{.*}} = 0 to 8 {
// CHECK:               loop.load
// CHECK-NOT:     affine.
func.func @matmul(%A: memref<16x8xf32>, %B: memref<8x12xf32>) -> memref<16x12xf32> {
  %C = memref.alloc() : memref<16x12xf32>
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 12 {
      affine.store %zero, %C[%i, %j] : memref<16x12xf32>
      affine.for %k = 0 to 8 {
        %a = affine.load %A[%i, %k] : memref<16x8xf32>
        %b = affine.load %B[%k, %j] : memref<8x12xf32>
        %c = affine.load %C[%i, %j] : memref<16x12xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<16x12xf32>
      }
    }
  }
  return %C : memref<16x12xf32>
}

// Tiles of 4 with a `min` upper bound, subscripts with negation, and affine.apply.
// CHECK-LABEL: func.func @tiled_reverse(
// CHECK:         loop.for %[[T:.*]] = 0 to 10 step 4 {
// CHECK:           loop.for %{{.*}} = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
func.func @tiled_reverse(%A: memref<10xf32>) -> memref<10xf32> {
  %B = memref.alloc() : memref<10xf32>
  affine.for %t = 0 to 10 step 4 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to min affine_map<(d0) -> (d0 + 4, 10)>(%t) {
      %x = affine.load %A[%i] : memref<10xf32>
      %y = arith.addf %x, %x : f32
      %r = affine.apply affine_map<(d0) -> (9 - d0)>(%i)
      %m = affine.max affine_map<(d0) -> (d0 mod 3, d0 floordiv 2)>(%r)
      %z = arith.index_cast %m : index to i32
      %f = arith.sitofp %z : i32 to f32
      %w = arith.addf %y, %f : f32
      affine.store %w, %B[9 - %i] : memref<10xf32>
    }
  }
  return %B : memref<10xf32>
}

// Loop-carried values and affine.parallel.
// CHECK-LABEL: func.func @row_sums(
// CHECK:         loop.parallel
// CHECK:           loop.for %{{.*}} = 0 to 6 iter_args
func.func @row_sums(%A: memref<5x6xf32>) -> memref<5xf32> {
  %S = memref.alloc() : memref<5xf32>
  %zero = arith.constant 0.0 : f32
  affine.parallel (%i) = (0) to (5) {
    %sum = affine.for %j = 0 to 6 iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %A[%i, %j] : memref<5x6xf32>
      %next = arith.addf %acc, %x : f32
      affine.yield %next : f32
    }
    affine.store %sum, %S[%i] : memref<5xf32>
  }
  return %S : memref<5xf32>
}
