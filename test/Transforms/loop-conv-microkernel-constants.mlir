// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(loop-conv-microkernel{mr=3 nr=4 vector=4 threads=0}))' | FileCheck %s
// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(loop-conv-microkernel{mr=3 nr=4 vector=4 threads=0 pack-constants=false}))' | FileCheck %s --check-prefix=RUNTIME

// Constant weights W[co][c][kh][kw] are packed at compile time into the kernel's panels
// Wp[co / 4][c][kh][kw][0..4], a new constant global the kernel reads directly (no panel
// is allocated or filled at run time), and the weights' own global goes. Panel 0 holds
// the four output channels of input channel 0 (1, 3, 5, 7), then of channel 1 (2, 4, 6, 8).
// CHECK-NOT:     @__constant_4x2x1x1xf32 :
// CHECK:         memref.global "private" constant @__constant_4x2x1x1xf32_packed : memref<1x2x1x1x4xf32> = dense_resource<__constant_4x2x1x1xf32_packed> {alignment = 64 : i64}
// CHECK-LABEL: func.func @constant_weights
// CHECK:         %[[PANELS:.*]] = memref.get_global @__constant_4x2x1x1xf32_packed : memref<1x2x1x1x4xf32>
// CHECK-NOT:     loop.alloc() : memref<1x2x1x1x4xf32>
// CHECK:         loop.vector_load %[[PANELS]][(d0, d1, d2, d3) -> (d0 floordiv 4, d1, d2, d3, 0)]
// CHECK-COUNT-3: loop.fma
// CHECK:       __constant_4x2x1x1xf32_packed: "0x040000000000803F000040400000A0400000E04000000040000080400000C04000000041"
// Without pack-constants the weights are packed on every call.
// RUNTIME:       memref.global "private" constant @__constant_4x2x1x1xf32 :
// RUNTIME-LABEL: func.func @constant_weights
// RUNTIME:         %[[W:.*]] = memref.get_global @__constant_4x2x1x1xf32 : memref<4x2x1x1xf32>
// RUNTIME:         %[[PANELS:.*]] = loop.alloc() : memref<1x2x1x1x4xf32>
// RUNTIME:         loop.load %[[W]]
// RUNTIME-NEXT:    loop.store %{{.*}}, %[[PANELS]]
module {
  memref.global "private" constant @__constant_4x2x1x1xf32 : memref<4x2x1x1xf32> = dense<[[[[1.000000e+00]], [[2.000000e+00]]], [[[3.000000e+00]], [[4.000000e+00]]], [[[5.000000e+00]], [[6.000000e+00]]], [[[7.000000e+00]], [[8.000000e+00]]]]> {alignment = 64 : i64}
  func.func @constant_weights(%arg0: memref<1x2x3x3xf32>) -> memref<1x4x3x3xf32> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_4x2x1x1xf32 : memref<4x2x1x1xf32>
    %1 = loop.alloc() : memref<1x4x3x3xf32>
    loop.parallel (%arg1, %arg2, %arg3) = (0, 0, 0) to (4, 3, 3) {
      %2 = loop.for %arg4 = 0 to 2 iter_args(%arg5 = %cst) -> (f32) {
        %3 = loop.for %arg6 = 0 to 1 iter_args(%arg7 = %arg5) -> (f32) {
          %4 = loop.for %arg8 = 0 to 1 iter_args(%arg9 = %arg7) -> (f32) {
            %5 = loop.load %arg0[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)](%c0, %arg1, %arg2, %arg3, %arg4, %arg6, %arg8) : memref<1x2x3x3xf32>
            %6 = loop.load %0[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)](%c0, %arg1, %arg2, %arg3, %arg4, %arg6, %arg8) : memref<4x2x1x1xf32>
            %7 = arith.mulf %5, %6 : f32
            %8 = arith.addf %arg9, %7 : f32
            loop.yield %8 : f32
          }
          loop.yield %4 : f32
        }
        loop.yield %3 : f32
      }
      loop.store %2, %1[%c0, %arg1, %arg2, %arg3] : memref<1x4x3x3xf32>
    }
    return %1 : memref<1x4x3x3xf32>
  }
}

