// RUN: tb-opt %s --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=2 nr=8 kc=4 vector=4})' | FileCheck %s

// The nest's schedule overrides the options: MR = 3 (tile of i), NR = 4 (tile of j),
// KC = 2 (tile of k), 2-wide vectors, B not packed: six accumulators of vector<2xf32>.
// The schedule is consumed; the two rows left over get a 2x4 block, and the peeled
// columns carry no schedule.
// CHECK-LABEL: func.func @scheduled
// CHECK-NOT:     loop.schedule
// CHECK:         loop.parallel (%{{.*}}) = (0) to (3) step (3) {
// CHECK:           loop.for %{{.*}} = 0 to 6 step 2 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 8 step 4 {
// CHECK:               loop.for %{{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>) {
// CHECK-COUNT-6:         loop.fma
// CHECK:         loop.parallel (%{{.*}}) = (3) to (5) step (2) {
// CHECK:               loop.for %{{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>) {
// CHECK-COUNT-4:         loop.fma
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (5, 10) {
func.func @scheduled(%arg0: memref<5x6xf32>, %arg1: memref<6x10xf32>) -> memref<5x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x10xf32>
  loop.parallel (%i, %j) = (0, 0) to (5, 10) attributes {loop.schedule = #loop.schedule<tiles = [[3], [4], [2]], vector = 2>} {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<5x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%i, %j, %k) : memref<6x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<5x10xf32>
  }
  return %0 : memref<5x10xf32>
}
