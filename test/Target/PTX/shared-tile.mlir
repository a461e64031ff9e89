// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-shared-tile{min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-shared-tile{min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas

// A 128x64 by 64x128 matmul in the default 64x64 tiles: 4 blocks of 256 threads, each
// with two 4 KiB tiles (16 steps of A and of B) in shared memory. A stage loads 4
// elements of each operand per thread into them, then each step of the inner loop reads
// 4 values of each tile and does 16 fused multiply-adds (LLVM unrolls it by 2).
// CHECK-LABEL: .visible .entry mm_kernel_0(
// CHECK-DAG:     .shared .align 16 .b8 mm_kernel_0_shared_0[4096];
// CHECK-DAG:     .shared .align 16 .b8 mm_kernel_0_shared_1[4096];
// CHECK-COUNT-8: st.shared.b32
// CHECK:         bar.sync 0;
// CHECK-COUNT-8: ld.shared.b32
// CHECK-COUNT-16: fma.rn.f32
// CHECK:         bar.sync 0;
func.func @mm(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %0 = "graph.matmul"(%a, %b) : (tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// The same product of f16 tensors: each element is widened to f32 once, as it is copied
// into its tile, and the sums are f32 as the te level computes them.
// CHECK-LABEL: .visible .entry mm16_kernel_0(
// CHECK:         ld.global.b16
// CHECK-NEXT:    cvt.f32.f16
// CHECK-NEXT:    st.shared.b32
// CHECK:         bar.sync 0;
// CHECK-COUNT-16: fma.rn.f32
func.func @mm16(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %0 = "graph.matmul"(%a, %b) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  return %0 : tensor<128x128xf16>
}
