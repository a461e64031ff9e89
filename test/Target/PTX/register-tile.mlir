// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, loop-gpu-register-tile{tm=4 tn=4 min-threads=1}, plan-buffers, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, loop-gpu-register-tile{tm=4 tn=4 min-threads=1}, plan-buffers, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas, libdevice

// A 64x32 by 32x64 matmul with 4x4 register tiles: the tiled kernel's k loop loads 4
// values of A and 4 of B and does 16 fused multiply-adds, the sums held in registers.
// CHECK-LABEL: .visible .entry mm_kernel_0(
// CHECK-COUNT-8: ld.global.b32
// CHECK-COUNT-16: fma.rn.f32
func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %0 = "graph.matmul"(%a, %b) : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
