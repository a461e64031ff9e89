// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// MLIR 22 reads both forms and writes what tb-opt reads back the same way. (%mlir-diff
// does not apply: gpu.launch's custom form cannot carry its arguments' locations.)
// RUN: tb-opt %s | mlir-opt | tb-opt | FileCheck %s
// RUN: tb-opt --mlir-print-op-generic %s | mlir-opt --mlir-print-op-generic | tb-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// REQUIRES: mlir-opt

// The launch binds block ids, thread ids, grid and block sizes in MLIR's order.
// CHECK-LABEL: func.func @launch(%arg0: memref<64xf32>) {
// CHECK:         gpu.launch blocks(%arg1, %arg2, %arg3) in (%arg7 = %c2, %arg8 = %c1, %arg9 = %c1) threads(%arg4, %arg5, %arg6) in (%arg10 = %c32, %arg11 = %c1, %arg12 = %c1) {
// CHECK-NEXT:      %[[SCALED:.*]] = arith.muli %arg1, %arg10 : index
// CHECK-NEXT:      %[[ID:.*]] = arith.addi %[[SCALED]], %arg4 : index
// CHECK-NEXT:      memref.store %{{.*}}, %arg0[%[[ID]]] : memref<64xf32>
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "launch"
// GENERIC:         "gpu.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
// GENERIC-NEXT:    ^bb0({{(%arg[0-9]+: index, ){11}%arg[0-9]+: index}}):
// GENERIC:           "gpu.terminator"() : () -> ()
func.func @launch(%buf: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %scaled = arith.muli %bx, %sx : index
    %id = arith.addi %scaled, %tx : index
    memref.store %zero, %buf[%id] : memref<64xf32>
    gpu.terminator
  }
  return
}

// Dynamic shared memory follows the sizes.
// CHECK-LABEL: func.func @shared_memory(
// CHECK:         threads(%arg3, %arg4, %arg5) in (%arg9 = %c1, %arg10 = %c1, %arg11 = %c1) dynamic_shared_memory_size %c256_i32 {
func.func @shared_memory() {
  %c1 = arith.constant 1 : index
  %bytes = arith.constant 256 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    gpu.terminator
  }
  return
}

// Workgroup buffers follow the sizes, as body arguments after the twelve ids and sizes;
// MLIR counts them in a discardable attribute, which the custom form leaves out.
// CHECK-LABEL: func.func @workgroup_buffers(
// CHECK:         threads(%arg4, %arg5, %arg6) in (%arg10 = %c4, %arg11 = %c1, %arg12 = %c1) workgroup(%arg13 : memref<4x8xf32, #gpu.address_space<workgroup>>, %arg14 : memref<16xi32, 3>) {
// CHECK-NEXT:      %[[V:.*]] = memref.load %arg13[%arg4, %arg4] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      memref.store %[[V]], %arg0[%arg4] : memref<4xf32>
// GENERIC-LABEL: sym_name = "workgroup_buffers"
// GENERIC:         ^bb0({{(%arg[0-9]+: index, )+}}%arg{{[0-9]+}}: memref<4x8xf32, #gpu.address_space<workgroup>>, %arg{{[0-9]+}}: memref<16xi32, 3>):
// GENERIC:         }) {workgroup_attributions = 2 : i64} : (index, index, index, index, index, index) -> ()
func.func @workgroup_buffers(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4x8xf32, #gpu.address_space<workgroup>>, %counts : memref<16xi32, 3>) {
    %v = memref.load %tile[%tx, %tx] : memref<4x8xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @ids() -> (index, index, index, index) {
// CHECK-NEXT:    %0 = gpu.thread_id x
// CHECK-NEXT:    %1 = gpu.block_id y
// CHECK-NEXT:    %2 = gpu.block_dim z
// CHECK-NEXT:    %3 = gpu.grid_dim x upper_bound 128
// GENERIC-LABEL: sym_name = "ids"
// GENERIC:         "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// GENERIC:         "gpu.grid_dim"() <{dimension = #gpu<dim x>, upper_bound = 128 : index}> : () -> index
func.func @ids() -> (index, index, index, index) {
  %0 = gpu.thread_id x
  %1 = gpu.block_id y
  %2 = gpu.block_dim z
  %3 = gpu.grid_dim x upper_bound 128
  return %0, %1, %2, %3 : index, index, index, index
}

// CHECK-LABEL: func.func @barrier() {
// CHECK-NEXT:    gpu.barrier
func.func @barrier() {
  gpu.barrier
  return
}

// CHECK-LABEL: func.func @shuffles(%arg0: f32, %arg1: i32, %arg2: i32) -> (f32, i1, i32) {
// CHECK-NEXT:    %0:2 = gpu.shuffle xor %arg0, %arg1, %arg2 : f32
// CHECK-NEXT:    %1:2 = gpu.shuffle down %arg1, %arg1, %arg2 : i32
// GENERIC-LABEL: sym_name = "shuffles"
// GENERIC:         "gpu.shuffle"(%arg0, %arg1, %arg2) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (f32, i1)
func.func @shuffles(%v: f32, %offset: i32, %width: i32) -> (f32, i1, i32) {
  %r, %ok = gpu.shuffle xor %v, %offset, %width : f32
  %s, %ok2 = gpu.shuffle down %offset, %offset, %width : i32
  return %r, %ok, %s : f32, i1, i32
}
