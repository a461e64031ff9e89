// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-register-tile{tm=2 tn=4 min-threads=1})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-register-tile{tm=2 tn=4 min-threads=3})' | FileCheck %s --check-prefix=FEW
// RUN: not tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-register-tile{tm=0})' 2>&1 | FileCheck %s --check-prefix=ERR

// A 5x3 by 3x9 matmul as convert-te-to-loop writes it: each thread of the tiled nest
// computes 2 rows by 4 columns, 8 sums carried through one k loop that loads 2 values of
// A and 4 of B and does 8 fused multiply-adds. Its columns lie 2 apart (8 columns in 4 per thread), so neighbouring
// threads read neighbouring elements of B. Row 4 and column 8 keep the original nest.
// CHECK-LABEL: func.func @mm
// CHECK:         loop.parallel (%[[IB:.*]], %[[JB:.*]]) = (0, 0) to (2, 2) {
// CHECK-NEXT:      %[[S:.*]]:8 = loop.for %[[K:.*]] = 0 to 3 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:        %[[A0:.*]] = loop.load %arg0[(d0, d1, d2) -> (d0 * 2, d2)](%[[IB]], %[[JB]], %[[K]])
// CHECK-NEXT:        %[[A1:.*]] = loop.load %arg0[(d0, d1, d2) -> (d0 * 2 + 1, d2)](%[[IB]], %[[JB]], %[[K]])
// CHECK-NEXT:        %[[B0:.*]] = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%[[IB]], %[[JB]], %[[K]])
// CHECK-NEXT:        loop.load %arg1[(d0, d1, d2) -> (d2, d1 + 2)]
// CHECK-NEXT:        loop.load %arg1[(d0, d1, d2) -> (d2, d1 + 4)]
// CHECK-NEXT:        loop.load %arg1[(d0, d1, d2) -> (d2, d1 + 6)]
// CHECK-NEXT:        loop.fma %[[A0]], %[[B0]], %{{.*}} : f32
// CHECK:           loop.store %[[S]]#0, %{{.*}}[(d0, d1) -> (d0 * 2, d1)](%[[IB]], %[[JB]])
// CHECK:           loop.store %[[S]]#7, %{{.*}}[(d0, d1) -> (d0 * 2 + 1, d1 + 6)](%[[IB]], %[[JB]])
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (4, 0) to (5, 9) {
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (4, 9) {
// Its 4 tiles are at least min-threads=3: tiled under FEW too.
// FEW-LABEL: func.func @mm
// FEW:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (2, 2) {
// ERR: loop-gpu-register-tile: needs tm and tn in [1, 16] and min-threads >= 0 (got tm=0, tn=4, min-threads=65536)
func.func @mm(%arg0: memref<5x3xf32>, %arg1: memref<3x9xf32>) -> memref<5x9xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x9xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (5, 9) {
    %1 = loop.for %arg4 = 0 to 3 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<5x3xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<3x9xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %arg5, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<5x9xf32>
  }
  return %0 : memref<5x9xf32>
}

// -----

// Two 2x4 tiles of a 4x4 result: fewer than min-threads=3, so each thread keeps one
// result.
// CHECK-LABEL: func.func @few_tiles
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (2, 1) {
// FEW-LABEL:   func.func @few_tiles
// FEW:           loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (4, 4) {
// FEW-NEXT:        loop.for %{{.*}} = 0 to 2 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
func.func @few_tiles(%arg0: memref<4x2xf32>, %arg1: memref<2x4xf32>) -> memref<4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<4x4xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (4, 4) {
    %1 = loop.for %arg4 = 0 to 2 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<4x2xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<2x4xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %arg5, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<4x4xf32>
  }
  return %0 : memref<4x4xf32>
}
