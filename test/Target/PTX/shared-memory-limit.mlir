// RUN: not tb-translate --emit=ptx %s 2>&1 | FileCheck %s
// RUN: sed 's/8192xf32/?xf32/' %s | not tb-translate --emit=ptx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// REQUIRES: nvptx

// Two buffers of 32 KiB: more static shared memory than a block has.
// A buffer whose size is known only at run time (the same function, sizes made dynamic):
// DYNAMIC: error: 'gpu.launch' op has a workgroup buffer of type memref<?xf32, #gpu.address_space<workgroup>> without a static shape: a kernel's shared memory is sized when it is compiled
// CHECK: error: 'gpu.launch' op needs 65536 bytes of workgroup buffers, more than the 49152 a block has
func.func @too_much_shared_memory() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<8192xf32, #gpu.address_space<workgroup>>, %b : memref<8192xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}
