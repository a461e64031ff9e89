// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-mma{warp-m=2 warp-n=4 stage-k=32 min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-mma{warp-m=2 warp-n=4 stage-k=32 min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// REQUIRES: nvptx, ptxas

// A 64x32 by 32x64 product of f16 matrices: one staged 64x64 block of 2x2 warps, each
// warp's 32x32 tile 2x4 fragments of C. After the block copies its tiles into shared
// memory, each 16-step slice of the reduction loads 2 fragments of A (ldmatrix x4) and 4
// of B (x2, transposed) and issues 8 tensor-core instructions.
// CHECK-LABEL: .visible .entry mm16_kernel_0(
// CHECK:         bar.sync 0;
// CHECK-DAG:     ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:     ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @mm16(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf16> {
  %0 = "graph.matmul"(%a, %b) : (tensor<64x32xf16>, tensor<32x64xf16>) -> tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

// The same on bf16, whose pairs the instruction takes as 32-bit words.
// CHECK-LABEL: .visible .entry mmbf16_kernel_0(
// CHECK-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @mmbf16(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) -> tensor<64x64xbf16> {
  %0 = "graph.matmul"(%a, %b) : (tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
