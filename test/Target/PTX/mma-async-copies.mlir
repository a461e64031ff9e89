// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-gpu-mma{min-blocks=1}, plan-buffers, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tb-opt --pass-pipeline="builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-gpu-mma{min-blocks=1}, plan-buffers, convert-loop-to-gpu)" %s | tb-translate --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// REQUIRES: nvptx, ptxas

// The default staged kernel on a 128x256 by 256x128 f16 product: one 128x128 block tile
// of 2x2 warps, 64 reduction steps a stage, 3 stages in flight. The tiles (3 x 35,840
// bytes) live in dynamic shared memory. Each thread starts 16 copies of 16 bytes a stage
// (cp.async, bypassing L1) and closes them into a group: two stages before the loop, one
// in each iteration after waiting for the oldest group and a barrier. The rounding of
// the f32 sums to f16 is computed where each result is stored: one kernel, which
// stores f16.
// CHECK:          .extern .shared .align 16 .b8 mm_kernel_0_dynamic_shared[];
// CHECK-LABEL:    .visible .entry mm_kernel_0(
// CHECK-COUNT-16: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], 16;
// CHECK:          cp.async.commit_group;
// CHECK:          cp.async.wait_group 1;
// CHECK-NEXT:     bar.sync 0;
// CHECK:          cp.async.commit_group;
// CHECK:          ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:          mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:          cp.async.wait_group 0;
// CHECK:          cvt.rn.f16.f32
// CHECK:          st.global.b16
// CHECK-NOT:      .entry
func.func @mm(%a: tensor<128x256xf16>, %b: tensor<256x128xf16>) -> tensor<128x128xf16> {
  %0 = "graph.matmul"(%a, %b) : (tensor<128x256xf16>, tensor<256x128xf16>) -> tensor<128x128xf16>
  return %0 : tensor<128x128xf16>
}
