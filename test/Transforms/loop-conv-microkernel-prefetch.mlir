// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{mr=4 nr=8 vector=4 rows=1 threads=0})' | FileCheck %s
// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{mr=4 nr=8 vector=4 rows=1 threads=0 prefetch=false})' | FileCheck %s --check-prefix=OFF

// With two blocks of NR = 8 output channels, the channel-vectorized kernel prefetches the
// next block's weight panel while it computes the current one: the panel index after
// this block's (the last block's successor is itself), then, in the step of the c, kh, kw
// loops, one prefetch per weight vector (NR / W = 2) at the same c, kh, kw of that panel.
// Rows of 8 pixels are two blocks of MR = 4 pixels; only the last block prefetches (its
// loop is split off the one before), so a panel is fetched once per row, not once per
// pixel block.
// CHECK-LABEL: func.func @two_channel_blocks
// CHECK:         %[[PANELS:.*]] = loop.alloc() : memref<2x2x3x3x8xf32>
// CHECK:         loop.for %[[MB:.*]] = 0 to 16 step 8 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:        %[[NR:.*]] = arith.constant 8 : index
// CHECK-NEXT:        %[[BLOCK:.*]] = arith.divui %[[MB]], %[[NR]] : index
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[AFTER:.*]] = arith.addi %[[BLOCK]], %[[ONE]] : index
// CHECK-NEXT:        %[[LAST:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[NEXT:.*]] = arith.minsi %[[AFTER]], %[[LAST]] : index
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 4 step 4 {
// CHECK:               loop.vector_load %[[PANELS]]
// CHECK-NEXT:          loop.vector_load %[[PANELS]]
// CHECK-NEXT:          loop.load %arg0
// CHECK:             loop.for %{{.*}} = 4 to 8 step 4 {
// CHECK:               loop.vector_load %[[PANELS]]
// CHECK-NEXT:          loop.vector_load %[[PANELS]]
// CHECK-NEXT:          %[[LANE0:.*]] = arith.constant 0 : index
// CHECK-NEXT:          memref.prefetch %[[PANELS]][%[[NEXT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[LANE0]]], read, locality<2>, data : memref<2x2x3x3x8xf32>
// CHECK-NEXT:          %[[LANE4:.*]] = arith.constant 4 : index
// CHECK-NEXT:          memref.prefetch %[[PANELS]][%[[NEXT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[LANE4]]], read, locality<2>, data : memref<2x2x3x3x8xf32>
// CHECK-NEXT:          loop.load %arg0
// CHECK:         return
// Without the option, no prefetch.
// OFF-LABEL:     func.func @two_channel_blocks
// OFF-NOT:       memref.prefetch
// OFF:           return
func.func @two_channel_blocks(%arg0: memref<1x2x10x10xf32>, %arg1: memref<16x2x3x3xf32>) -> memref<1x16x8x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x16x8x8xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (16, 8, 8) {
    %1 = loop.for %arg5 = 0 to 2 iter_args(%arg6 = %cst) -> (f32) {
      %2 = loop.for %arg7 = 0 to 3 iter_args(%arg8 = %arg6) -> (f32) {
        %3 = loop.for %arg9 = 0 to 3 iter_args(%arg10 = %arg8) -> (f32) {
          %4 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x2x10x10xf32>
          %5 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<16x2x3x3xf32>
          %6 = arith.mulf %4, %5 : f32
          %7 = arith.addf %arg10, %6 : f32
          loop.yield %7 : f32
        }
        loop.yield %3 : f32
      }
      loop.yield %2 : f32
    }
    loop.store %1, %0[%c0, %arg2, %arg3, %arg4] : memref<1x16x8x8xf32>
  }
  return %0 : memref<1x16x8x8xf32>
}

// One block of output channels: nothing to fetch ahead.
// CHECK-LABEL: func.func @one_channel_block
// CHECK-NOT:     memref.prefetch
// CHECK:         return
func.func @one_channel_block(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
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
