// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-mma{stages=1 min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, plan-buffers, loop-gpu-mma{stages=1 min-blocks=1}, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas

// The staged kernel with one stage (copies through registers) on a 128x128 by 128x128
// f16 product: one 128x128 block tile of 2x2 warps, 64 reduction steps a stage. Both operands' rows are contiguous and a
// multiple of 8 elements, so each thread copies its share of a stage as 16-byte vectors:
// 8 of A's 128x64 tile and 8 of B's 64x128 one, read with ld.global.v4 and stored with
// st.shared.v4. The loads for the first stage come before the loop, the next stage's
// inside it, before the tensor-core instructions of this one.
// CHECK-LABEL: .visible .entry mm_kernel_0(
// CHECK-COUNT-16: ld.global.v4.{{[ub]}}32
// CHECK-COUNT-16: st.shared.v4.{{[ub]}}32
// CHECK-COUNT-16: ld.global.v4.{{[ub]}}32
// CHECK:          ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:          mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:          bar.sync 0;
// CHECK-NOT:      ld.global.u16
// CHECK-NOT:      ld.global.b16
// CHECK:          ret;
func.func @mm(%a: tensor<128x128xf16>, %b: tensor<128x128xf16>) -> tensor<128x128xf16> {
  %0 = "graph.matmul"(%a, %b) : (tensor<128x128xf16>, tensor<128x128xf16>) -> tensor<128x128xf16>
  return %0 : tensor<128x128xf16>
}
