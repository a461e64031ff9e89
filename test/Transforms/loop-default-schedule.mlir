// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-default-schedule{cores=2 vector-bytes=32}))' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-default-schedule{cores=2 vector-bytes=32},loop-apply-schedule))' | FileCheck %s --check-prefix=APPLY

// A large elementwise nest: its outermost dimension on threads, its innermost vectorized
// by the 8 lanes of f32 in 32 bytes.
// CHECK-LABEL: func.func @large_elementwise
// CHECK:         loop.parallel {{.*}} attributes {loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}, parallel = [0], vector = 8>}
// APPLY-LABEL: func.func @large_elementwise
// APPLY:         loop.for %{{.*}} = 0 to 256 parallel {
// APPLY-NEXT:      loop.for %{{.*}} = 0 to 512 vectorize = 8 {
func.func @large_elementwise(%a: memref<256x512xf32>, %c: memref<256x512xf32>) {
  loop.parallel (%i, %j) = (0, 0) to (256, 512) {
    %x = loop.load %a[%i, %j] : memref<256x512xf32>
    %y = arith.negf %x : f32
    loop.store %y, %c[%i, %j] : memref<256x512xf32>
  }
  return
}

// -----

// A small nest does not pay for threads; 7 columns are not a whole vector.
// CHECK-LABEL: func.func @small_elementwise
// CHECK:         loop.parallel {{.*}} attributes {loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}>}
// APPLY-LABEL: func.func @small_elementwise
// APPLY-NOT:     parallel
// APPLY-NOT:     vectorize
func.func @small_elementwise(%a: memref<3x7xf32>, %c: memref<3x7xf32>) {
  loop.parallel (%i, %j) = (0, 0) to (3, 7) {
    %x = loop.load %a[%i, %j] : memref<3x7xf32>
    %y = arith.negf %x : f32
    loop.store %y, %c[%i, %j] : memref<3x7xf32>
  }
  return
}

// -----

// A dimension too short to share among the cores leaves threads to a longer one, moved
// outermost.
// CHECK-LABEL: func.func @short_outer_dimension
// CHECK:         loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}, order = [1, 0], parallel = [1]>
// APPLY-LABEL: func.func @short_outer_dimension
// APPLY:         loop.for %[[J:.*]] = 0 to 65536 parallel {
// APPLY-NEXT:      loop.for %[[I:.*]] = 0 to 3 {
func.func @short_outer_dimension(%a: memref<3x65536xf32>, %c: memref<3x65536xf32>) {
  loop.parallel (%i, %j) = (0, 0) to (3, 65536) {
    %x = loop.load %a[%i, %j] : memref<3x65536xf32>
    loop.store %x, %c[%i, %j] : memref<3x65536xf32>
  }
  return
}

// -----

// A reduction counts its iterations as work and stays innermost; its loads walk the rows
// with unit stride, so the reduction loop is vectorized (8 partial sums).
// CHECK-LABEL: func.func @row_sums
// CHECK:         loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}, parallel = [0], vector = 8>
// APPLY-LABEL: func.func @row_sums
// APPLY:         loop.for %{{.*}} = 0 to 512 parallel {
// APPLY-NEXT:      loop.for %{{.*}} = 0 to 256 iter_args({{.*}}) -> (f32) vectorize = 8 {
func.func @row_sums(%a: memref<512x256xf32>, %c: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i) = (0) to (512) {
    %s = loop.for %k = 0 to 256 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<512x256xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i] : memref<512xf32>
  }
  return
}

// -----

// Column sums: the reduction loop walks a column (stride 512), which vectorized would
// gather, so it stays scalar.
// CHECK-LABEL: func.func @column_sums
// CHECK:         loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}, parallel = [0]>
// APPLY-LABEL: func.func @column_sums
// APPLY-NOT:     vectorize
func.func @column_sums(%a: memref<256x512xf32>, %c: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.parallel (%j) = (0) to (512) {
    %s = loop.for %k = 0 to 256 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%k, %j] : memref<256x512xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%j] : memref<512xf32>
  }
  return
}

// -----

// A reduction shorter than a vector stays scalar.
// CHECK-LABEL: func.func @short_reduction
// CHECK:         loop.schedule = #loop.schedule<tiles = {{\[\[\], \[\]\]}}>
// APPLY-LABEL: func.func @short_reduction
// APPLY-NOT:     vectorize
func.func @short_reduction(%a: memref<64x4xf32>, %c: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i) = (0) to (64) {
    %s = loop.for %k = 0 to 4 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<64x4xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i] : memref<64xf32>
  }
  return
}

// -----

// A schedule already attached (by hand or by the tuner) is kept.
// CHECK-LABEL: func.func @kept
// CHECK:         loop.schedule = #loop.schedule<tiles = {{\[\[2\], \[\]\]}}>
// APPLY-LABEL: func.func @kept
// APPLY:         loop.for %{{.*}} = 0 to 4 step 2 {
func.func @kept(%a: memref<4x8xf32>, %c: memref<4x8xf32>) {
  loop.parallel (%i, %j) = (0, 0) to (4, 8) attributes {loop.schedule = #loop.schedule<tiles = [[2], []]>} {
    %x = loop.load %a[%i, %j] : memref<4x8xf32>
    loop.store %x, %c[%i, %j] : memref<4x8xf32>
  }
  return
}
