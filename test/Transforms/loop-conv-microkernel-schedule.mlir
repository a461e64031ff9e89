// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-conv-microkernel{mr=4 nr=8 vector=4 rows=1 threads=0})' | FileCheck %s

// A convolution nest's schedule overrides the options when it packs: dimensions are
// (co, oh, ow, c, kh, kw); co's innermost tile is NR = 8, ow's is MR = 2 pixels, vector
// 8, and parallel = [0, 1] runs channel blocks and rows on threads.
// CHECK-LABEL: func.func @scheduled
// CHECK-NOT: loop.schedule
// CHECK: loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (8, 4) step (8, 1) {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 4 step 2 {
// CHECK: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>)
// CHECK: loop.fma {{.*}} : vector<8xf32>
func.func @scheduled(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[8], [], [2], [], [], []], parallel = [0, 1], vector = 8, pack = rhs>} {
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

// A schedule that does not pack is left to loop-apply-schedule.
// CHECK-LABEL: func.func @not_packed
// CHECK: loop.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = {{.*}}, vector = 8>}
// CHECK-NOT: loop.fma
func.func @not_packed(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[8], [], [2], [], [], []], vector = 8>} {
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

// A depthwise schedule: ow's innermost tile is the pixels of a block, here one vector
// of 4, on one thread.
// CHECK-LABEL: func.func @depthwise_scheduled
// CHECK: loop.for %{{.*}} = 0 to 8 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 4 {
// CHECK-NEXT: loop.for %{{.*}} = 0 to 4 step 4 {
// CHECK: loop.fma {{.*}} : vector<4xf32>
func.func @depthwise_scheduled(%arg0: memref<1x8x6x6xf32>, %arg1: memref<8x1x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[], [], [4], [], [], []], vector = 4, pack = both>} {
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
