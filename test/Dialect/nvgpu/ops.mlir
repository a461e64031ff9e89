// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// MLIR 22 reads both forms and writes what tb-opt reads back the same way.
// RUN: tb-opt %s | mlir-opt | tb-opt | FileCheck %s
// RUN: tb-opt --mlir-print-op-generic %s | mlir-opt --mlir-print-op-generic | tb-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// REQUIRES: mlir-opt

// A warp's 16x8x16 product on f16 and on bf16 fragments, with f32 accumulators.
// CHECK-LABEL: func.func @mma(
// CHECK-NEXT:    %0 = nvgpu.mma.sync(%arg0, %arg1, %arg2) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:    %1 = nvgpu.mma.sync(%arg3, %arg4, %0) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// GENERIC-LABEL: sym_name = "mma"
// GENERIC:         "nvgpu.mma.sync"(%{{.*}}, %{{.*}}, %{{.*}}) <{mmaShape = [16, 8, 16]}> : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %a16: vector<4x2xbf16>, %b16: vector<2x2xbf16>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  %e = nvgpu.mma.sync (%a16, %b16, %d) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %e : vector<2x2xf32>
}

// A warp's load of four 8x8 matrices, and of two transposed ones, from shared memory.
// CHECK-LABEL: func.func @ldmatrix(
// CHECK-NEXT:    %0 = nvgpu.ldmatrix %arg0[%arg1, %arg2] {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    %1 = nvgpu.ldmatrix %arg3[%arg1, %arg2] {numTiles = 2 : i32, transpose = true} : memref<32x72xbf16, 3> -> vector<2x2xbf16>
// GENERIC-LABEL: sym_name = "ldmatrix"
// GENERIC:         "nvgpu.ldmatrix"(%{{.*}}, %{{.*}}, %{{.*}}) <{numTiles = 4 : i32, transpose = false}> : (memref<64x40xf16, #gpu.address_space<workgroup>>, index, index) -> vector<4x2xf16>
func.func @ldmatrix(%a: memref<64x40xf16, #gpu.address_space<workgroup>>, %i: index, %j: index, %b: memref<32x72xbf16, 3>) -> (vector<4x2xf16>, vector<2x2xbf16>) {
  %x = nvgpu.ldmatrix %a[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %y = nvgpu.ldmatrix %b[%i, %j] {numTiles = 2 : i32, transpose = true} : memref<32x72xbf16, 3> -> vector<2x2xbf16>
  return %x, %y : vector<4x2xf16>, vector<2x2xbf16>
}

// Asynchronous copies into a workgroup buffer: 16 bytes bypassing L1, 8 bytes of which
// only %n elements are read (the rest zero-filled); a group closes them and the wait
// leaves at most one group in flight, then none.
// CHECK-LABEL: func.func @async_copies(
// CHECK-NEXT:    %0 = nvgpu.device_async_copy %arg0[%arg2, %arg2], %arg1[%arg2, %arg2, %arg2], 8 {bypassL1} : memref<128x128xf16> to memref<3x16x72xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %1 = nvgpu.device_async_copy %arg0[%arg2, %arg2], %arg1[%arg2, %arg2, %arg2], 4, %arg3 : memref<128x128xf16> to memref<3x16x72xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %2 = nvgpu.device_async_create_group %0, %1
// CHECK-NEXT:    nvgpu.device_async_wait %2 {numGroups = 1 : i32}
// CHECK-NEXT:    nvgpu.device_async_wait %2
// GENERIC-LABEL: sym_name = "async_copies"
// GENERIC:         "nvgpu.device_async_copy"(%arg1, %arg2, %arg2, %arg2, %arg0, %arg2, %arg2) <{bypassL1, dstElements = 8 : index, operandSegmentSizes = array<i32: 1, 3, 1, 2, 0>}> : (memref<3x16x72xf16, #gpu.address_space<workgroup>>, index, index, index, memref<128x128xf16>, index, index) -> !nvgpu.device.async.token
// GENERIC:         "nvgpu.device_async_create_group"(%{{.*}}, %{{.*}}) : (!nvgpu.device.async.token, !nvgpu.device.async.token) -> !nvgpu.device.async.token
// GENERIC:         "nvgpu.device_async_wait"(%{{.*}}) <{numGroups = 1 : i32}> : (!nvgpu.device.async.token) -> ()
func.func @async_copies(%src: memref<128x128xf16>, %dst: memref<3x16x72xf16, #gpu.address_space<workgroup>>, %i: index, %n: index) {
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i, %i], 8 {bypassL1} : memref<128x128xf16> to memref<3x16x72xf16, #gpu.address_space<workgroup>>
  %u = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i, %i], 4, %n : memref<128x128xf16> to memref<3x16x72xf16, #gpu.address_space<workgroup>>
  %g = nvgpu.device_async_create_group %t, %u
  nvgpu.device_async_wait %g {numGroups = 1 : i32}
  nvgpu.device_async_wait %g
  return
}
