// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-gpu-mma{warp-m=1 warp-n=1 warps-per-block=2 stage-k=32})' | FileCheck %s
// RUN: not tb-opt %s --pass-pipeline='builtin.module(loop-gpu-mma{warp-m=9})' 2>&1 | FileCheck %s --check-prefix=ERR

// A 17x20 by 20x9 product of f16 matrices with f32 sums, too small for a staged block tile
// (32x16): one 16x8 tile per warp, its operands read from global memory. Each
// lane loads its 8 elements of A and 4 of B for each 16-step slice of the reduction as
// they are stored, builds its fragments and multiplies them on the tensor cores. The last
// 4 steps read zero past the end of the reduction (clamped addresses, then a select).
// Row 16 and column 8 keep the original nest.
// CHECK-LABEL: func.func @mm
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64, {{.*}}) {
// CHECK:           loop.for %[[TILE:.*]] = #map(%{{.*}}) to 1 step 2 {
// CHECK:             %[[SPLAT:.*]] = vector.from_elements %cst, %cst, %cst, %cst : vector<2x2xf32>
// CHECK:             %[[SLICES:.*]] = loop.for %{{.*}} = 0 to 16 step 16 iter_args(%[[ACC:.*]] = %[[SPLAT]]) -> (vector<2x2xf32>) {
// CHECK:               loop.load %arg0[(d0, d1, d2) -> (d0 + 8, d2 + 9)]
// CHECK-NEXT:          %[[A:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK:               loop.load %arg1[(d0, d1, d2) -> (d2 + 9, d1)]
// CHECK-NEXT:          %[[B:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-NEXT:          %[[D:.*]] = nvgpu.mma.sync(%[[A]], %[[B]], %[[ACC]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:          loop.yield %[[D]] : vector<2x2xf32>
// CHECK:             arith.cmpi ult
// CHECK:             arith.minui
// CHECK:             arith.select
// CHECK:             %[[LAST:.*]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[SLICES]])
// CHECK:             vector.extract %[[LAST]][0, 0] : f32 from vector<2x2xf32>
// CHECK:             vector.extract %[[LAST]][1, 1] : f32 from vector<2x2xf32>
// CHECK-NEXT:        loop.store %{{.*}}, %{{.*}}[(d0, d1) -> (d0 + 8, d1 + 1)]
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (16, 0) to (17, 9) {
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (16, 9) {
// ERR: loop-gpu-mma: needs warp-m and warp-n in [1, 8] and warps-per-block in [1, 32] (got warp-m=9, warp-n=8, warps-per-block=4)
func.func @mm(%arg0: memref<17x20xf16>, %arg1: memref<20x9xf16>) -> memref<17x9xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<17x9xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (17, 9) {
    %1 = loop.for %arg4 = 0 to 20 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<17x20xf16>
      %3 = arith.extf %2 : f16 to f32
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<20x9xf16>
      %5 = arith.extf %4 : f16 to f32
      %6 = arith.mulf %3, %5 : f32
      %7 = arith.addf %arg5, %6 : f32
      loop.yield %7 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<17x9xf32>
  }
  return %0 : memref<17x9xf32>
}

// -----

// f32 operands stay for the other GPU passes.
// CHECK-LABEL: func.func @f32_operands
// CHECK-NOT:     nvgpu.mma.sync
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (32, 32) {
func.func @f32_operands(%arg0: memref<32x16xf32>, %arg1: memref<16x32xf32>) -> memref<32x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<32x32xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (32, 32) {
    %1 = loop.for %arg4 = 0 to 16 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<32x16xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<16x32xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %arg5, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<32x32xf32>
  }
  return %0 : memref<32x32xf32>
}

// -----

// With a full 32x16 block tile (2x2 warps of one fragment each), the operands are staged:
// the block copies A's 32x32 and B's 32x16 tile into workgroup buffers padded by 8
// elements a row, and each warp loads its fragments with ldmatrix, twice per stage.
// A's rows are contiguous and a multiple of 8 elements, so each thread copies one
// 16-byte vector of it; B's 512 elements are too few for a vector per thread, so they go
// one by one. The loop carries the next stage's values: they are read from global memory
// before this stage's mma.syncs and stored into the tiles at the top of the next
// iteration (the last iteration rereads its own stage, minui).
// CHECK-LABEL: func.func @staged
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128, {{.*}}) workgroup(%[[AS:.*]] : memref<32x40xf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<32x24xf16, #gpu.address_space<workgroup>>) {
// CHECK:           %[[FIRST:.*]] = loop.vector_load %arg0[{{.*}}]({{.*}}) {alignment = 16 : i64} : memref<32x32xf16>, vector<8xf16>
// CHECK:           loop.for %{{.*}} = 0 to 32 step 32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[AV:.*]] = %[[FIRST]], {{.*}}) -> (vector<2x2xf32>, vector<8xf16>, f16, f16, f16, f16) {
// CHECK:             loop.vector_store %[[AV]], %[[AS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK:             loop.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}]
// CHECK:             gpu.barrier
// CHECK:             arith.minui
// CHECK:             %[[NEXT:.*]] = loop.vector_load %arg0
// CHECK:             %[[A:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK-NEXT:        %[[B:.*]] = nvgpu.ldmatrix %[[BS]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true}
// CHECK-NEXT:        %[[D:.*]] = nvgpu.mma.sync(%[[A]], %[[B]], %[[ACC]])
// CHECK:             nvgpu.ldmatrix
// CHECK:             nvgpu.mma.sync
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        loop.yield %{{.*}}, %[[NEXT]], {{.*}} : vector<2x2xf32>, vector<8xf16>, f16, f16, f16, f16
func.func @staged(%arg0: memref<32x32xf16>, %arg1: memref<32x16xf16>) -> memref<32x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<32x16xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (32, 16) {
    %1 = loop.for %arg4 = 0 to 32 iter_args(%arg5 = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<32x32xf16>
      %3 = arith.extf %2 : f16 to f32
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<32x16xf16>
      %5 = arith.extf %4 : f16 to f32
      %6 = arith.mulf %3, %5 : f32
      %7 = arith.addf %arg5, %6 : f32
      loop.yield %7 : f32
    }
    loop.store %1, %0[%arg2, %arg3] : memref<32x16xf32>
  }
  return %0 : memref<32x16xf32>
}
