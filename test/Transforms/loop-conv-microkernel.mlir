// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{mr=4 nr=8 vector=4 rows=1 threads=0})' | FileCheck %s
// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{vector=4 rows=1 threads=0})' | FileCheck %s --check-prefix=POINTWISE
// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{mr=4 nr=8 vector=4 rows=2 threads=0})' | FileCheck %s --check-prefix=ROWS

// A convolution (one group) becomes a micro-kernel vectorized over output channels: the
// weights are packed into NR-channel panels, MR pixels x NR / W channel vectors of
// accumulators go through the c, kh, kw loops, the sums are stored channels-last and
// transposed into the result. An unpadded input is read where it lies. The packing copy
// stays rolled (`unroll = 1`): fully unrolled, it costs LLVM seconds and gains nothing.
// CHECK-LABEL: func.func @conv
// CHECK: %[[PANELS:.*]] = loop.alloc() : memref<1x2x3x3x8xf32>
// CHECK-NEXT: loop.for %{{.*}} = 0 to 1 unroll = 1 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 8 unroll = 1 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 2 unroll = 1 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 3 unroll = 1 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 3 unroll = 1 {
// CHECK: loop.store %{{.*}}, %[[PANELS]][(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4, d1)]
// CHECK: %[[STAGED:.*]] = loop.alloc() : memref<4x4x8xf32>
// CHECK: loop.for %{{.*}} = 0 to 4 step 4 {
// CHECK: loop.for %{{.*}} = 0 to 2 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-2: loop.vector_load %[[PANELS]]
// CHECK-NEXT: loop.load %arg0[(d0, d1, d2, d3, d4) -> (0, d4, d0 + d1, d2 + d3)]
// CHECK-NEXT: loop.broadcast
// CHECK-NEXT: loop.fma
// CHECK-NEXT: loop.fma
// CHECK-COUNT-8: loop.vector_store %{{.*}}, %[[STAGED]]
// CHECK: loop.load %[[STAGED]][(d0, d1, d2, d3) -> (d0, d1, d2 + d3)]
// CHECK-NEXT: loop.store %{{.*}}, %{{.*}}[(d0, d1, d2) -> (0, d0, d1, d2)]
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @conv(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) {
    %1 = loop.for %arg5 = 0 to 2 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 3 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 3 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x2x6x6xf32>
          %5 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<8x2x3x3xf32>
          %6 = arith.mulf %4, %5 : f32
          %7 = arith.addf %arg10, %6 : f32
          loop.yield %7 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x8x4x4xf32>
  }
  return %0 : memref<1x8x4x4xf32>
}

// A padded input is copied once into a buffer holding the padding, so the kernel reads
// it with no clamp and no select. Per channel, the border rows get the padding value;
// then each row where the input lies gets its left border, its input columns and its
// right border in one loop body: every element is written once.
// CHECK-LABEL: func.func @padded
// CHECK: %[[PADDED:.*]] = loop.alloc() : memref<2x6x6xf32>
// CHECK: loop.for %{{.*}} = 0 to 2 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 1 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT: loop.store %cst, %[[PADDED]]
// CHECK: loop.for %{{.*}} = 5 to 6 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 6 {
// CHECK-NEXT: loop.store %cst, %[[PADDED]]
// CHECK: loop.for %{{.*}} = 1 to 5 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 1 {
// CHECK-NEXT: loop.store %cst, %[[PADDED]]
// CHECK-NEXT: }
// CHECK-NEXT: loop.for %{{.*}} = 1 to 5 {
// CHECK-NEXT: loop.load %arg0[(d0, d1, d2) -> (0, d0, d1 + -1, d2 + -1)]
// CHECK-NEXT: loop.store
// CHECK-NEXT: }
// CHECK-NEXT: loop.for %{{.*}} = 5 to 6 {
// CHECK-NEXT: loop.store %cst, %[[PADDED]]
// CHECK: loop.load %[[PADDED]][(d0, d1, d2, d3, d4) -> (d4, d0 + d1, d2 + d3)]
// CHECK-NOT: arith.select
// CHECK: return
func.func @padded(%arg0: memref<1x2x4x4xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c3 = arith.constant 3 : index
  %c-1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) {
    %1 = loop.for %arg5 = 0 to 2 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 3 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 3 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = arith.addi %arg3, %arg7 : index
          %5 = arith.addi %4, %c-1 : index
          %6 = arith.cmpi sge, %5, %c0 : index
          %7 = arith.maxsi %5, %c0 : index
          %8 = arith.cmpi sle, %5, %c3 : index
          %9 = arith.andi %6, %8 : i1
          %10 = arith.minsi %7, %c3 : index
          %11 = arith.addi %arg4, %arg9 : index
          %12 = arith.addi %11, %c-1 : index
          %13 = arith.cmpi sge, %12, %c0 : index
          %14 = arith.andi %9, %13 : i1
          %15 = arith.maxsi %12, %c0 : index
          %16 = arith.cmpi sle, %12, %c3 : index
          %17 = arith.andi %14, %16 : i1
          %18 = arith.minsi %15, %c3 : index
          %19 = loop.load %arg0[%c0, %arg5, %10, %18] : memref<1x2x4x4xf32>
          %20 = arith.select %17, %19, %cst : f32
          %21 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<8x2x3x3xf32>
          %22 = arith.mulf %20, %21 : f32
          %23 = arith.addf %arg10, %22 : f32
          loop.yield %23 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x8x4x4xf32>
  }
  return %0 : memref<1x8x4x4xf32>
}

// A padded input the function allocates, and only reads and writes element by element,
// is not copied: it becomes a view of the padded buffer's interior, which its producer
// writes; the padded buffer is allocated and freed where the input was, and only its
// border is set before the kernel.
// CHECK-LABEL: func.func @padded_in_place
// CHECK: %[[PADDED:.*]] = loop.alloc() : memref<2x6x6xf32>
// CHECK-NEXT: %[[IN:.*]] = memref.reinterpret_cast %[[PADDED]] to offset: [7], sizes: [1, 2, 4, 4], strides: [72, 36, 6, 1] : memref<2x6x6xf32> to memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>
// CHECK: loop.store %{{.*}}, %[[IN]]
// CHECK-NOT: loop.load %[[IN]]
// CHECK: loop.load %[[PADDED]]
// CHECK: loop.dealloc %[[PADDED]] : memref<2x6x6xf32>
// CHECK-NEXT: return
func.func @padded_in_place(%arg0: memref<1x2x4x4xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %cst0 = arith.constant 0.000000e+00 : f32
  %c00 = arith.constant 0 : index
  %in = loop.alloc() : memref<1x2x4x4xf32>
  loop.parallel (%i, %j, %k) = (0, 0, 0) to (2, 4, 4) {
    %x = loop.load %arg0[%c00, %i, %j, %k] : memref<1x2x4x4xf32>
    %r = arith.maximumf %x, %cst0 : f32
    loop.store %r, %in[%c00, %i, %j, %k] : memref<1x2x4x4xf32>
  }
  %c3 = arith.constant 3 : index
  %c-1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) {
    %1 = loop.for %arg5 = 0 to 2 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 3 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 3 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = arith.addi %arg3, %arg7 : index
          %5 = arith.addi %4, %c-1 : index
          %6 = arith.cmpi sge, %5, %c0 : index
          %7 = arith.maxsi %5, %c0 : index
          %8 = arith.cmpi sle, %5, %c3 : index
          %9 = arith.andi %6, %8 : i1
          %10 = arith.minsi %7, %c3 : index
          %11 = arith.addi %arg4, %arg9 : index
          %12 = arith.addi %11, %c-1 : index
          %13 = arith.cmpi sge, %12, %c0 : index
          %14 = arith.andi %9, %13 : i1
          %15 = arith.maxsi %12, %c0 : index
          %16 = arith.cmpi sle, %12, %c3 : index
          %17 = arith.andi %14, %16 : i1
          %18 = arith.minsi %15, %c3 : index
          %19 = loop.load %in[%c0, %arg5, %10, %18] : memref<1x2x4x4xf32>
          %20 = arith.select %17, %19, %cst : f32
          %21 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<8x2x3x3xf32>
          %22 = arith.mulf %20, %21 : f32
          %23 = arith.addf %arg10, %22 : f32
          loop.yield %23 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x8x4x4xf32>
  }
  loop.dealloc %in : memref<1x2x4x4xf32>
  return %0 : memref<1x8x4x4xf32>
}

// A depthwise convolution is vectorized along the output row, in the result's layout:
// one broadcast weight and one input vector per step, the sums stored into the row.
// CHECK-LABEL: func.func @depthwise
// CHECK: loop.for %[[CH:.*]] = 0 to 8 {
// CHECK-NEXT: loop.for %[[OH:.*]] = 0 to 4 {
// CHECK-NEXT: loop.for %[[OW:.*]] = 0 to 4 step 4 {
// CHECK: %[[W:.*]] = loop.load %arg1[(d0, d1, d2) -> (d0, 0, d1, d2)]
// CHECK-NEXT: %[[WB:.*]] = loop.broadcast %[[W]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[X:.*]] = loop.vector_load %arg0[(d0, d1, d2, d3, d4) -> (0, d0, d1 + d2, d3 + d4)]
// CHECK-NEXT: loop.fma %[[X]], %[[WB]]
// CHECK: loop.vector_store %{{.*}}, %{{.*}}[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CH]], %[[OH]], %[[OW]]) : memref<1x8x4x4xf32>, vector<4xf32>
// With `rows = 2`, a block computes two output rows: the 9 weights are broadcast once per
// block, each of the 4 input rows the two windows span is loaded once per window column,
// and an input vector of a row both windows hold feeds both rows' sums (kh = 1 of the
// first row, kh = 0 of the second).
// ROWS-LABEL: func.func @depthwise
// ROWS: loop.for %[[CH:.*]] = 0 to 8 {
// ROWS-NEXT: loop.for %[[OH:.*]] = 0 to 4 step 2 {
// ROWS-NEXT: loop.for %[[OW:.*]] = 0 to 4 step 4 {
// ROWS-COUNT-9: loop.broadcast %{{.*}} : f32 to vector<4xf32>
// ROWS: %[[X1:.*]] = loop.vector_load %arg0[(d0, d1, d2) -> (0, d0, d1 + 1, d2)](%[[CH]], %[[OH]], %[[OW]])
// ROWS-NEXT: loop.fma %[[X1]], %{{.*}}, %{{.*}} : vector<4xf32>
// ROWS-NEXT: loop.fma %[[X1]], %{{.*}}, %{{.*}} : vector<4xf32>
// ROWS: loop.vector_store %{{.*}}, %0[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CH]], %[[OH]], %[[OW]])
// ROWS: %[[NEXT:.*]] = arith.addi %[[OH]], %{{.*}} : index
// ROWS-NEXT: loop.vector_store %{{.*}}, %0[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CH]], %[[NEXT]], %[[OW]])
func.func @depthwise(%arg0: memref<1x8x6x6xf32>, %arg1: memref<8x1x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) {
    %1 = loop.for %arg5 = 0 to 1 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 3 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 3 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x8x6x6xf32>
          %5 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<8x1x3x3xf32>
          %6 = arith.mulf %4, %5 : f32
          %7 = arith.addf %arg10, %6 : f32
          loop.yield %7 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x8x4x4xf32>
  }
  return %0 : memref<1x8x4x4xf32>
}

// A pool runs on the depthwise kernel: the padded input is staged with the pool's padding
// value (-inf), and each window step applies the pool's elementwise prologue (a NaN reads
// as -inf) and its combining op to vectors of the row; the values the prologue reads from
// outside the nest are splat once.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[LOWV:.*]] = loop.broadcast %[[LOW:.*]] : f32 to vector<4xf32>
// CHECK: %[[STAGED:.*]] = loop.alloc() : memref<2x2x9x5xf32>
// CHECK: loop.store %[[LOW]], %[[STAGED]]
// CHECK: loop.for %[[CH:.*]] = 0 to 2 {
// CHECK-NEXT: loop.for %[[OH:.*]] = 0 to 4 {
// CHECK-NEXT: loop.for %[[OW:.*]] = 0 to 4 step 4 {
// CHECK: %[[X:.*]] = loop.vector_load %[[STAGED]][(d0, d1, d2, d3, d4) -> (d0, d4 mod 2, d1 * 2 + d2, d3 + d4 floordiv 2)]
// CHECK-NEXT: %[[NAN:.*]] = math.isnan %[[X]] : vector<4xf32>
// CHECK-NEXT: %[[V:.*]] = arith.select %[[NAN]], %[[LOWV]], %[[X]] : vector<4xi1>, vector<4xf32>
// CHECK-NEXT: arith.maximumf %{{.*}}, %[[V]] : vector<4xf32>
// CHECK: loop.vector_store %{{.*}}, %{{.*}}[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CH]], %[[OH]], %[[OW]]) : memref<1x2x4x4xf32>, vector<4xf32>
// CHECK-NOT: arith.maxsi
func.func @max_pool(%arg0: memref<1x2x8x8xf32>) -> memref<1x2x4x4xf32> {
  %c-1 = arith.constant -1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0xFF800000 : f32
  %0 = loop.alloc() : memref<1x2x4x4xf32>
  loop.parallel (%arg1, %arg2, %arg3) = (0, 0, 0) to (2, 4, 4) {
    %1 = loop.for %arg4 = 0 to 3 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.for %arg6 = 0 to 3 iter_args(%arg7 = %arg5) -> (f32) {
        %3 = arith.muli %arg2, %c2 : index
        %4 = arith.addi %3, %arg4 : index
        %5 = arith.addi %4, %c-1 : index
        %6 = arith.cmpi sge, %5, %c0 : index
        %7 = arith.maxsi %5, %c0 : index
        %8 = arith.muli %arg3, %c2 : index
        %9 = arith.addi %8, %arg6 : index
        %10 = arith.addi %9, %c-1 : index
        %11 = arith.cmpi sge, %10, %c0 : index
        %12 = arith.andi %6, %11 : i1
        %13 = arith.maxsi %10, %c0 : index
        %14 = loop.load %arg0[%c0, %arg1, %7, %13] : memref<1x2x8x8xf32>
        %15 = arith.select %12, %14, %cst : f32
        %16 = math.isnan %15 : f32
        %17 = arith.select %16, %cst, %15 : f32
        %18 = arith.maximumf %arg7, %17 : f32
        loop.yield %18 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg1, %arg2, %arg3] : memref<1x2x4x4xf32>
  }
  return %0 : memref<1x2x4x4xf32>
}

// With enough channels to share between threads one at a time, each channel's padded,
// phase-split input is staged on the stack just before its rows are computed: the border
// is set, then whole pairs of columns are copied to the two phases (consecutive stores),
// and the columns left over one at a time.
// CHECK-LABEL: func.func @max_pool_channel_staging
// CHECK: loop.for %[[CH:.*]] = 0 to 16 {
// CHECK-NEXT: %[[STAGED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x9x5xf32>
// CHECK: loop.for %[[J:.*]] = 1 to 4 {
// CHECK-NEXT: %[[EVEN:.*]] = loop.load %arg0[(d0, d1, d2) -> (0, d0, d1 + -1, d2 * 2 + -1)](%[[CH]], %[[Y:.*]], %[[J]])
// CHECK-NEXT: loop.store %[[EVEN]], %[[STAGED]][(d0, d1, d2) -> (0, d1, d2)](%[[CH]], %[[Y]], %[[J]])
// CHECK-NEXT: %[[ODD:.*]] = loop.load %arg0[(d0, d1, d2) -> (0, d0, d1 + -1, d2 * 2)](%[[CH]], %[[Y]], %[[J]])
// CHECK-NEXT: loop.store %[[ODD]], %[[STAGED]][(d0, d1, d2) -> (1, d1, d2)](%[[CH]], %[[Y]], %[[J]])
// CHECK: loop.for %[[OH:.*]] = 0 to 4 {
// CHECK-NEXT: loop.for %[[OW:.*]] = 0 to 4 step 4 {
// CHECK: loop.vector_load %[[STAGED]][(d0, d1, d2, d3, d4) -> (d4 mod 2, d1 * 2 + d2, d3 + d4 floordiv 2)]
// CHECK: loop.vector_store %{{.*}}, %{{.*}}[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CH]], %[[OH]], %[[OW]]) : memref<1x16x4x4xf32>, vector<4xf32>
// CHECK-NOT: loop.alloc
func.func @max_pool_channel_staging(%arg0: memref<1x16x8x8xf32>) -> memref<1x16x4x4xf32> {
  %c-1 = arith.constant -1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0xFF800000 : f32
  %0 = loop.alloc() : memref<1x16x4x4xf32>
  loop.parallel (%arg1, %arg2, %arg3) = (0, 0, 0) to (16, 4, 4) {
    %1 = loop.for %arg4 = 0 to 3 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.for %arg6 = 0 to 3 iter_args(%arg7 = %arg5) -> (f32) {
        %3 = arith.muli %arg2, %c2 : index
        %4 = arith.addi %3, %arg4 : index
        %5 = arith.addi %4, %c-1 : index
        %6 = arith.cmpi sge, %5, %c0 : index
        %7 = arith.maxsi %5, %c0 : index
        %8 = arith.muli %arg3, %c2 : index
        %9 = arith.addi %8, %arg6 : index
        %10 = arith.addi %9, %c-1 : index
        %11 = arith.cmpi sge, %10, %c0 : index
        %12 = arith.andi %6, %11 : i1
        %13 = arith.maxsi %10, %c0 : index
        %14 = loop.load %arg0[%c0, %arg1, %7, %13] : memref<1x16x8x8xf32>
        %15 = arith.select %12, %14, %cst : f32
        %16 = math.isnan %15 : f32
        %17 = arith.select %16, %cst, %15 : f32
        %18 = arith.maximumf %arg7, %17 : f32
        loop.yield %18 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg1, %arg2, %arg3] : memref<1x16x4x4xf32>
  }
  return %0 : memref<1x16x4x4xf32>
}

// A window read that can leave the input on a side its condition does not check (here
// the last row and column) is not a pool the kernel may stage: the nest is left as it is.
// CHECK-LABEL: func.func @max_pool_unchecked_side
// CHECK: loop.parallel
// CHECK: arith.maxsi
// CHECK-NOT: loop.vector_load
func.func @max_pool_unchecked_side(%arg0: memref<1x2x7x7xf32>) -> memref<1x2x4x4xf32> {
  %c-1 = arith.constant -1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0xFF800000 : f32
  %0 = loop.alloc() : memref<1x2x4x4xf32>
  loop.parallel (%arg1, %arg2, %arg3) = (0, 0, 0) to (2, 4, 4) {
    %1 = loop.for %arg4 = 0 to 3 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.for %arg6 = 0 to 3 iter_args(%arg7 = %arg5) -> (f32) {
        %3 = arith.muli %arg2, %c2 : index
        %4 = arith.addi %3, %arg4 : index
        %5 = arith.addi %4, %c-1 : index
        %6 = arith.cmpi sge, %5, %c0 : index
        %7 = arith.maxsi %5, %c0 : index
        %8 = arith.muli %arg3, %c2 : index
        %9 = arith.addi %8, %arg6 : index
        %10 = arith.addi %9, %c-1 : index
        %11 = arith.cmpi sge, %10, %c0 : index
        %12 = arith.andi %6, %11 : i1
        %13 = arith.maxsi %10, %c0 : index
        %14 = loop.load %arg0[%c0, %arg1, %7, %13] : memref<1x2x7x7xf32>
        %15 = arith.select %12, %14, %cst : f32
        %16 = arith.maximumf %arg7, %15 : f32
        loop.yield %16 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg1, %arg2, %arg3] : memref<1x2x4x4xf32>
  }
  return %0 : memref<1x2x4x4xf32>
}

// The elementwise nest that reads a depthwise result at its own index (bias, clamps) is
// computed on the kernel's vectors: the per-channel bias loaded once per block and splat,
// the compares and selects on vectors, the activation stored straight into its buffer
// (allocated before the kernel now); the depthwise result is never written.
// CHECK-LABEL: func.func @depthwise_epilogue
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<1x4x4x4xf32>
// CHECK-NOT: loop.alloc
// CHECK: loop.fma
// CHECK: %[[B:.*]] = loop.load %arg2[(d0, d1, d2, d3) -> (d1)]
// CHECK-NEXT: %[[BV:.*]] = loop.broadcast %[[B]] : f32 to vector<4xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %{{.*}}, %[[BV]] : vector<4xf32>
// CHECK: arith.cmpf olt, %[[S]], %{{.*}} : vector<4xf32>
// CHECK: arith.select %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: loop.vector_store %{{.*}}, %[[OUT]]
// CHECK-NOT: loop.parallel
// CHECK: return %[[OUT]]
  func.func @depthwise_epilogue(%arg0: memref<1x4x6x6xf32>, %arg1: memref<4x1x3x3xf32>, %arg2: memref<4xf32>) -> memref<1x4x4x4xf32> {
    %cst = arith.constant 6.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = loop.alloc() : memref<1x4x4x4xf32>
    loop.parallel (%arg3, %arg4, %arg5) = (0, 0, 0) to (4, 4, 4) {
      %2 = loop.for %arg6 = 0 to 1 iter_args(%arg7 = %cst_0) -> (f32) {
        %3 = loop.for %arg8 = 0 to 3 iter_args(%arg9 = %arg7) -> (f32) {
          %4 = loop.for %arg10 = 0 to 3 iter_args(%arg11 = %arg9) -> (f32) {
            %5 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)](%c0, %arg3, %arg4, %arg5, %arg6, %arg8, %arg10) : memref<1x4x6x6xf32>
            %6 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg3, %arg4, %arg5, %arg6, %arg8, %arg10) : memref<4x1x3x3xf32>
            %7 = arith.mulf %5, %6 : f32
            %8 = arith.addf %arg11, %7 : f32
            loop.yield %8 : f32
          }
          loop.yield %4 : f32
        }
        loop.yield %3 : f32
      }
      loop.store %2, %0[%c0, %arg3, %arg4, %arg5] : memref<1x4x4x4xf32>
    }
    %1 = loop.alloc() : memref<1x4x4x4xf32>
    loop.parallel (%arg3, %arg4, %arg5) = (0, 0, 0) to (4, 4, 4) {
      %2 = loop.load %0[%c0, %arg3, %arg4, %arg5] : memref<1x4x4x4xf32>
      %3 = loop.load %arg2[(d0, d1, d2, d3) -> (d1)](%c0, %arg3, %arg4, %arg5) : memref<4xf32>
      %4 = arith.addf %2, %3 : f32
      %5 = arith.cmpf olt, %4, %cst_0 : f32
      %6 = arith.select %5, %cst_0, %4 : f32
      %7 = arith.cmpf ogt, %6, %cst : f32
      %8 = arith.select %7, %cst, %6 : f32
      loop.store %8, %1[%c0, %arg3, %arg4, %arg5] : memref<1x4x4x4xf32>
    }
    loop.dealloc %0 : memref<1x4x4x4xf32>
    return %1 : memref<1x4x4x4xf32>
  }

// A 1x1 convolution that reads consecutive columns without padding keeps output pixels in
// the vector lanes: per block of output channels (here all 4) and row, each input channel
// loads the row's vectors where they lie and broadcasts one weight per output channel;
// the sums are stored straight into the result's rows, so nothing is transposed. With mr
// and nr given (the first RUN line) the pointwise kernel is not used, and the
// channel-vectorized kernel's nr=8 is more than the 4 channels: the nest stays.
// CHECK-LABEL: func.func @pointwise
// CHECK: loop.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (4, 2, 8) {
// CHECK-NOT: loop.fma
// CHECK: return
// POINTWISE-LABEL: func.func @pointwise
// POINTWISE: loop.for %[[CO:.*]] = 0 to 4 step 4 {
// POINTWISE-NEXT: loop.for %[[OH:.*]] = 0 to 2 {
// POINTWISE: %[[CO1:.*]] = arith.addi %[[CO]], %{{.*}} : index
// POINTWISE: loop.for %[[OW:.*]] = 0 to 8 step 8 {
// POINTWISE: loop.for %[[CI:.*]] = 0 to 3 iter_args
// POINTWISE-NEXT: %[[X0:.*]] = loop.vector_load %arg0[(d0, d1, d2) -> (0, d0, d1, d2)](%[[CI]], %[[OH]], %[[OW]]) : memref<1x3x2x8xf32>, vector<4xf32>
// POINTWISE-NEXT: %[[X1:.*]] = loop.vector_load %arg0[(d0, d1, d2) -> (0, d0, d1, d2 + 4)](%[[CI]], %[[OH]], %[[OW]]) : memref<1x3x2x8xf32>, vector<4xf32>
// POINTWISE-NEXT: %[[W0:.*]] = loop.load %arg1[(d0, d1) -> (d0, d1, 0, 0)](%[[CO]], %[[CI]]) : memref<4x3x1x1xf32>
// POINTWISE-NEXT: %[[B0:.*]] = loop.broadcast %[[W0]] : f32 to vector<4xf32>
// POINTWISE-NEXT: loop.fma %[[X0]], %[[B0]], %{{.*}} : vector<4xf32>
// POINTWISE-NEXT: loop.fma %[[X1]], %[[B0]], %{{.*}} : vector<4xf32>
// POINTWISE-NEXT: loop.load %arg1[(d0, d1) -> (d0, d1, 0, 0)](%[[CO1]], %[[CI]])
// POINTWISE: loop.vector_store %{{.*}}, %{{.*}}[(d0, d1, d2) -> (0, d0, d1, d2 + 4)](%[[CO1]], %[[OH]], %[[OW]]) : memref<1x4x2x8xf32>, vector<4xf32>
// POINTWISE-NOT: loop.alloc
// POINTWISE: return
func.func @pointwise(%arg0: memref<1x3x2x8xf32>, %arg1: memref<4x3x1x1xf32>) -> memref<1x4x2x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x4x2x8xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (4, 2, 8) {
    %1 = loop.for %arg5 = 0 to 3 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 1 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 1 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x3x2x8xf32>
          %5 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<4x3x1x1xf32>
          %6 = arith.mulf %4, %5 : f32
          %7 = arith.addf %arg10, %6 : f32
          loop.yield %7 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x4x2x8xf32>
  }
  return %0 : memref<1x4x2x8xf32>
}
