// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=2 nr=8 kc=4 vector=4 pack-rhs=false})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=2 nr=8 kc=4 vector=4})' | FileCheck %s --check-prefix=PACKED

// A 5x6 times 6x10 matmul as convert-te-to-loop writes it: rows 0..4 and columns 0..8
// form whole 2x8 tiles; the last row gets a 1x8 register block and the last two columns
// keep the scalar nest.
// CHECK-LABEL: func.func @matmul
// CHECK:         loop.parallel (%[[IB:.*]]) = (0) to (4) step (2) {
// CHECK-NEXT:      %[[INIT:.*]] = loop.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT:      loop.for %[[JB:.*]] = 0 to 8 step 8 {
// CHECK-COUNT-4:     loop.vector_store %[[INIT]]
// CHECK:           loop.for %[[KB:.*]] = 0 to 6 step 4 {
// CHECK-NEXT:        loop.for %[[JB2:.*]] = 0 to 8 step 8 {
// CHECK-COUNT-4:       loop.vector_load %{{.*}} : memref<5x10xf32>, vector<4xf32>
// CHECK:               loop.for %[[K:.*]] = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-COUNT-2:         loop.broadcast
// CHECK-COUNT-2:         loop.vector_load %{{.*}} : memref<6x10xf32>, vector<4xf32>
// CHECK-COUNT-4:         loop.fma
// CHECK:                 loop.yield
// CHECK-COUNT-4:       loop.vector_store
// CHECK:         loop.parallel (%{{.*}}) = (4) to (5) {
// CHECK:               loop.for %{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// CHECK-COUNT-2:         loop.fma
// CHECK-NOT:     arith.mulf
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (5, 10) {
// CHECK:           arith.mulf
// With B packed: C's full tiles are filled, then each 4-row slice of B's first 8 columns
// is copied into 8-column panels, and the slice of A's full row blocks into 2-row panels,
// which the row blocks read contiguously; the leftover row gets a 1x8 register block
// reading A where it lies, and only the leftover columns keep the scalar nest.
// PACKED-LABEL: func.func @matmul
// PACKED:         %[[PANELS:.*]] = loop.alloc() : memref<1x4x8xf32>
// PACKED-NEXT:    %[[APANELS:.*]] = loop.alloc() : memref<2x4x2xf32>
// PACKED:         loop.parallel (%{{.*}}) = (0) to (4) step (2) {
// PACKED-COUNT-4:   loop.vector_store
// PACKED:         loop.for %[[KB:.*]] = 0 to 6 step 4 {
// PACKED-NEXT:      loop.parallel (%[[JP:.*]]) = (0) to (8) step (8) {
// PACKED-NEXT:        loop.for %[[KP:.*]] = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) {
// PACKED-NEXT:          %[[V:.*]] = loop.vector_load %{{.*}} : memref<6x10xf32>, vector<4xf32>
// PACKED-NEXT:          loop.vector_store %[[V]], %[[PANELS]][(d0, d1, d2) -> (d0 floordiv 8, d1 - d2, 0)](%[[JP]], %[[KP]], %[[KB]]) : memref<1x4x8xf32>, vector<4xf32>
// PACKED:           loop.parallel (%[[IP:.*]]) = (0) to (4) step (2) {
// PACKED-NEXT:        loop.for %[[KA:.*]] = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) {
// PACKED-NEXT:          %[[A:.*]] = loop.load %{{.*}} : memref<5x6xf32>
// PACKED-NEXT:          loop.store %[[A]], %[[APANELS]][(d0, d1, d2) -> (d0 floordiv 2, d1 - d2, 0)](%[[IP]], %[[KA]], %[[KB]]) : memref<2x4x2xf32>
// PACKED:           loop.parallel (%[[IB:.*]]) = (0) to (4) step (2) {
// PACKED:               loop.for %{{.*}} = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) iter_args(
// PACKED-COUNT-2:         loop.load %[[APANELS]]
// PACKED-COUNT-2:         loop.vector_load %[[PANELS]]
// PACKED-COUNT-4:         loop.fma
// PACKED:           loop.parallel (%{{.*}}) = (4) to (5) {
// PACKED:               loop.for %{{.*}} = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// PACKED-NEXT:            loop.load %{{.*}} : memref<5x6xf32>
// PACKED:         loop.dealloc %[[APANELS]] : memref<2x4x2xf32>
// PACKED-NEXT:    loop.dealloc %[[PANELS]] : memref<1x4x8xf32>
// PACKED-NEXT:    loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (5, 10) {
func.func @matmul(%arg0: memref<5x6xf32>, %arg1: memref<6x10xf32>) -> memref<5x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x10xf32>
  loop.parallel (%i, %j) = (0, 0) to (5, 10) {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<5x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%i, %j, %k) : memref<6x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<5x10xf32>
  }
  return %0 : memref<5x10xf32>
}

// -----

// A nest whose second operand is read across columns (a transposed B) is not a
// unit-stride contraction: without packing it is left as it is; packed, B is gathered
// element by element into the 8-column panels, which the kernel reads as vectors.
// CHECK-LABEL: func.func @strided_rhs
// CHECK-NOT:     loop.fma
// PACKED-LABEL: func.func @strided_rhs
// PACKED:         %[[PANELS:.*]] = loop.alloc() : memref<2x4x8xf32>
// PACKED:         loop.for %[[KB:.*]] = 0 to 6 step 4 {
// PACKED-NEXT:      loop.parallel (%[[JP:.*]]) = (0) to (16) step (8) {
// PACKED-NEXT:        loop.for %[[KP:.*]] = #{{.*}}(%[[KB]]) to min #{{.*}}(%[[KB]]) {
// PACKED-NEXT:          %[[B0:.*]] = loop.load %arg1[(d0, d1, d2) -> (d1, d2)](%[[JP]], %[[JP]], %[[KP]]) : memref<16x6xf32>
// PACKED-NEXT:          loop.store %[[B0]], %[[PANELS]][(d0, d1, d2) -> (d0 floordiv 8, d1 - d2, 0)](%[[JP]], %[[KP]], %[[KB]]) : memref<2x4x8xf32>
// PACKED-NEXT:          %[[B1:.*]] = loop.load %arg1[(d0, d1, d2) -> (d1 + 1, d2)](%[[JP]], %[[JP]], %[[KP]]) : memref<16x6xf32>
// PACKED-NEXT:          loop.store %[[B1]], %[[PANELS]][(d0, d1, d2) -> (d0 floordiv 8, d1 - d2, 1)](%[[JP]], %[[KP]], %[[KB]]) : memref<2x4x8xf32>
// PACKED-COUNT-6:       loop.store
// PACKED:               loop.for %{{.*}} iter_args(
// PACKED-COUNT-2:         loop.vector_load %[[PANELS]]
// PACKED-COUNT-4:         loop.fma
// PACKED-NOT:     arith.mulf
func.func @strided_rhs(%arg0: memref<8x6xf32>, %arg1: memref<16x6xf32>) -> memref<8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<8x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (8, 16) {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<8x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d1, d2)](%i, %j, %k) : memref<16x6xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<8x16xf32>
  }
  return %0 : memref<8x16xf32>
}

// -----

// A unit batch dimension indexed by a constant (as convert-te-to-loop writes a
// 1x4x6 times 6x8 matmul): the constant is folded into the access maps and the nest is
// blocked like a 2-D matmul.
// CHECK-LABEL: func.func @unit_batch
// CHECK:         loop.parallel (%{{.*}}) = (0) to (4) step (2) {
// CHECK:           loop.vector_store %{{.*}}, %{{.*}}[(d0, d1) -> (0, d0, d1)]
// CHECK:               loop.broadcast
// CHECK:               loop.fma
// PACKED-LABEL: func.func @unit_batch
// PACKED:         loop.fma
func.func @unit_batch(%arg0: memref<1x4x6xf32>, %arg1: memref<6x8xf32>) -> memref<1x4x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x4x8xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 8) {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2, d3) -> (d0, d1, d3)](%c0, %i, %j, %k) : memref<1x4x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2, d3) -> (d3, d2)](%c0, %i, %j, %k) : memref<6x8xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%c0, %i, %j] : memref<1x4x8xf32>
  }
  return %0 : memref<1x4x8xf32>
}

// -----

// A batched matmul reading B transposed (attention's scores, Q K^T, per head): without
// packing it is left as it is; packed, B is gathered whole into per-batch 8-column
// panels, then the row blocks of every batch run on threads, the leftover row with a
// 1x8 register block.
// CHECK-LABEL: func.func @batched_transposed_rhs
// CHECK-NOT:     loop.fma
// PACKED-LABEL: func.func @batched_transposed_rhs
// PACKED:         %[[PANELS:.*]] = loop.alloc() : memref<2x2x6x8xf32>
// PACKED-NEXT:    loop.parallel (%[[B:.*]], %[[JP:.*]]) = (0, 0) to (2, 16) step (1, 8) {
// PACKED-NEXT:      loop.for %[[KP:.*]] = 0 to 6 {
// PACKED-NEXT:        %[[V:.*]] = loop.load %arg1[(d0, d1, d2, d3) -> (d0, d2, d3)](%[[B]], %[[JP]], %[[JP]], %[[KP]]) : memref<2x16x6xf32>
// PACKED-NEXT:        loop.store %[[V]], %[[PANELS]][(d0, d1, d2) -> (d0, d1 floordiv 8, d2, 0)](%[[B]], %[[JP]], %[[KP]]) : memref<2x2x6x8xf32>
// PACKED:         loop.parallel (%[[B2:.*]], %{{.*}}) = (0, 0) to (2, 4) step (1, 2) {
// PACKED:               loop.for %[[K:.*]] = #{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// PACKED:                 loop.vector_load %[[PANELS]][(d0, d1, d2) -> (d0, d1 floordiv 8, d2, 0)](%[[B2]], %{{.*}}, %[[K]])
// PACKED:                 loop.vector_load %[[PANELS]][(d0, d1, d2) -> (d0, d1 floordiv 8, d2, 4)](%[[B2]], %{{.*}}, %[[K]])
// PACKED-COUNT-4:         loop.fma
// PACKED:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 4) to (2, 5) {
// PACKED:               loop.for %{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>) {
// PACKED-COUNT-2:         loop.fma
// PACKED:         loop.dealloc %[[PANELS]] : memref<2x2x6x8xf32>
// PACKED-NOT:     arith.mulf
// PACKED:         return
func.func @batched_transposed_rhs(%arg0: memref<2x5x6xf32>, %arg1: memref<2x16x6xf32>) -> memref<2x5x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<2x5x16xf32>
  loop.parallel (%b, %i, %j) = (0, 0, 0) to (2, 5, 16) {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2, d3) -> (d0, d1, d3)](%b, %i, %j, %k) : memref<2x5x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2, d3) -> (d0, d2, d3)](%b, %i, %j, %k) : memref<2x16x6xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%b, %i, %j] : memref<2x5x16xf32>
  }
  return %0 : memref<2x5x16xf32>
}

// -----

// A reduction that fits one KC slice (here 4 = kc): with B packed the accumulators start
// from the initial value in registers, so C is not filled first and read back; the leftover
// columns keep the scalar nest.
// CHECK-LABEL: func.func @single_slice
// CHECK:         loop.fma
// PACKED-LABEL: func.func @single_slice
// PACKED-NOT:     loop.vector_store %{{.*}}, %{{.*}} : memref<4x10xf32>
// PACKED:         loop.for %{{.*}} = 0 to 4 step 4 {
// PACKED:           loop.parallel (%{{.*}}) = (0) to (4) step (2) {
// PACKED:             %[[INIT:.*]] = loop.broadcast %{{.*}} : f32 to vector<4xf32>
// PACKED-NOT:         loop.vector_load %{{.*}} : memref<4x10xf32>
// PACKED:             loop.for %{{.*}} iter_args(%{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]])
// PACKED:               loop.fma
// PACKED-COUNT-4:     loop.vector_store %{{.*}} : memref<4x10xf32>, vector<4xf32>
func.func @single_slice(%arg0: memref<4x4xf32>, %arg1: memref<4x10xf32>) -> memref<4x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<4x10xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 10) {
    %1 = loop.for %k = 0 to 4 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<4x4xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%i, %j, %k) : memref<4x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<4x10xf32>
  }
  return %0 : memref<4x10xf32>
}
