// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tb-opt %s --split-input-file --loop-fuse | FileCheck %s

// Each case keeps two neighbouring nests apart; the remark at the later nest says why.

// Iteration %i of the second nest reads what iteration %i + 1 of the first writes.
// REMARK: loop-fuse-refusals.mlir:[[@LINE+11]]:3: remark: loop nest not fused with the nest before it: a buffer of type memref<9xf32> is written by one nest and accessed by the other at elements the outer loop does not keep apart
// REMARK: loop-fuse-refusals.mlir:[[@LINE+5]]:3: note: the nest before it
// CHECK-LABEL: func.func @reads_the_next_iteration
// CHECK-COUNT-2: loop.for %{{.*}} = 0 to 8 {
func.func @reads_the_next_iteration(%x: memref<9xf32>) -> memref<8xf32> {
  %t = loop.alloc() : memref<9xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<9xf32>
    loop.store %v, %t[%i] : memref<9xf32>
  }
  %y = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %t[(d0) -> (d0 + 1)](%i) : memref<9xf32>
    loop.store %v, %y[%i] : memref<8xf32>
  }
  return %y : memref<8xf32>
}

// -----

// Function arguments may share memory: a nest that writes one is not fused with a nest
// that reads another.
// REMARK: loop-fuse-refusals.mlir:[[@LINE+9]]:3: remark: loop nest not fused with the nest before it: the nests access memrefs that may alias (function arguments, or memrefs of unknown origin) through different values, and one of them writes
// CHECK-LABEL: func.func @output_argument
// CHECK-COUNT-2: loop.for %{{.*}} = 0 to 8 {
func.func @output_argument(%x: memref<8xf32>, %y: memref<8xf32>) {
  %t = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %t[%i] : memref<8xf32>
  }
  loop.for %i = 0 to 8 {
    %v = loop.load %t[%i] : memref<8xf32>
    loop.store %v, %y[%i] : memref<8xf32>
  }
  return
}

// -----

// A threaded loop and a sequential one.
// REMARK: loop-fuse-refusals.mlir:[[@LINE+10]]:3: remark: loop nest not fused with the nest before it: the outermost loops differ: one runs on threads, the other does not
// CHECK-LABEL: func.func @threads_differ
// CHECK: loop.for %{{.*}} = 0 to 8 parallel {
// CHECK: loop.for %{{.*}} = 0 to 8 {
func.func @threads_differ(%x: memref<8xf32>) -> memref<8xf32> {
  %t = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 parallel {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %t[%i] : memref<8xf32>
  }
  loop.for %i = 0 to 8 {
    %v = loop.load %t[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %t[%i] : memref<8xf32>
  }
  return %t : memref<8xf32>
}

// -----

// Different trip counts.
// REMARK: loop-fuse-refusals.mlir:[[@LINE+10]]:3: remark: loop nest not fused with the nest before it: the outermost loops differ: different bounds
// CHECK-LABEL: func.func @bounds_differ
// CHECK: loop.for %{{.*}} = 0 to 8 {
// CHECK: loop.for %{{.*}} = 0 to 4 {
func.func @bounds_differ(%x: memref<8xf32>) -> memref<8xf32> {
  %t = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %t[%i] : memref<8xf32>
  }
  loop.for %i = 0 to 4 {
    %v = loop.load %t[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %t[%i] : memref<8xf32>
  }
  return %t : memref<8xf32>
}

// -----

// Fusing would run a long vectorized loop unvectorized beside an inner loop.
// REMARK: loop-fuse-refusals.mlir:[[@LINE+15]]:3: remark: loop nest not fused with the nest before it: fusing would drop the vectorization of a loop of 8192 iterations (max-devectorized-trips)
// CHECK-LABEL: func.func @long_vectorized_loop
// CHECK: loop.for %{{.*}} = 0 to 8192 {
// CHECK: loop.for %{{.*}} = 0 to 8192 vectorize = 16 {
func.func @long_vectorized_loop(%x: memref<8192x4xf32>) -> memref<8192xf32> {
  %zero = arith.constant 0.0 : f32
  %t = loop.alloc() : memref<8192xf32>
  loop.for %i = 0 to 8192 {
    %s = loop.for %j = 0 to 4 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %x[%i, %j] : memref<8192x4xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %t[%i] : memref<8192xf32>
  }
  loop.for %i = 0 to 8192 vectorize = 16 {
    %v = loop.load %t[%i] : memref<8192xf32>
    %w = math.sqrt %v : f32
    loop.store %w, %t[%i] : memref<8192xf32>
  }
  return %t : memref<8192xf32>
}

// -----

// An op with effects between the nests (here a store) keeps them apart; no remark, as
// they are not neighbours.
// REMARK-NOT: remark
// CHECK-LABEL: func.func @store_between
// CHECK-COUNT-2: loop.for %{{.*}} = 0 to 8 {
func.func @store_between(%x: memref<8xf32>, %f: f32) -> memref<8xf32> {
  %t = loop.alloc() : memref<8xf32>
  %c0 = arith.constant 0 : index
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %t[%i] : memref<8xf32>
  }
  loop.store %f, %t[%c0] : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %t[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %t[%i] : memref<8xf32>
  }
  return %t : memref<8xf32>
}
