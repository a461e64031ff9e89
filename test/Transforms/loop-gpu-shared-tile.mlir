// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-shared-tile{bm=4 bn=4 bk=4 tm=2 tn=2 min-blocks=1})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-shared-tile{bm=4 bn=4 bk=4 tm=2 tn=2 min-blocks=5})' | FileCheck %s --check-prefix=FEW
// RUN: not tb-opt %s --pass-pipeline='builtin.module(loop-gpu-shared-tile{bm=6 tm=4})' 2>&1 | FileCheck %s --check-prefix=ERR

// A 9x6 by 6x10 matmul as convert-te-to-loop writes it, in 4x4 tiles: a 2x2 grid of
// blocks of 4 threads, each thread 2x2 results. Each stage copies a 4x4 tile of A
// (transposed) and of B into the block's workgroup buffers, waits at a barrier, runs 4
// steps of fused multiply-adds from them, and waits again before the next stage
// overwrites them. The 2 reduction steps past the last stage read A and B directly; row 8
// and columns 8 and 9 keep the original nest.
// CHECK-LABEL: func.func @mm
// CHECK:         gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2_0, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1_1, %{{.*}} = %c1_2) workgroup(%[[AS:.*]] : memref<4x4xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<4x4xf32, #gpu.address_space<workgroup>>) {
// CHECK:           %[[STAGES:.*]]:4 = loop.for %[[K0:.*]] = 0 to 4 step 4 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-COUNT-4:     loop.store %{{.*}}, %[[AS]][%{{.*}}, %{{.*}}] : memref<4x4xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:     loop.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] : memref<4x4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        gpu.barrier
// CHECK:             %[[STEP:.*]]:4 = loop.for %[[KK:.*]] = 0 to 4 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT:          %[[A0:.*]] = loop.load %[[AS]][%[[KK]], %[[ROW:.*]]] : memref<4x4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          loop.load %[[AS]][(d0, d1) -> (d0, d1 + 1)](%[[KK]], %[[ROW]])
// CHECK-NEXT:          %[[B0:.*]] = loop.load %[[BS]][%[[KK]], %[[COL:.*]]] : memref<4x4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          loop.load %[[BS]][(d0, d1) -> (d0, d1 + 2)](%[[KK]], %[[COL]])
// CHECK-NEXT:          loop.fma %[[A0]], %[[B0]], %{{.*}} : f32
// CHECK:             gpu.barrier
// CHECK-NEXT:        loop.yield %[[STEP]]#0, %[[STEP]]#1, %[[STEP]]#2, %[[STEP]]#3
// CHECK:           %[[TAIL:.*]]:4 = loop.for %{{.*}} = 4 to 6 iter_args({{.*}} = %[[STAGES]]#0, {{.*}}) -> (f32, f32, f32, f32) {
// CHECK:             loop.load %arg0[(d0, d1, d2) -> (d0 + 1, d2)]
// CHECK:           loop.store %[[TAIL]]#0, %{{.*}}[%{{.*}}, %{{.*}}] : memref<9x10xf32>
// CHECK:           loop.store %[[TAIL]]#3, %{{.*}}[(d0, d1) -> (d0 + 1, d1 + 2)]
// CHECK-NEXT:      gpu.terminator
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (8, 0) to (9, 10) {
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (8, 10) {
// Its 4 full tiles are fewer than min-blocks=5: left as it is.
// FEW-LABEL: func.func @mm
// FEW-NOT:     gpu.launch
// FEW:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (9, 10) {
// ERR: loop-gpu-shared-tile: bm=6 bn=64 bk=16 tm=4 tn=4: tm must divide bm and tn divide bn
func.func @mm(%arg0: memref<9x6xf32>, %arg1: memref<6x10xf32>) -> memref<9x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<9x10xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (9, 10) {
    %1 = loop.for %arg4 = 0 to 6 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<9x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<6x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %arg5, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<9x10xf32>
  }
  return %0 : memref<9x10xf32>
}

// -----

// An integer matmul is not staged (the tiles are f32).
// CHECK-LABEL: func.func @integer
// CHECK-NOT:     gpu.launch
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (8, 8) {
func.func @integer(%arg0: memref<8x4xi32>, %arg1: memref<4x8xi32>) -> memref<8x8xi32> {
  %c0 = arith.constant 0 : i32
  %0 = loop.alloc() : memref<8x8xi32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (8, 8) {
    %1 = loop.for %arg4 = 0 to 4 iter_args(%arg5 = %c0) -> (i32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<8x4xi32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<4x8xi32>
      %4 = arith.muli %2, %3 : i32
      %5 = arith.addi %arg5, %4 : i32
      loop.yield %5 : i32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<8x8xi32>
  }
  return %0 : memref<8x8xi32>
}
