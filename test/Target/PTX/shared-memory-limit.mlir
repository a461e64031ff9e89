// RUN: not tb-translate --emit=ptx --gpu-arch=sm_90 %s 2>&1 | FileCheck %s
// RUN: sed 's/32768xf32/21504xf32/g' %s | not tb-translate --emit=ptx --gpu-arch=sm_80 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: sed 's/32768xf32/?xf32/g' %s | not tb-translate --emit=ptx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// REQUIRES: nvptx

// Two buffers of 128 KiB: more shared memory than a block of sm_90 has (227 KiB).
// CHECK: error: 'gpu.launch' op needs 262144 bytes of workgroup buffers, more than the 232448 a block has on sm_90
// Two of 84 KiB: more than a block of sm_80 has (163 KiB).
// SM80: error: 'gpu.launch' op needs 172032 bytes of workgroup buffers, more than the 166912 a block has on sm_80
// A buffer whose size is known only at run time (the same function, sizes made dynamic):
// DYNAMIC: error: 'gpu.launch' op has a workgroup buffer of type memref<?xf32, #gpu.address_space<workgroup>> without a static shape: a kernel's shared memory is sized when it is compiled
func.func @too_much_shared_memory() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<32768xf32, #gpu.address_space<workgroup>>, %b : memref<32768xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}
