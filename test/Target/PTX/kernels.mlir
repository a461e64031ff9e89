// RUN: tb-translate --emit=ptx --gpu-arch=sm_90 %s | FileCheck %s
// RUN: tb-translate --emit=ptx --gpu-arch=sm_80 %s | FileCheck %s --check-prefix=SM80
// RUN: tb-translate --emit=ptx --gpu-arch=sm_90 %s -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-translate --emit=ptx --gpu-arch=sm_80 %s -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas, libdevice

// Each launch is a kernel named after its function; buffers are its parameters, read
// through the global address space.
// CHECK: .target sm_90
// CHECK: .address_size 64
// SM80: .target sm_80

// CHECK-LABEL: .visible .entry ids_kernel_0(
// CHECK-NEXT:    .param .u64 .ptr .align 1 ids_kernel_0_param_0
// CHECK:         cvta.to.global.u64
// CHECK-DAG:     %ctaid.x
// CHECK-DAG:     %ntid.x
// CHECK-DAG:     %tid.x
// CHECK:         st.global.b32
func.func @ids(%out: memref<256xi32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %scaled = arith.muli %bx, %sx : index
    %id = arith.addi %scaled, %tx : index
    %v = arith.index_cast %id : index to i32
    loop.store %v, %out[%id] : memref<256xi32>
    gpu.terminator
  }
  return
}

// A barrier is `bar.sync 0`; a shuffle is `shfl.sync` with its lane mask and clamp.
// CHECK-LABEL: .visible .entry exchange_kernel_0(
// CHECK:         bar.sync 0;
// CHECK:         shfl.sync.bfly.b32
func.func @exchange(%buf: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = loop.load %buf[%tx] : memref<32xf32>
    gpu.barrier
    %one = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %r, %ok = gpu.shuffle xor %v, %one, %width : f32
    loop.store %r, %buf[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// Float math calls libdevice, which is linked in and inlined: no call remains.
// CHECK-LABEL: .visible .entry math_kernel_0(
// CHECK-NOT:     call
// CHECK:         ex2.approx
// CHECK:         ret;
func.func @math(%buf: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = loop.load %buf[%tx] : memref<32xf32>
    %e = math.exp %v : f32
    loop.store %e, %buf[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// Loops that are not mapped yet are mapped first (convert-loop-to-gpu): values the
// kernel uses from the function, such as views, are recomputed inside it.
// CHECK-LABEL: .visible .entry parallel_kernel_0(
// CHECK:         add.s64
// CHECK:         ret;
func.func @parallel(%arena: memref<64xi8>) -> memref<4x4xf32> {
  %out = loop.alloc() : memref<4x4xf32>
  %c0 = arith.constant 0 : index
  %view = memref.view %arena[%c0][] : memref<64xi8> to memref<4x4xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 4) {
    %x = loop.load %view[%i, %j] : memref<4x4xf32>
    %y = arith.addf %x, %x : f32
    loop.store %y, %out[%i, %j] : memref<4x4xf32>
  }
  return %out : memref<4x4xf32>
}
