// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(loop-tile{sizes=4,3,2}))' | FileCheck %s

// Tiles that do not divide their loops leave a partial last tile: each point loop ends
// at the smaller of its tile's end and the loop's.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$I:.*]] = affine_map<(d0) -> (13, d0 + 4)>
// CHECK-DAG: #[[$J:.*]] = affine_map<(d0) -> (10, d0 + 3)>
// CHECK-DAG: #[[$K:.*]] = affine_map<(d0) -> (7, d0 + 2)>
// CHECK-LABEL: func.func @partial_tiles
// CHECK:         loop.for %[[IT:.*]] = 0 to 13 step 4 {
// CHECK-NEXT:      loop.for %[[JT:.*]] = 0 to 10 step 3 {
// CHECK-NEXT:        loop.for %[[KT:.*]] = 0 to 7 step 2 {
// CHECK-NEXT:          loop.for %[[I:.*]] = #[[$ID]](%[[IT]]) to min #[[$I]](%[[IT]]) {
// CHECK-NEXT:            loop.for %[[J:.*]] = #[[$ID]](%[[JT]]) to min #[[$J]](%[[JT]]) {
// CHECK-NEXT:              loop.for %[[K:.*]] = #[[$ID]](%[[KT]]) to min #[[$K]](%[[KT]]) {
// CHECK-NEXT:                loop.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:                loop.load %{{.*}}[%[[K]], %[[J]]]
func.func @partial_tiles(%a: memref<13x7xf32>, %b: memref<7x10xf32>, %c: memref<13x10xf32>) {
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

// -----

// Tiles that divide their loops need no min.
// CHECK-DAG: #[[$P4:.*]] = affine_map<(d0) -> (d0 + 4)>
// CHECK-DAG: #[[$P3:.*]] = affine_map<(d0) -> (d0 + 3)>
// CHECK-DAG: #[[$P2:.*]] = affine_map<(d0) -> (d0 + 2)>
// CHECK-LABEL: func.func @whole_tiles
// CHECK:         loop.for %[[IT:.*]] = 0 to 8 step 4 {
// CHECK:         loop.for %{{.*}} = #{{.*}}(%[[IT]]) to #[[$P4]](%[[IT]]) {
// CHECK-NOT:     min
func.func @whole_tiles(%c: memref<8x6x4xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 8 {
    loop.for %j = 0 to 6 {
      loop.for %k = 0 to 4 {
        loop.store %one, %c[%i, %j, %k] : memref<8x6x4xf32>
      }
    }
  }
  return
}

// -----

// A band that carries values is left as it is.
// CHECK-LABEL: func.func @carrying
// CHECK:         loop.for %{{.*}} = 0 to 16 iter_args
// CHECK-NOT:     step
func.func @carrying(%a: memref<16xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %s = loop.for %i = 0 to 16 iter_args(%acc = %zero) -> (f32) {
    %x = loop.load %a[%i] : memref<16xf32>
    %n = arith.addf %acc, %x : f32
    loop.yield %n : f32
  }
  return %s : f32
}
