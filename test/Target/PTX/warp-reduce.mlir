// RUN: tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 | FileCheck %s
// RUN: tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas, libdevice

// A row sum mapped onto warps: each lane's strided loop, then a butterfly of five
// `shfl.sync.bfly` over all 32 lanes.
// CHECK-LABEL: .visible .entry row_sums_kernel_0(
// CHECK:         add.rn.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK:         st.global.b32
func.func @row_sums(%x: memref<48x1000xf32>) -> memref<48xf32> {
  %init = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<48xf32>
  loop.parallel (%i) = (0) to (48) {
    %s = loop.for %k = 0 to 1000 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<48x1000xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<48xf32>
  }
  return %out : memref<48xf32>
}
