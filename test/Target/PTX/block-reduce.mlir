// RUN: tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 | FileCheck %s
// RUN: tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas, libdevice

// A whole-tensor sum on one block of 256 threads: each warp's butterfly of shuffles,
// its value through a shared-memory buffer of 8 x 32 floats, a barrier on each side of
// the reads of the eight warps' values.
// CHECK-LABEL: .visible .entry total_kernel_0(
// CHECK:         .shared .align {{[0-9]+}} .b8 {{.*}}[1024];
// CHECK:         add.rn.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK:         st.shared.b32
// CHECK:         bar.sync 0;
// CHECK-COUNT-8: ld.shared.b32
// CHECK:         bar.sync 0;
// CHECK:         st.global.b32
func.func @total(%x: memref<100000xf32>) -> memref<f32> {
  %init = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<f32>
  loop.parallel (%i) = (0) to (1) {
    %s = loop.for %k = 0 to 100000 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%k] : memref<100000xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[] : memref<f32>
  }
  return %out : memref<f32>
}
