// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-conv-microkernel{mr=3 nr=4 vector=4 threads=0}))' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-conv-microkernel{mr=3 nr=4 vector=4 threads=0 epilogues=false}))' | FileCheck %s --check-prefix=OFF

// The nest after the convolution (bias, residual add, ReLU, as te-fuse leaves it) is the
// only reader of the convolution's result and reads it at its own index: it is computed
// in the kernel's copy out of the channels-last sums, and the result buffer is gone. The
// copy runs over the kernel's own outer loops (channel blocks, rows), then a block's
// channels and the row's pixels.
// CHECK-LABEL: func.func @bias_residual_relu
// CHECK-NOT:     loop.alloc() : memref<1x4x3x3xf32>
// CHECK:         %[[SUMS:.*]] = loop.alloc() : memref<3x3x4xf32>
// CHECK:         loop.fma
// CHECK:         %[[OUT:.*]] = loop.alloc() : memref<1x4x3x3xf32>
// CHECK-NEXT:    loop.for %[[MB:.*]] = 0 to 4 step 4 {
// CHECK-NEXT:      loop.for %[[OH:.*]] = 0 to 3 {
// CHECK-NEXT:        loop.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:          loop.for %[[OW:.*]] = 0 to 3 {
// CHECK-NEXT:          %[[CO:.*]] = arith.addi %[[MB]], %[[J]] : index
// CHECK-NEXT:          %[[Y:.*]] = loop.load %[[SUMS]][(d0, d1, d2, d3) -> (d0, d1, d2 + d3)](%[[OH]], %[[OW]], %[[MB]], %[[J]])
// CHECK-NEXT:          %[[B:.*]] = loop.load %arg2[(d0, d1, d2, d3) -> (d1)](%{{.*}}, %[[CO]], %[[OH]], %[[OW]])
// CHECK-NEXT:          %[[YB:.*]] = arith.addf %[[Y]], %[[B]] : f32
// CHECK-NEXT:          %[[R:.*]] = loop.load %arg3[%{{.*}}, %[[CO]], %[[OH]], %[[OW]]]
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[YB]], %[[R]] : f32
// CHECK-NEXT:          arith.cmpf olt, %[[S]]
// CHECK-NEXT:          %[[RELU:.*]] = arith.select
// CHECK-NEXT:          loop.store %[[RELU]], %[[OUT]][%{{.*}}, %[[CO]], %[[OH]], %[[OW]]]
// CHECK-NOT:     loop.parallel
// CHECK:         return %[[OUT]]
// With epilogues=false the kernel writes the result and the nest reads it.
// OFF-LABEL: func.func @bias_residual_relu
// OFF-COUNT-2: loop.alloc() : memref<1x4x3x3xf32>
// OFF:         loop.parallel
func.func @bias_residual_relu(%arg0: memref<1x1x3x3xf32>, %arg1: memref<4x1x1x1xf32>, %arg2: memref<4xf32>, %arg3: memref<1x4x3x3xf32>) -> memref<1x4x3x3xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg4, %arg5, %arg6) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.for %arg7 = 0 to 1 iter_args(%arg8 = %cst) -> (f32) {
      %3 = loop.for %arg9 = 0 to 1 iter_args(%arg10 = %arg8) -> (f32) {
        %4 = loop.for %arg11 = 0 to 1 iter_args(%arg12 = %arg10) -> (f32) {
          %5 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg4, %arg5, %arg6, %arg7, %arg9, %arg11) : memref<1x1x3x3xf32>
          %6 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg4, %arg5, %arg6, %arg7, %arg9, %arg11) : memref<4x1x1x1xf32>
          %7 = arith.mulf %5, %6 : f32
          %8 = arith.addf %arg12, %7 : f32
          loop.yield %8 : f32
        }
        loop.yield %4 : f32
      }
      loop.yield %3 : f32
    }
    loop.store %2, %0[%c0, %arg4, %arg5, %arg6] : memref<1x4x3x3xf32>
  }
  %1 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg4, %arg5, %arg6) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.load %0[%c0, %arg4, %arg5, %arg6] : memref<1x4x3x3xf32>
    %3 = loop.load %arg2[(d0, d1, d2, d3) -> (d1)](%c0, %arg4, %arg5, %arg6) : memref<4xf32>
    %4 = arith.addf %2, %3 : f32
    %5 = loop.load %arg3[%c0, %arg4, %arg5, %arg6] : memref<1x4x3x3xf32>
    %6 = arith.addf %4, %5 : f32
    %7 = arith.cmpf olt, %6, %cst : f32
    %8 = arith.select %7, %cst, %6 : f32
    loop.store %8, %1[%c0, %arg4, %arg5, %arg6] : memref<1x4x3x3xf32>
  }
  loop.dealloc %0 : memref<1x4x3x3xf32>
  return %1 : memref<1x4x3x3xf32>
}

// -----

// The convolution's result is returned as well: it is still written, and the ReLU nest
// still reads it.
// CHECK-LABEL: func.func @also_returned
// CHECK:         %[[Y:.*]] = loop.alloc() : memref<1x4x3x3xf32>
// CHECK:         loop.store %{{.*}}, %[[Y]][(d0, d1, d2) -> (0, d0, d1, d2)]
// CHECK:         loop.parallel
// CHECK-NEXT:      loop.load %[[Y]]
// CHECK:         return %{{.*}}, %[[Y]]
func.func @also_returned(%arg0: memref<1x1x3x3xf32>, %arg1: memref<4x1x1x1xf32>) -> (memref<1x4x3x3xf32>, memref<1x4x3x3xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.for %arg5 = 0 to 1 iter_args(%arg6 = %cst) -> (f32) {
      %3 = loop.for %arg7 = 0 to 1 iter_args(%arg8 = %arg6) -> (f32) {
        %4 = loop.for %arg9 = 0 to 1 iter_args(%arg10 = %arg8) -> (f32) {
          %5 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x1x3x3xf32>
          %6 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<4x1x1x1xf32>
          %7 = arith.mulf %5, %6 : f32
          %8 = arith.addf %arg10, %7 : f32
          loop.yield %8 : f32
        }
        loop.yield %4 : f32
      }
      loop.yield %3 : f32
    }
    loop.store %2, %0[%c0, %arg2, %arg3, %arg4] : memref<1x4x3x3xf32>
  }
  %1 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.load %0[%c0, %arg2, %arg3, %arg4] : memref<1x4x3x3xf32>
    %3 = arith.cmpf olt, %2, %cst : f32
    %4 = arith.select %3, %cst, %2 : f32
    loop.store %4, %1[%c0, %arg2, %arg3, %arg4] : memref<1x4x3x3xf32>
  }
  return %1, %0 : memref<1x4x3x3xf32>, memref<1x4x3x3xf32>
}

// -----

// The nest reads the result transposed (another element than its own): the result is
// still written, and the nest still reads it.
// CHECK-LABEL: func.func @transposed
// CHECK:         %[[Y:.*]] = loop.alloc() : memref<1x4x3x3xf32>
// CHECK:         loop.store %{{.*}}, %[[Y]][(d0, d1, d2) -> (0, d0, d1, d2)]
// CHECK:         loop.parallel
// CHECK-NEXT:      loop.load %[[Y]][(d0, d1, d2, d3) -> (d0, d1, d3, d2)]
func.func @transposed(%arg0: memref<1x1x3x3xf32>, %arg1: memref<4x1x1x1xf32>) -> memref<1x4x3x3xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.for %arg5 = 0 to 1 iter_args(%arg6 = %cst) -> (f32) {
      %3 = loop.for %arg7 = 0 to 1 iter_args(%arg8 = %arg6) -> (f32) {
        %4 = loop.for %arg9 = 0 to 1 iter_args(%arg10 = %arg8) -> (f32) {
          %5 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<1x1x3x3xf32>
          %6 = loop.load %arg1[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg2, %arg3, %arg4, %arg5, %arg7, %arg9) : memref<4x1x1x1xf32>
          %7 = arith.mulf %5, %6 : f32
          %8 = arith.addf %arg10, %7 : f32
          loop.yield %8 : f32
        }
        loop.yield %4 : f32
      }
      loop.yield %3 : f32
    }
    loop.store %2, %0[%c0, %arg2, %arg3, %arg4] : memref<1x4x3x3xf32>
  }
  %1 = loop.alloc() : memref<1x4x3x3xf32>
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (4, 3, 3) {
    %2 = loop.load %0[(d0, d1, d2, d3) -> (d0, d1, d3, d2)](%c0, %arg2, %arg3, %arg4) : memref<1x4x3x3xf32>
    %3 = arith.cmpf olt, %2, %cst : f32
    %4 = arith.select %3, %cst, %2 : f32
    loop.store %4, %1[%c0, %arg2, %arg3, %arg4] : memref<1x4x3x3xf32>
  }
  loop.dealloc %0 : memref<1x4x3x3xf32>
  return %1 : memref<1x4x3x3xf32>
}
