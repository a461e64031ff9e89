// RUN: tb-translate --emit=ptx --gpu-arch=sm_90 %s -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=DYNAMIC < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-translate --emit=ptx --gpu-arch=sm_80 %s -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas

// A workgroup buffer is a `.shared` array of the kernel, 16-byte aligned; LLVM narrows
// the accesses through it to `st.shared`/`ld.shared`.
// CHECK-LABEL: .visible .entry reverse_kernel_0(
// CHECK:         .shared .align 16 .b8 reverse_kernel_0_shared_0[16];
// CHECK:         ld.global.b32
// CHECK:         st.shared.b32
// CHECK-NEXT:    bar.sync 0;
// CHECK:         ld.shared.b32
// CHECK:         st.global.b32
func.func @reverse(%in: memref<8xf32>, %out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4xf32, #gpu.address_space<workgroup>>) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = loop.load %in[%i] : memref<8xf32>
    loop.store %v, %tile[%tx] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c3 = arith.constant 3 : index
    %mirror = arith.subi %c3, %tx : index
    %w = loop.load %tile[%mirror] : memref<4xf32, #gpu.address_space<workgroup>>
    loop.store %w, %out[%i] : memref<8xf32>
    gpu.terminator
  }
  return
}

// Each buffer of a launch is an array of its own; NVVM's number for the space, 3, means
// the same as the named space.
// CHECK-LABEL: .visible .entry two_buffers_kernel_0(
// CHECK-DAG:     .shared .align 16 .b8 two_buffers_kernel_0_shared_0[256];
// CHECK-DAG:     .shared .align 16 .b8 two_buffers_kernel_0_shared_1[64];
func.func @two_buffers(%out: memref<16xi32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<4x16xf32, #gpu.address_space<workgroup>>, %b : memref<16xi32, 3>) {
    %id = arith.index_cast %tx : index to i32
    loop.store %id, %b[%tx] : memref<16xi32, 3>
    %f = arith.sitofp %id : i32 to f32
    %c0 = arith.constant 0 : index
    loop.store %f, %a[%c0, %tx] : memref<4x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c15 = arith.constant 15 : index
    %other = arith.subi %c15, %tx : index
    %v = loop.load %b[%other] : memref<16xi32, 3>
    %g = loop.load %a[%c0, %other] : memref<4x16xf32, #gpu.address_space<workgroup>>
    %h = arith.fptosi %g : f32 to i32
    %s = arith.addi %v, %h : i32
    loop.store %s, %out[%tx] : memref<16xi32>
    gpu.terminator
  }
  return
}

// Past 48 KiB, the buffers share the kernel's dynamic shared memory (sized at launch,
// 16-byte aligned offsets): the second buffer starts 65536 bytes in.
// DYNAMIC:       .extern .shared .align 16 .b8 large_kernel_0_dynamic_shared[];
// DYNAMIC-LABEL: .visible .entry large_kernel_0(
// DYNAMIC-NOT:     large_kernel_0_shared_
// DYNAMIC:         mov.b64 %rd{{[0-9]+}}, large_kernel_0_dynamic_shared;
// DYNAMIC:         st.shared.b32 [%rd{{[0-9]+}}+65536]
func.func @large(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>>, %b : memref<16xf32, #gpu.address_space<workgroup>>) {
    %v = loop.load %out[%tx] : memref<16xf32>
    loop.store %v, %a[%tx] : memref<16384xf32, #gpu.address_space<workgroup>>
    loop.store %v, %b[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = loop.load %b[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    %x = loop.load %a[%tx] : memref<16384xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %w, %x : f32
    loop.store %s, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}
