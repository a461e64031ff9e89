// RUN: tb-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(loop-conv-microkernel)'

func.func @channels_not_whole_vectors(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  // expected-error @+1 {{loop-conv-microkernel: the nest's schedule does not fit: asks for NR = 6 output channels, not a multiple of its vector width 4}}
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[6], [], [2], [], [], []], vector = 4, pack = rhs>} {
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

// -----

func.func @threads_on_pixels(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  // expected-error @+1 {{loop-conv-microkernel: the nest's schedule does not fit: runs dimensions [2] on threads; only output channels (0) and rows (1) can be}}
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[8], [], [2], [], [], []], parallel = [2], vector = 4, pack = rhs>} {
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

// -----

func.func @wrong_rank(%arg0: memref<1x2x6x6xf32>, %arg1: memref<8x2x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  // expected-error @+1 {{loop-conv-microkernel: the nest's schedule does not fit: schedule tiles 3 dimensions but the nest has 6}}
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[8], [], [2]], vector = 4, pack = rhs>} {
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

// -----

func.func @depthwise_pixels_not_whole_vectors(%arg0: memref<1x8x6x6xf32>, %arg1: memref<8x1x3x3xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<1x8x4x4xf32>
  // expected-error @+1 {{loop-conv-microkernel: the nest's schedule does not fit: asks for MR = 3 pixels of a depthwise row, not a multiple of its vector width 4}}
  loop.parallel (%arg2, %arg3, %arg4) = (0, 0, 0) to (8, 4, 4) attributes {loop.schedule = #loop.schedule<tiles = [[], [], [3], [], [], []], vector = 4, pack = rhs>} {
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
