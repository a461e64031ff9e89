// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse{contract-buffers=false})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Each case shows one kind of sibling-nest fusion: the nests' outermost loops agree and
// no dependence between them crosses iterations of that loop. (Buffer contraction, which
// would shrink the buffers these fused nests keep apart, has its own file:
// loop-fuse-contract.mlir.)

// STATS: LoopFuse
// STATS: nests-before
// STATS: num-fused

// A row statistic and the pass that uses it: each row's sum is made and used in the same
// iteration, so the two stages become one kernel, and the buffer that carried the sum
// from one stage to the next gives way to the sum itself.
// CHECK-LABEL: func.func @row_stages
// CHECK-NOT: memref<8xf32>
// CHECK: loop.for %[[I:.*]] = 0 to 8 {
// CHECK: %[[SUM:.*]] = loop.for %{{.*}} = 0 to 16 iter_args
// CHECK: loop.for %{{.*}} = 0 to 16 vectorize = 8 {
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK-NOT: loop.for %{{.*}} = 0 to 8
// CHECK-NOT: memref<8xf32>
// CHECK: return
func.func @row_stages(%x: memref<8x16xf32>) -> memref<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %sums = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %s = loop.for %j = 0 to 16 iter_args(%acc = %zero) -> (f32) vectorize = 8 {
      %v = loop.load %x[%i, %j] : memref<8x16xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %sums[%i] : memref<8xf32>
  }
  %y = loop.alloc() : memref<8x16xf32>
  loop.for %i = 0 to 8 {
    loop.for %j = 0 to 16 vectorize = 8 {
      %v = loop.load %x[%i, %j] : memref<8x16xf32>
      %s = loop.load %sums[%i] : memref<8xf32>
      %d = arith.divf %v, %s : f32
      loop.store %d, %y[%i, %j] : memref<8x16xf32>
    }
  }
  loop.dealloc %sums : memref<8xf32>
  return %y : memref<8x16xf32>
}

// -----

// A prefetch is only a hint: it neither reads what the program sees nor writes, so a nest
// that prefetches (a kernel reading its next weights ahead) fuses as any other.
// CHECK-LABEL: func.func @prefetching_stage
// CHECK: loop.for %[[I:.*]] = 0 to 8 {
// CHECK: memref.prefetch
// CHECK: arith.divf
// CHECK-NOT: loop.for %{{.*}} = 0 to 8
// CHECK: return
func.func @prefetching_stage(%x: memref<8x16xf32>, %w: memref<16x16xf32>) -> memref<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %sums = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    memref.prefetch %w[%i, %c0], read, locality<2>, data : memref<16x16xf32>
    %s = loop.for %j = 0 to 16 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %x[%i, %j] : memref<8x16xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %sums[%i] : memref<8xf32>
  }
  %y = loop.alloc() : memref<8x16xf32>
  loop.for %i = 0 to 8 {
    loop.for %j = 0 to 16 {
      %v = loop.load %x[%i, %j] : memref<8x16xf32>
      %s = loop.load %sums[%i] : memref<8xf32>
      %d = arith.divf %v, %s : f32
      loop.store %d, %y[%i, %j] : memref<8x16xf32>
    }
  }
  loop.dealloc %sums : memref<8xf32>
  return %y : memref<8x16xf32>
}

// -----

// Chunks of a parallel loop: iteration %i touches rows %i to %i + 3 of both buffers, and
// no other iteration does, so the fused loop stays parallel.
// CHECK-LABEL: func.func @parallel_chunks
// CHECK: loop.parallel
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @parallel_chunks(%x: memref<16x8xf32>) -> memref<16x8xf32> {
  %t = loop.alloc() : memref<16x8xf32>
  loop.parallel (%i) = (0) to (16) step (4) {
    loop.for %r = 0 to 4 {
      loop.for %j = 0 to 8 {
        %v = loop.load %x[(d0, d1, d2) -> (d0 + d1, d2)](%i, %r, %j) : memref<16x8xf32>
        %w = arith.mulf %v, %v : f32
        loop.store %w, %t[(d0, d1, d2) -> (d0 + d1, d2)](%i, %r, %j) : memref<16x8xf32>
      }
    }
  }
  %y = loop.alloc() : memref<16x8xf32>
  loop.parallel (%i) = (0) to (16) step (4) {
    loop.for %r = 0 to 4 {
      loop.for %j = 0 to 8 {
        %v = loop.load %t[(d0, d1, d2) -> (d0 + d1, d2)](%i, %r, %j) : memref<16x8xf32>
        %w = arith.addf %v, %v : f32
        loop.store %w, %y[(d0, d1, d2) -> (d0 + d1, d2)](%i, %r, %j) : memref<16x8xf32>
      }
    }
  }
  return %y : memref<16x8xf32>
}

// -----

// Independent nests that read the same input (the bias adds of several projections):
// one kernel writes all three results.
// CHECK-LABEL: func.func @independent_nests
// CHECK: loop.for %{{.*}} = 0 to 4 {
// CHECK-COUNT-3: loop.for %{{.*}} = 0 to 8 {
// CHECK-NOT: loop.for %{{.*}} = 0 to 4 {
// CHECK: return
func.func @independent_nests(%x: memref<4x24xf32>) -> (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) {
  %q = loop.alloc() : memref<4x8xf32>
  %k = loop.alloc() : memref<4x8xf32>
  %v = loop.alloc() : memref<4x8xf32>
  loop.for %h = 0 to 4 {
    loop.for %d = 0 to 8 {
      %a = loop.load %x[(d0, d1) -> (d0, d1)](%h, %d) : memref<4x24xf32>
      loop.store %a, %q[%h, %d] : memref<4x8xf32>
    }
  }
  loop.for %h = 0 to 4 {
    loop.for %d = 0 to 8 {
      %a = loop.load %x[(d0, d1) -> (d0, d1 + 8)](%h, %d) : memref<4x24xf32>
      loop.store %a, %k[%h, %d] : memref<4x8xf32>
    }
  }
  loop.for %h = 0 to 4 {
    loop.for %d = 0 to 8 {
      %a = loop.load %x[(d0, d1) -> (d0, d1 + 16)](%h, %d) : memref<4x24xf32>
      loop.store %a, %v[%h, %d] : memref<4x8xf32>
    }
  }
  return %q, %k, %v : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>
}

// -----

// A buffer freed between the nests is freed after the fused nest instead (it holds two
// values per row, so it stays a buffer).
// CHECK-LABEL: func.func @dealloc_moves_after
// CHECK: %[[T:.*]] = loop.alloc() : memref<8x2xf32>
// CHECK: loop.for
// CHECK: loop.load %[[T]]
// CHECK: }
// CHECK-NEXT: loop.dealloc %[[T]]
// CHECK-NEXT: return
func.func @dealloc_moves_after(%x: memref<8xf32>) -> memref<8xf32> {
  %t = loop.alloc() : memref<8x2xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %v : f32
    loop.store %v, %t[(d0) -> (d0, 0)](%i) : memref<8x2xf32>
    loop.store %w, %t[(d0) -> (d0, 1)](%i) : memref<8x2xf32>
  }
  %u = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %a = loop.load %t[(d0) -> (d0, 0)](%i) : memref<8x2xf32>
    %b = loop.load %t[(d0) -> (d0, 1)](%i) : memref<8x2xf32>
    %s = arith.addf %a, %b : f32
    loop.store %s, %u[%i] : memref<8xf32>
  }
  loop.dealloc %t : memref<8x2xf32>
  %y = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %u[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %y[%i] : memref<8xf32>
  }
  return %y : memref<8xf32>
}

// -----

// Two vectorized innermost loops stay vectorized; a short vectorized loop fused beside
// an inner loop runs unvectorized.
// CHECK-LABEL: func.func @vectorized_alike
// CHECK: loop.for %{{.*}} = 0 to 64 vectorize = 16 {
// CHECK-NOT: loop.for
// CHECK: return
func.func @vectorized_alike(%x: memref<64xf32>) -> memref<64xf32> {
  %t = loop.alloc() : memref<64xf32>
  loop.for %i = 0 to 64 vectorize = 16 {
    %v = loop.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    loop.store %w, %t[%i] : memref<64xf32>
  }
  %y = loop.alloc() : memref<64xf32>
  loop.for %i = 0 to 64 vectorize = 16 {
    %v = loop.load %t[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %y[%i] : memref<64xf32>
  }
  return %y : memref<64xf32>
}

// CHECK-LABEL: func.func @devectorized_short_loop
// CHECK: loop.for %{{.*}} = 0 to 8 {
// CHECK: loop.for %{{.*}} = 0 to 16 iter_args
// CHECK: math.sqrt
// CHECK: return
func.func @devectorized_short_loop(%x: memref<8x16xf32>) -> memref<8xf32> {
  %zero = arith.constant 0.0 : f32
  %sums = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %s = loop.for %j = 0 to 16 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %x[%i, %j] : memref<8x16xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %sums[%i] : memref<8xf32>
  }
  %y = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 vectorize = 8 {
    %s = loop.load %sums[%i] : memref<8xf32>
    %r = math.sqrt %s : f32
    loop.store %r, %y[%i] : memref<8xf32>
  }
  loop.dealloc %sums : memref<8xf32>
  return %y : memref<8xf32>
}

// -----

// A buffer read in the next iteration keeps its memory: only a value stored and read
// back in the same iteration is forwarded.
// CHECK-LABEL: func.func @carried_across_iterations
// CHECK: %[[PREV:.*]] = loop.alloc() : memref<1xf32>
// CHECK: loop.load %[[PREV]]
// CHECK: loop.store %{{.*}}, %[[PREV]]
func.func @carried_across_iterations(%x: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %prev = loop.alloc() : memref<1xf32>
  %y = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %y[%i] : memref<8xf32>
  }
  loop.for %i = 0 to 8 {
    %p = loop.load %prev[%c0] : memref<1xf32>
    %v = loop.load %y[%i] : memref<8xf32>
    %s = arith.addf %p, %v : f32
    loop.store %s, %prev[%c0] : memref<1xf32>
    loop.store %s, %y[%i] : memref<8xf32>
  }
  loop.dealloc %prev : memref<1xf32>
  return %y : memref<8xf32>
}
