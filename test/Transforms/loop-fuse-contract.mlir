// RUN: tb-opt %s --split-input-file --loop-fuse | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse{contract-buffers=false})' | FileCheck %s --check-prefix=OFF
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse)' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Buffer contraction: a buffer that a fused nest keeps apart by its outer loop (no
// element touched by two iterations, none read after the nest) becomes one small buffer
// per outer iteration, on the stack of the thread running it.

// STATS: LoopFuse
// STATS: buffers-contracted

// A convolution-like tile: each iteration of the parallel loop over (channel block,
// row) writes 4 channels of one row of the channels-last scratch buffer, then reads them
// back transposed. The scratch buffer shrinks from 2x3x8 to the 1x3x4 tile, indexed by
// what is left of each index once the outer variables are taken out.
// CHECK-LABEL: func.func @tile_per_iteration
// CHECK-NOT:   loop.alloc() : memref<2x3x8xf32>
// CHECK:       loop.parallel (%[[B:.*]], %[[R:.*]]) = (0, 0) to (8, 2) step (4, 1) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x3x4xf32>
// CHECK:           loop.vector_store %{{.*}}, %[[T]][(d0, d1, d2) -> (0, d1, 0)](%[[R]], %{{.*}}, %[[B]]) : memref<1x3x4xf32>, vector<4xf32>
// CHECK:           loop.load %[[T]][(d0, d1, d2, d3) -> (0, d1, d3)](%[[R]], %{{.*}}, %[[B]], %{{.*}}) : memref<1x3x4xf32>
// CHECK-NOT:   loop.dealloc
// CHECK:       return
// OFF-LABEL: func.func @tile_per_iteration
// OFF:         loop.alloc() : memref<2x3x8xf32>
func.func @tile_per_iteration(%x: memref<2x3x8xf32>) -> memref<8x2x3xf32> {
  %s = loop.alloc() : memref<2x3x8xf32>
  loop.parallel (%b, %r) = (0, 0) to (8, 2) step (4, 1) {
    loop.for %p = 0 to 3 {
      %v = loop.vector_load %x[%r, %p, %b] : memref<2x3x8xf32>, vector<4xf32>
      %w = arith.addf %v, %v : vector<4xf32>
      loop.vector_store %w, %s[%r, %p, %b] : memref<2x3x8xf32>, vector<4xf32>
    }
  }
  %y = loop.alloc() : memref<8x2x3xf32>
  loop.parallel (%b, %r) = (0, 0) to (8, 2) step (4, 1) {
    loop.for %j = 0 to 4 {
      loop.for %p = 0 to 3 {
        %v = loop.load %s[(d0, d1, d2, d3) -> (d0, d1, d2 + d3)](%r, %p, %b, %j) : memref<2x3x8xf32>
        loop.store %v, %y[(d0, d1, d2, d3) -> (d2 + d3, d0, d1)](%r, %p, %b, %j) : memref<8x2x3xf32>
      }
    }
  }
  loop.dealloc %s : memref<2x3x8xf32>
  return %y : memref<8x2x3xf32>
}

// -----

// A buffer that is read after the nest holds values the nest must keep: it stays whole.
// CHECK-LABEL: func.func @read_after_the_nest
// CHECK:       loop.alloc() : memref<4x2xf32>
// CHECK-NOT:   memref.alloca
func.func @read_after_the_nest(%x: memref<4x2xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %t = loop.alloc() : memref<4x2xf32>
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 2 {
      %v = loop.load %x[%i, %j] : memref<4x2xf32>
      loop.store %v, %t[%i, %j] : memref<4x2xf32>
    }
  }
  %first = loop.load %t[%c0, %c0] : memref<4x2xf32>
  loop.dealloc %t : memref<4x2xf32>
  return %first : f32
}

// -----

// Every iteration writes the same row of the buffer (its index does not move with the
// outer loop), so iterations share elements: it stays whole.
// CHECK-LABEL: func.func @shared_between_iterations
// CHECK:       loop.alloc() : memref<1x2xf32>
// CHECK-NOT:   memref.alloca
func.func @shared_between_iterations(%x: memref<4x2xf32>) -> memref<4x2xf32> {
  %c0 = arith.constant 0 : index
  %t = loop.alloc() : memref<1x2xf32>
  %y = loop.alloc() : memref<4x2xf32>
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 2 {
      %v = loop.load %x[%i, %j] : memref<4x2xf32>
      loop.store %v, %t[%c0, %j] : memref<1x2xf32>
    }
    loop.for %j = 0 to 2 {
      %v = loop.load %t[%c0, %j] : memref<1x2xf32>
      loop.store %v, %y[%i, %j] : memref<4x2xf32>
    }
  }
  loop.dealloc %t : memref<1x2xf32>
  return %y : memref<4x2xf32>
}

// -----

// A tile larger than 128 KiB stays a heap buffer: the tile would live on a thread's
// stack.
// CHECK-LABEL: func.func @tile_too_large
// CHECK:       loop.alloc() : memref<2x40000xf32>
// CHECK-NOT:   memref.alloca
func.func @tile_too_large(%x: memref<2x40000xf32>) -> memref<2x40000xf32> {
  %t = loop.alloc() : memref<2x40000xf32>
  %y = loop.alloc() : memref<2x40000xf32>
  loop.for %i = 0 to 2 {
    loop.for %j = 0 to 40000 {
      %v = loop.load %x[%i, %j] : memref<2x40000xf32>
      loop.store %v, %t[%i, %j] : memref<2x40000xf32>
    }
    loop.for %j = 0 to 40000 {
      %v = loop.load %t[%i, %j] : memref<2x40000xf32>
      loop.store %v, %y[%i, %j] : memref<2x40000xf32>
    }
  }
  loop.dealloc %t : memref<2x40000xf32>
  return %y : memref<2x40000xf32>
}
