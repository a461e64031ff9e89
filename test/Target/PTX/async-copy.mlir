// RUN: tb-translate --emit=ptx --gpu-arch=sm_80 %s -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tb-translate --emit=ptx --gpu-arch=sm_90 %s -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// REQUIRES: nvptx, ptxas

// Asynchronous copies become cp.async from the source element's global address to the
// destination's shared address: 16 bytes bypassing L1 (.cg), 8 bytes through it (.ca)
// with a source size read at run time that zero-fills the rest; the group is a commit_group and the wait
// a wait_group.
// CHECK-LABEL: .visible .entry copies_kernel_0(
// CHECK:         cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// CHECK:         cp.async.ca.shared.global [%rd{{[0-9]+}}+64], [%rd{{[0-9]+}}+64], 8, %r{{[0-9]+}};
// CHECK:         cp.async.commit_group;
// CHECK:         cp.async.wait_group {{[[:space:]]*}}1;
// CHECK:         bar.sync {{[[:space:]]*}}0;
// CHECK:         ld.shared
func.func @copies(%in: memref<64xf16>, %out: memref<64xf16>, %count: memref<i32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<64xf16, #gpu.address_space<workgroup>>) {
    %at = arith.muli %tx, %c8 : index
    %t = nvgpu.device_async_copy %in[%at], %tile[%at], 8 {bypassL1} : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    %at2 = arith.addi %at, %c32 : index
    %m = loop.load %count[] : memref<i32>
    %n = arith.index_cast %m : i32 to index
    %u = nvgpu.device_async_copy %in[%at2], %tile[%at2], 4, %n : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t, %u
    nvgpu.device_async_wait %g {numGroups = 1 : i32}
    gpu.barrier
    %v = loop.load %tile[%tx] : memref<64xf16, #gpu.address_space<workgroup>>
    loop.store %v, %out[%tx] : memref<64xf16>
    gpu.terminator
  }
  return
}
