// RUN: tb-opt %s --split-input-file --loop-fuse | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-fuse{max-inline-reads-per-element=0 contract-buffers=false})' | FileCheck %s --check-prefix=OFF

// Producer inlining: an elementwise nest that writes a whole buffer is computed where the
// next nest reads the buffer, its reads re-indexed through the reader's indices.

// The head merge after attention: a transposing copy with a division, read once per
// element by the packing loop of the next matrix multiplication. The packing loop reads
// the attention output directly and the intermediate buffer is gone.
// CHECK-LABEL: func.func @transpose_into_pack
// CHECK-NOT:   memref<4x16xf32>
// CHECK:       loop.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT:    loop.for %[[K:.*]] = 0 to 16 {
// CHECK-NEXT:      %[[X:.*]] = loop.load %arg0[(d0, d1) -> (d1 floordiv 8, d0, d1 mod 8)](%[[R]], %[[K]]) : memref<2x4x8xf32>
// CHECK-NEXT:      %[[S:.*]] = loop.load %arg1[(d0, d1) -> (d1 floordiv 8, d0)](%[[R]], %[[K]]) : memref<2x4xf32>
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT:      loop.store %[[Q]], %{{.*}}[(d0, d1) -> (d1, d0)](%[[R]], %[[K]]) : memref<16x4xf32>
// OFF-LABEL: func.func @transpose_into_pack
// OFF:         loop.alloc() : memref<4x16xf32>
func.func @transpose_into_pack(%att: memref<2x4x8xf32>, %sum: memref<2x4xf32>) -> memref<16x4xf32> {
  %merged = loop.alloc() : memref<4x16xf32>
  loop.for %r = 0 to 4 {
    loop.for %k = 0 to 16 {
      %x = loop.load %att[(d0, d1) -> (d1 floordiv 8, d0, d1 mod 8)](%r, %k) : memref<2x4x8xf32>
      %s = loop.load %sum[(d0, d1) -> (d1 floordiv 8, d0)](%r, %k) : memref<2x4xf32>
      %q = arith.divf %x, %s : f32
      loop.store %q, %merged[%r, %k] : memref<4x16xf32>
    }
  }
  %packed = loop.alloc() : memref<16x4xf32>
  loop.for %r = 0 to 4 {
    loop.for %k = 0 to 16 {
      %v = loop.load %merged[%r, %k] : memref<4x16xf32>
      loop.store %v, %packed[(d0, d1) -> (d1, d0)](%r, %k) : memref<16x4xf32>
    }
  }
  loop.dealloc %merged : memref<4x16xf32>
  return %packed : memref<16x4xf32>
}

// -----

// Chains collapse: the bias add is inlined into the activation, which is then inlined
// into the padded copy (each reads the one before once per element, at the element's
// index shifted by the padding). The buffer freed between the nests is freed after the
// reader.
// CHECK-LABEL: func.func @chain_into_padding
// CHECK:       %[[P:.*]] = loop.alloc() : memref<10xf32>
// CHECK-NEXT:  loop.for %[[I:.*]] = 1 to 9 {
// CHECK-NEXT:    %[[X:.*]] = loop.load %arg0[(d0) -> (d0 + -1)](%[[I]]) : memref<8xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.addf %[[X]], %arg1 : f32
// CHECK-NEXT:    %[[M:.*]] = arith.maximumf %[[B]], %{{.*}} : f32
// CHECK-NEXT:    loop.store %[[M]], %[[P]][%[[I]]] : memref<10xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  loop.dealloc %arg2 : memref<8xf32>
// CHECK-NEXT:  return %[[P]]
func.func @chain_into_padding(%x: memref<8xf32>, %bias: f32, %t: memref<8xf32>) -> memref<10xf32> {
  %zero = arith.constant 0.0 : f32
  %a = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    %b = arith.addf %v, %bias : f32
    loop.store %b, %a[%i] : memref<8xf32>
  }
  %r = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %a[%i] : memref<8xf32>
    %m = arith.maximumf %v, %zero : f32
    loop.store %m, %r[%i] : memref<8xf32>
  }
  loop.dealloc %a : memref<8xf32>
  %p = loop.alloc() : memref<10xf32>
  loop.for %i = 1 to 9 {
    %v = loop.load %r[(d0) -> (d0 - 1)](%i) : memref<8xf32>
    loop.store %v, %p[(d0) -> (d0)](%i) : memref<10xf32>
  }
  loop.dealloc %t : memref<8xf32>
  loop.dealloc %r : memref<8xf32>
  return %p : memref<10xf32>
}

// -----

// A reader that reads each element many times (a matrix-vector product reading the
// vector once per row) would recompute it every time: the producer stays.
// CHECK-LABEL: func.func @read_per_row
// CHECK:       loop.alloc() : memref<8xf32>
// REMARK: remark: loop nest not inlined into the nest that reads it: the reader reads the 8 elements 32 times (max-inline-reads-per-element=1)
// REMARK: note: the nest that reads it
func.func @read_per_row(%x: memref<8xf32>, %w: memref<4x8xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    %e = math.exp %v : f32
    loop.store %e, %a[%i] : memref<8xf32>
  }
  %y = loop.alloc() : memref<4xf32>
  loop.for %r = 0 to 4 {
    %s = loop.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %a[%k] : memref<8xf32>
      %c = loop.load %w[%r, %k] : memref<4x8xf32>
      %p = arith.mulf %v, %c : f32
      %n = arith.addf %acc, %p : f32
      loop.yield %n : f32
    }
    loop.store %s, %y[%r] : memref<4xf32>
  }
  loop.dealloc %a : memref<8xf32>
  return %y : memref<4xf32>
}

// -----

// A vectorized producer of a transcendental (GELU's erf) read by a loop that is not
// vectorized would compute the erf one element at a time: it stays. Its rows are then
// fused with the reader's, and the buffer shrinks to the row one iteration uses.
// CHECK-LABEL: func.func @vectorized_math
// CHECK:       loop.for %{{.*}} = 0 to 4 {
// CHECK-NEXT:    %[[ROW:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x16xf32>
// CHECK-NEXT:    loop.for %{{.*}} = 0 to 16 vectorize = 16 {
// CHECK:           math.erf
// CHECK:           loop.store %{{.*}}, %[[ROW]]
// CHECK:         loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:      loop.load %[[ROW]]
// REMARK: remark: loop nest not inlined into the nest that reads it: the vectorized producer computes a math function the reader would compute one element at a time
func.func @vectorized_math(%x: memref<4x16xf32>) -> memref<16x4xf32> {
  %g = loop.alloc() : memref<4x16xf32>
  loop.for %r = 0 to 4 {
    loop.for %k = 0 to 16 vectorize = 16 {
      %v = loop.load %x[%r, %k] : memref<4x16xf32>
      %e = math.erf %v : f32
      loop.store %e, %g[%r, %k] : memref<4x16xf32>
    }
  }
  %packed = loop.alloc() : memref<16x4xf32>
  loop.for %r = 0 to 4 {
    loop.for %k = 0 to 16 {
      %v = loop.load %g[%r, %k] : memref<4x16xf32>
      loop.store %v, %packed[(d0, d1) -> (d1, d0)](%r, %k) : memref<16x4xf32>
    }
  }
  loop.dealloc %g : memref<4x16xf32>
  return %packed : memref<16x4xf32>
}

// -----

// A channels-last to channels-first copy read along its rows by the next nest: inlined,
// the reader would step through the channels-last input by a whole pixel (8 channels)
// per element where it steps through the copy by one; the copy stays.
// CHECK-LABEL: func.func @across_cache_lines
// CHECK:       loop.alloc() : memref<8x16xf32>
// REMARK: remark: loop nest not inlined into the nest that reads it: the reader would read the producer's inputs across cache lines where it reads the buffer along them
func.func @across_cache_lines(%hwc: memref<16x8xf32>) -> memref<8x18xf32> {
  %zero = arith.constant 0.0 : f32
  %chw = loop.alloc() : memref<8x16xf32>
  loop.for %p = 0 to 16 {
    loop.for %c = 0 to 8 {
      %v = loop.load %hwc[%p, %c] : memref<16x8xf32>
      %m = arith.maximumf %v, %zero : f32
      loop.store %m, %chw[%c, %p] : memref<8x16xf32>
    }
  }
  %padded = loop.alloc() : memref<8x18xf32>
  loop.for %c = 0 to 8 {
    loop.for %p = 0 to 16 {
      %v = loop.load %chw[%c, %p] : memref<8x16xf32>
      loop.store %v, %padded[(d0, d1) -> (d0, d1 + 1)](%c, %p) : memref<8x18xf32>
    }
  }
  loop.dealloc %chw : memref<8x16xf32>
  return %padded : memref<8x18xf32>
}

// -----

// The reader overwrites the producer's input: computed in the reader, the producer would
// read values the reader has already changed. It stays.
// CHECK-LABEL: func.func @reader_writes_input
// CHECK:       loop.alloc() : memref<8xf32>
// REMARK: remark: loop nest not inlined into the nest that reads it: the reader writes a buffer the producer reads
func.func @reader_writes_input(%x: memref<8xf32>) {
  %a = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    loop.store %d, %a[%i] : memref<8xf32>
  }
  loop.for %i = 0 to 8 {
    %v = loop.load %a[(d0) -> (7 - d0)](%i) : memref<8xf32>
    loop.store %v, %x[%i] : memref<8xf32>
  }
  loop.dealloc %a : memref<8xf32>
  return
}

// -----

// A buffer written by two nests, half each: neither writes the whole buffer, so neither
// is inlined into the nest that reads it.
// CHECK-LABEL: func.func @halves
// CHECK:       loop.alloc() : memref<8xf32>
// CHECK:       loop.for %{{.*}} = 0 to 4 {
// CHECK:       loop.for %{{.*}} = 4 to 8 {
// CHECK:       loop.for %{{.*}} = 0 to 8 {
func.func @halves(%x: memref<8xf32>, %y: memref<8xf32>) -> memref<8xf32> {
  %a = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 4 {
    %v = loop.load %x[%i] : memref<8xf32>
    loop.store %v, %a[%i] : memref<8xf32>
  }
  loop.for %i = 4 to 8 {
    %v = loop.load %y[%i] : memref<8xf32>
    loop.store %v, %a[%i] : memref<8xf32>
  }
  %b = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %a[%i] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    loop.store %d, %b[%i] : memref<8xf32>
  }
  loop.dealloc %a : memref<8xf32>
  return %b : memref<8xf32>
}
