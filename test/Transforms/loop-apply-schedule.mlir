// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-apply-schedule))' | FileCheck %s

// Two tile levels on i, one on j, tile loops ordered j before i, j's outermost loop on
// threads, the innermost loop vectorized and unrolled; the schedule is consumed.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$I8:.*]] = affine_map<(d0) -> (60, d0 + 8)>
// CHECK-DAG: #[[$I2:.*]] = affine_map<(d0) -> (60, d0 + 2)>
// CHECK-DAG: #[[$J16:.*]] = affine_map<(d0) -> (d0 + 16)>
// CHECK-LABEL: func.func @two_levels
// CHECK-NOT:     loop.schedule
// CHECK:         loop.for %[[JT:.*]] = 0 to 64 step 16 parallel {
// CHECK-NEXT:      loop.for %[[IT:.*]] = 0 to 60 step 8 {
// CHECK-NEXT:        loop.for %[[IT2:.*]] = #[[$ID]](%[[IT]]) to min #[[$I8]](%[[IT]]) step 2 {
// CHECK-NEXT:          loop.for %[[J:.*]] = #[[$ID]](%[[JT]]) to #[[$J16]](%[[JT]]) {
// CHECK-NEXT:            loop.for %[[I:.*]] = #[[$ID]](%[[IT2]]) to min #[[$I2]](%[[IT2]]) unroll = 2 vectorize = 2 {
// CHECK-NEXT:              loop.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
func.func @two_levels(%m: memref<60x64xf32>) {
  %c = arith.constant 1.0 : f32
  loop.for %i = 0 to 60 attributes {loop.schedule = #loop.schedule<tiles = [[8, 2], [16]], order = [1, 0], parallel = [1], vector = 2, unroll = 2>} {
    loop.for %j = 0 to 64 {
      loop.store %c, %m[%i, %j] : memref<60x64xf32>
    }
  }
  return
}
