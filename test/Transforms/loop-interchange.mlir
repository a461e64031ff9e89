// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(loop-interchange{permutation=2,0,1}))' | FileCheck %s

// New loop j runs what loop permutation[j] ran: k outermost, then i, then j.
// CHECK-LABEL: func.func @matmul
// CHECK:         loop.for %[[K:.*]] = 0 to 7 {
// CHECK-NEXT:      loop.for %[[I:.*]] = 0 to 13 {
// CHECK-NEXT:        loop.for %[[J:.*]] = 0 to 10 {
// CHECK-NEXT:          loop.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:          loop.load %{{.*}}[%[[K]], %[[J]]]
func.func @matmul(%a: memref<13x7xf32>, %b: memref<7x10xf32>, %c: memref<13x10xf32>) {
  loop.for %i = 0 to 13 {
    loop.for %j = 0 to 10 {
      loop.for %k = 0 to 7 {
        %x = loop.load %a[%i, %k] : memref<13x7xf32>
        %y = loop.load %b[%k, %j] : memref<7x10xf32>
        %z = loop.load %c[%i, %j] : memref<13x10xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        loop.store %s, %c[%i, %j] : memref<13x10xf32>
      }
    }
  }
  return
}
