// RUN: tb-opt %s --pass-pipeline='builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-conv-microkernel{vector=4 threads=0})' | FileCheck %s
// RUN: tb-opt %s --pass-pipeline='builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-conv-microkernel{vector=4 threads=0 winograd=false})' | FileCheck %s --check-prefix=DIRECT

// A 3x3 unit-stride convolution with constant weights runs as Winograd's F(2x2, 3x3):
// the weights are transformed at compile time (U = G g G^T) into the product's panels
// U[16][M / NR][C][NR]; the padded input is copied channels-last (Xp[8][8][C]: 3x3 tiles
// of 2x2 outputs read 8x8 padded inputs) with the channels innermost in every piece (the
// border rows whole, then each input row's left border, columns and right border), each
// tile's 4x4 window is transformed into
// V[16][T][C] a vector of channels at a time (16 loads, 16 stores; B^T only adds and
// subtracts); the 16 products M[p] = V[p] U[p] carry MR x NR accumulators through the
// channel loop (9 tiles: a block of 8 and one overlapping it), the last block also
// prefetching the next channel block's panel of U; each tile's 16 products
// are transformed (A^T M A) into its 2x2 outputs, channels-last (Ot[6][6][M]), and the
// bias and relu are computed where the result is written. The transforms' channel loops
// stay rolled (`unroll = 1`): their bodies are already long, and unrolling them only costs
// LLVM time.
// With all weights 1, U's first position is 1 (G's first row picks g[0][0]) and its
// second 1.5 (the sum of G's second row, 1/2 + 1/2 + 1/2).
// CHECK:         memref.global "private" constant @__constant_32x16x3x3xf32_packed : memref<16x8x16x4xf32>
// CHECK-NEXT:    memref.global "private" constant @__constant_32x16x3x3xf32_packed_0 : memref<36x8x16x4xf32>
// CHECK-LABEL: func.func @winograd
// CHECK:         %[[U:.*]] = memref.get_global @__constant_32x16x3x3xf32_packed : memref<16x8x16x4xf32>
// CHECK:         %[[XP:.*]] = loop.alloc() : memref<8x8x16xf32>
// CHECK:         loop.for %{{.*}} = 0 to 1 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:          loop.store %[[PAD:.*]], %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:         loop.for %{{.*}} = 7 to 8 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:          loop.store %[[PAD]], %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:         loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:          loop.store %[[PAD]], %[[XP]][(d0, d1, d2) -> (d0 + 1, d1, d2)]
// CHECK:           loop.for %{{.*}} = 1 to 7 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:          %[[X:.*]] = loop.load %arg0[(d0, d1, d2) -> (0, d2, d0, d1 + -1)]
// CHECK-NEXT:          loop.store %[[X]], %[[XP]][(d0, d1, d2) -> (d0 + 1, d1, d2)]
// CHECK:           loop.for %{{.*}} = 7 to 8 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:          loop.store %[[PAD]], %[[XP]][(d0, d1, d2) -> (d0 + 1, d1, d2)]
// CHECK:         %[[V:.*]] = loop.alloc() : memref<16x9x16xf32>
// CHECK:         loop.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 step 4 unroll = 1 {
// CHECK-NEXT:          loop.vector_load %[[XP]][(d0, d1, d2) -> (d0 * 2, d1 * 2, d2)]
// CHECK-COUNT-15:      loop.vector_load %[[XP]]
// CHECK:               arith.subf
// CHECK:               loop.vector_store %{{.*}}, %[[V]][(d0, d1, d2) -> (0, d0 * 3 + d1, d2)]
// CHECK-COUNT-15:      loop.vector_store %{{.*}}, %[[V]]
// CHECK:         %[[M:.*]] = loop.alloc() : memref<16x9x32xf32>
// CHECK:         loop.for %{{.*}} = 0 to 16 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 32 step 4 {
// CHECK:             %[[NEXT:.*]] = arith.minsi
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 8 step 8 {
// CHECK:               loop.for %{{.*}} = 0 to 16 iter_args(
// CHECK-NEXT:            loop.vector_load %[[U]][(d0, d1, d2) -> (d0, d1 floordiv 4, d2, 0)]
// CHECK-NEXT:            loop.load %[[V]]
// CHECK-NEXT:            loop.broadcast
// CHECK-NEXT:            loop.fma
// CHECK-COUNT-8:       loop.vector_store %{{.*}}, %[[M]]
// CHECK:             loop.for %{{.*}} = 1 to 2 step 8 {
// CHECK:                 loop.vector_load %[[U]]
// CHECK-NEXT:            arith.constant 0 : index
// CHECK-NEXT:            memref.prefetch %[[U]][%{{.*}}, %[[NEXT]], %{{.*}}, %{{.*}}], read, locality<2>, data : memref<16x8x16x4xf32>
// CHECK:         %[[OT:.*]] = loop.alloc() : memref<6x6x32xf32>
// CHECK:         loop.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 32 step 4 unroll = 1 {
// CHECK-COUNT-16:      loop.vector_load %[[M]]
// CHECK:               loop.vector_store %{{.*}}, %[[OT]][(d0, d1, d2) -> (d0 * 2, d1 * 2, d2)]
// CHECK:               loop.vector_store %{{.*}}, %[[OT]][(d0, d1, d2) -> (d0 * 2, d1 * 2 + 1, d2)]
// CHECK:               loop.vector_store %{{.*}}, %[[OT]][(d0, d1, d2) -> (d0 * 2 + 1, d1 * 2, d2)]
// CHECK:               loop.vector_store %{{.*}}, %[[OT]][(d0, d1, d2) -> (d0 * 2 + 1, d1 * 2 + 1, d2)]
// CHECK:         %[[Y:.*]] = loop.alloc() : memref<1x32x6x6xf32>
// CHECK:         loop.load %[[OT]]
// CHECK:         arith.select
// CHECK-NEXT:    loop.store %{{.*}}, %[[Y]]
// CHECK-DAG:     loop.dealloc %[[XP]]
// CHECK-DAG:     loop.dealloc %[[V]]
// CHECK-DAG:     loop.dealloc %[[M]]
// CHECK-DAG:     loop.dealloc %[[OT]]
// When the input is a buffer of the function that its producer writes element by element
// (here the first convolution's relu epilogue), the producer writes straight into the
// second convolution's channels-last copy: the input becomes a view of the copy's
// interior (strides [C * Hp * Wp, 1, Wp * C, C]), only the border is set before the
// kernel, and the producer's loops over a block's channels and a row's columns are
// swapped, so its consecutive stores are consecutive channels.
// CHECK-LABEL: func.func @in_place
// CHECK:         %[[IN:.*]] = memref.reinterpret_cast %[[XP2:.*]] to offset: [288], sizes: [1, 32, 6, 6], strides: [2048, 1, 256, 32] : memref<8x8x32xf32> to
// CHECK:         loop.for %[[CB:.*]] = 0 to 32 step 4 {
// CHECK-NEXT:      loop.for %[[ROW:.*]] = 0 to 6 {
// CHECK-NEXT:        loop.for %[[COL:.*]] = 0 to 6 {
// CHECK-NEXT:          loop.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:            %[[CH:.*]] = arith.addi %[[CB]], %[[J]]
// CHECK:                 arith.select
// CHECK-NEXT:            loop.store %{{.*}}, %[[IN]][%{{.*}}, %[[CH]], %[[ROW]], %[[COL]]]
// CHECK-NOT:     loop.load %[[IN]]
// CHECK:         loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 32 {
// CHECK-NEXT:          loop.store %{{.*}}, %[[XP2]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.for %{{.*}} = 7 to 8 {
// CHECK-NOT:     loop.load %[[IN]]
// CHECK:         loop.vector_load %[[XP2]]
// CHECK:         loop.dealloc %[[XP2]] : memref<8x8x32xf32>
// CHECK:         return
// An output of at least 32 tiles of 4x4 (here 24x24: 36) runs as F(4x4, 3x3): the
// weights become U[36][M / NR][C][NR] (all weights 1: U's first position is 1/16, G's
// first row being [1/4, 0, 0]); the padded copy covers the 6x6 tiles' 6x6 windows
// (Xp[26][26][C]); each window's 36 vectors are transformed into V[36][T][C] with the
// coefficients of B^T beyond 1 as splats in FMAs; the 36 products M[p] = V[p] U[p]; and
// each tile's 36 products are transformed (A^T M A) into its 4x4 outputs.
// CHECK-LABEL: func.func @f4
// CHECK:         %[[U4:.*]] = memref.get_global @__constant_32x16x3x3xf32_packed_0 : memref<36x8x16x4xf32>
// CHECK:         %[[XP4:.*]] = loop.alloc() : memref<26x26x16xf32>
// CHECK:         %[[V4:.*]] = loop.alloc() : memref<36x36x16xf32>
// CHECK:         loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 16 step 4 unroll = 1 {
// CHECK-NEXT:          loop.vector_load %[[XP4]][(d0, d1, d2) -> (d0 * 4, d1 * 4, d2)]
// CHECK-COUNT-34:      loop.vector_load %[[XP4]]
// CHECK-NEXT:          loop.vector_load %[[XP4]][(d0, d1, d2) -> (d0 * 4 + 5, d1 * 4 + 5, d2)]
// CHECK:               %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:          %[[FOURS:.*]] = loop.broadcast %[[FOUR]] : f32 to vector<4xf32>
// CHECK-NEXT:          loop.fma %[[FOURS]]
// CHECK:               loop.vector_store %{{.*}}, %[[V4]][(d0, d1, d2) -> (0, d0 * 6 + d1, d2)]
// CHECK-COUNT-35:      loop.vector_store %{{.*}}, %[[V4]]
// CHECK:         %[[M4:.*]] = loop.alloc() : memref<36x36x32xf32>
// CHECK:         loop.for %{{.*}} = 0 to 36 {
// CHECK:               loop.vector_load %[[U4]]
// CHECK:         %[[OT4:.*]] = loop.alloc() : memref<24x24x32xf32>
// CHECK:         loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 32 step 4 unroll = 1 {
// CHECK-COUNT-36:      loop.vector_load %[[M4]]
// CHECK:               loop.vector_store %{{.*}}, %[[OT4]][(d0, d1, d2) -> (d0 * 4, d1 * 4, d2)]
// CHECK-COUNT-14:      loop.vector_store %{{.*}}, %[[OT4]]
// CHECK-NEXT:          loop.vector_store %{{.*}}, %[[OT4]][(d0, d1, d2) -> (d0 * 4 + 3, d1 * 4 + 3, d2)]
// A large image keeps the direct kernel: with F(4x4, 3x3) (its 88 x 88 tiles are more
// than 32), V[36][T][C] and M[36][T][M] would take 36 * 88 * 88 tiles * (64 + 64)
// channels * 4 bytes = 136 MiB, past the 128 MiB (`MAX_SCRATCH_BYTES`).
// CHECK-LABEL: func.func @large
// CHECK-NOT:     arith.subf
// CHECK:         loop.fma
// CHECK-NOT:     arith.subf
// CHECK:         __constant_32x16x3x3xf32_packed: "0x04000000{{(0000803F)+}}0000C03F
// CHECK-NEXT:    __constant_32x16x3x3xf32_packed_0: "0x04000000{{(0000803D)+}}
// Without the option, the direct kernel: no transform.
// DIRECT-LABEL: func.func @winograd
// DIRECT-NOT:   arith.subf
// DIRECT:       loop.fma
// DIRECT-NOT:   arith.subf
func.func @winograd(%x: tensor<1x16x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = graph.constant dense<1.000000e+00> : tensor<32x16x3x3xf32>
  %b = graph.constant dense<5.000000e-01> : tensor<32xf32>
  %y = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x6x6xf32>
  %r = graph.relu %y : tensor<1x32x6x6xf32>
  return %r : tensor<1x32x6x6xf32>
}

func.func @in_place(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = graph.constant dense<1.000000e+00> : tensor<32x32x3x3xf32>
  %y = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x6x6xf32>
  %r = graph.relu %y : tensor<1x32x6x6xf32>
  %z = graph.conv %r, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x6x6xf32>
  return %z : tensor<1x32x6x6xf32>
}

func.func @f4(%x: tensor<1x16x24x24xf32>) -> tensor<1x32x24x24xf32> {
  %w = graph.constant dense<1.000000e+00> : tensor<32x16x3x3xf32>
  %y = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x24x24xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x24x24xf32>
  return %y : tensor<1x32x24x24xf32>
}

func.func @large(%x: tensor<1x64x352x352xf32>) -> tensor<1x64x352x352xf32> {
  %w = graph.constant dense<1.000000e+00> : tensor<64x64x3x3xf32>
  %y = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x352x352xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x352x352xf32>
  return %y : tensor<1x64x352x352xf32>
}
