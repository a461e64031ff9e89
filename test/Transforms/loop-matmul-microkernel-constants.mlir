// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(loop-matmul-microkernel{mr=2 nr=4 kc=1 vector=4}))' | FileCheck %s
// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(loop-matmul-microkernel{mr=2 nr=4 kc=1 vector=4 pack-constants=false}))' | FileCheck %s --check-prefix=RUNTIME

// A matmul whose B is a constant global: its 4-column panels over the whole reduction
// (panel[j / 4][k][0..4]) are a new constant global made at compile time, which the
// kernel reads directly; no panel is allocated or copied at run time, and B's own global
// goes, since every column is in a panel. Panel 0 holds B's columns 0..3 for k = 0 then
// k = 1 (1, 2, 3, 4, -1, -2, -3, -4), panel 1 columns 4..7.
// CHECK-NOT:     @__constant_2x8xf32 :
// CHECK:         memref.global "private" constant @__constant_2x8xf32_packed : memref<2x2x4xf32> = dense_resource<__constant_2x8xf32_packed> {alignment = 64 : i64}
// CHECK-NOT:     @__constant_2x8xf32 :
// CHECK-LABEL: func.func @constant_rhs
// CHECK:         %[[PANELS:.*]] = memref.get_global @__constant_2x8xf32_packed : memref<2x2x4xf32>
// CHECK-NOT:     loop.alloc() : memref<2x1x4xf32>
// CHECK:         loop.for %[[KB:.*]] = 0 to 2 {
// CHECK:           loop.parallel (%{{.*}}) = (0) to (2) step (2) {
// CHECK:             loop.for %[[JB:.*]] = #{{.*}} to #{{.*}} step 4 {
// CHECK:               loop.for %[[K:.*]] = #{{.*}}(%[[KB]]) to #{{.*}}(%[[KB]]) iter_args(
// CHECK:                 loop.vector_load %[[PANELS]][(d0, d1, d2) -> (d0 floordiv 4, d1, 0)](%[[JB]], %[[K]], %[[KB]]) : memref<2x2x4xf32>, vector<4xf32>
// CHECK-COUNT-2:         loop.fma
// CHECK:       __constant_2x8xf32_packed: "0x040000000000803F000000400000404000008040000080BF000000C0000040C0000080C00000A0400000C0400000E040000000410000A0C00000C0C00000E0C0000000C1"

// Without pack-constants the panels are copied from B on every call, one KC slice at a time.
// RUNTIME:       memref.global "private" constant @__constant_2x8xf32 :
// RUNTIME-LABEL: func.func @constant_rhs
// RUNTIME:         %[[B:.*]] = memref.get_global @__constant_2x8xf32 : memref<2x8xf32>
// RUNTIME:         %[[PANELS:.*]] = loop.alloc() : memref<2x1x4xf32>
// RUNTIME:         loop.vector_load %[[B]]
// RUNTIME-NEXT:    loop.vector_store %{{.*}}, %[[PANELS]]
module {
  memref.global "private" constant @__constant_2x8xf32 : memref<2x8xf32> = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [-1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00, -5.000000e+00, -6.000000e+00, -7.000000e+00, -8.000000e+00]]> {alignment = 64 : i64}
  func.func @constant_rhs(%arg0: memref<3x2xf32>) -> memref<3x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_2x8xf32 : memref<2x8xf32>
    %1 = loop.alloc() : memref<3x8xf32>
    loop.parallel (%arg1, %arg2) = (0, 0) to (3, 8) {
      %2 = loop.for %arg3 = 0 to 2 iter_args(%arg4 = %cst) -> (f32) {
        %3 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg1, %arg2, %arg3) : memref<3x2xf32>
        %4 = loop.load %0[(d0, d1, d2) -> (d2, d1)](%arg1, %arg2, %arg3) : memref<2x8xf32>
        %5 = arith.mulf %3, %4 : f32
        %6 = arith.addf %arg4, %5 : f32
        loop.yield %6 : f32
      }
      loop.store %2, %1[%arg1, %arg2] : memref<3x8xf32>
    }
    return %1 : memref<3x8xf32>
  }
}

