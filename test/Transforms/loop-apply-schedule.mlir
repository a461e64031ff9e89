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

// -----

// A nest as convert-te-to-loop writes it: the loop.parallel becomes loop.for tiles and
// points in the schedule's order (threads only on the dimension it lists), and the
// reduction loop, tiled
// in place, carries its accumulator from tile to tile inside the point loops.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$J4:.*]] = affine_map<(d0) -> (d0 + 4)>
// CHECK-DAG: #[[$K4:.*]] = affine_map<(d0) -> (10, d0 + 4)>
// CHECK-LABEL: func.func @parallel_with_reduction
// CHECK-NOT:     loop.parallel
// CHECK-NOT:     loop.schedule
// CHECK:         loop.for %[[J0:.*]] = 0 to 8 step 4 parallel {
// CHECK-NEXT:      loop.for %[[J:.*]] = #[[$ID]](%[[J0]]) to #[[$J4]](%[[J0]]) {
// CHECK-NEXT:        loop.for %[[I:.*]] = 0 to 6 {
// CHECK-NEXT:          %[[SUM:.*]] = loop.for %[[K0:.*]] = 0 to 10 step 4 iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:            %[[PART:.*]] = loop.for %[[K:.*]] = #[[$ID]](%[[K0]]) to min #[[$K4]](%[[K0]]) iter_args(%[[ACC:.*]] = %[[A]]) -> (f32) unroll = 2 {
// CHECK-NEXT:              loop.load %{{.*}}[%[[I]], %[[K]]]
// CHECK:                   loop.yield
// CHECK-NEXT:            }
// CHECK-NEXT:            loop.yield %[[PART]] : f32
// CHECK-NEXT:          }
// CHECK-NEXT:          loop.store %[[SUM]], %{{.*}}[%[[I]], %[[J]]]
func.func @parallel_with_reduction(%a: memref<6x10xf32>, %b: memref<10x8xf32>, %c: memref<6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (6, 8) attributes {loop.schedule = #loop.schedule<tiles = [[], [4], [4]], order = [1, 0, 2], parallel = [1], unroll = 2>} {
    %s = loop.for %k = 0 to 10 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<6x10xf32>
      %y = loop.load %b[%k, %j] : memref<10x8xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i, %j] : memref<6x8xf32>
  }
  return
}

// -----

// Elementwise: the innermost loop is vectorized; no dimension on threads, so none is
// marked parallel.
// CHECK-LABEL: func.func @elementwise_vector
// CHECK:         loop.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      loop.for %[[J:.*]] = 0 to 16 vectorize = 8 {
// CHECK-NEXT:        loop.load
func.func @elementwise_vector(%a: memref<3x16xf32>, %c: memref<3x16xf32>) {
  loop.parallel (%i, %j) = (0, 0) to (3, 16) attributes {loop.schedule = #loop.schedule<tiles = [[], []], vector = 8>} {
    %x = loop.load %a[%i, %j] : memref<3x16xf32>
    %y = arith.negf %x : f32
    loop.store %y, %c[%i, %j] : memref<3x16xf32>
  }
  return
}

// -----

// A rank-0 result: the reduction chain alone, the inner loop tiled; the untiled outer
// loop keeps its place and loses the schedule.
// CHECK-LABEL: func.func @reduction_only
// CHECK-NOT:     loop.schedule
// CHECK:         %[[R:.*]] = loop.for %{{.*}} = 0 to 4 iter_args(%[[O:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[T:.*]] = loop.for %{{.*}} = 0 to 8 step 2 iter_args(%[[A:.*]] = %[[O]]) -> (f32) {
// CHECK-NEXT:        %[[P:.*]] = loop.for %{{.*}} = #{{.*}}(%{{.*}}) to #{{.*}}(%{{.*}}) iter_args(%{{.*}} = %[[A]]) -> (f32) {
// CHECK:             loop.yield %[[P]] : f32
// CHECK:           loop.yield %[[T]] : f32
// CHECK:         loop.store %[[R]]
func.func @reduction_only(%a: memref<4x8xf32>, %out: memref<f32>) {
  %init = arith.constant 0xFF800000 : f32
  %m = loop.for %i = 0 to 4 iter_args(%outer = %init) -> (f32) attributes {loop.schedule = #loop.schedule<tiles = [[], [2]]>} {
    %row = loop.for %j = 0 to 8 iter_args(%acc = %outer) -> (f32) {
      %x = loop.load %a[%i, %j] : memref<4x8xf32>
      %r = arith.maximumf %acc, %x : f32
      loop.yield %r : f32
    }
    loop.yield %row : f32
  }
  loop.store %m, %out[] : memref<f32>
  return
}

// -----

// A vector width in a nest with a reduction marks the innermost reduction loop: the
// reduction is combined in 4 interleaved partial sums; the spatial loop stays scalar.
// CHECK-LABEL: func.func @vector_reduction
// CHECK:         loop.for %{{.*}} = 0 to 4 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 8 iter_args(%{{.*}} = %{{.*}}) -> (f32) vectorize = 4 {
func.func @vector_reduction(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i) = (0) to (4) attributes {loop.schedule = #loop.schedule<tiles = [[], []], vector = 4>} {
    %s = loop.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<4x8xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i] : memref<4xf32>
  }
  return
}
