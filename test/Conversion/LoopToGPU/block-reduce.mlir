// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu{block-size=128})" %s | FileCheck %s
// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu{block-size=128 block-reduce-min=0})" %s | FileCheck %s --check-prefix=OFF

// One output, a long reduction: the output takes a whole block. Thread t folds elements
// t, t + 128, ... from the identity; each warp combines its lanes with five xor shuffles;
// every lane writes its warp's value into its own element of the workgroup buffer
// partials[4][32]; after a barrier each thread folds the four warps' values
// (partials[w][0]) in order, a second barrier keeps the next output's writes behind
// those reads, and the initial value comes last.
// CHECK-LABEL: func.func @total(
// CHECK:         %[[INIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) workgroup(%[[PARTIALS:.*]] : memref<4x32xf32, #gpu.address_space<workgroup>>) {
// CHECK:           loop.for %{{.*}} = #{{.*}}(%[[BX]]) to 1 {
// CHECK:             %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             %[[PART:.*]] = loop.for %{{.*}} = #{{.*}}(%[[TX]]) to 100000 step 128 iter_args(%{{.*}} = %[[ZERO]]) -> (f32) {
// CHECK-COUNT-5:     gpu.shuffle xor
// CHECK:             %[[WARPV:.*]] = arith.addf
// CHECK:             %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:        %[[WARP:.*]] = arith.divui %[[TX]], %[[C32]] : index
// CHECK-NEXT:        %[[LANE:.*]] = arith.remui %[[TX]], %[[C32]] : index
// CHECK-NEXT:        loop.store %[[WARPV]], %[[PARTIALS]][%[[WARP]], %[[LANE]]]
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[W0:.*]] = loop.load %[[PARTIALS]][() -> (0, 0)]()
// CHECK-NEXT:        %[[S0:.*]] = arith.addf %[[ID]], %[[W0]] : f32
// CHECK-NEXT:        %[[W1:.*]] = loop.load %[[PARTIALS]][() -> (1, 0)]()
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[S0]], %[[W1]] : f32
// CHECK-NEXT:        %[[W2:.*]] = loop.load %[[PARTIALS]][() -> (2, 0)]()
// CHECK-NEXT:        %[[S2:.*]] = arith.addf %[[S1]], %[[W2]] : f32
// CHECK-NEXT:        %[[W3:.*]] = loop.load %[[PARTIALS]][() -> (3, 0)]()
// CHECK-NEXT:        %[[S3:.*]] = arith.addf %[[S2]], %[[W3]] : f32
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        %[[ALL:.*]] = arith.addf %[[INIT]], %[[S3]] : f32
// CHECK-NEXT:        loop.store %[[ALL]], %{{.*}}[]
// Turned off, the output takes a warp.
// OFF-LABEL: func.func @total(
// OFF-NOT:     gpu.barrier
// OFF:         gpu.shuffle xor
// OFF-NOT:     gpu.barrier
func.func @total(%x: memref<100000xf32>) -> memref<f32> {
  %init = arith.constant 1.0 : f32
  %out = loop.alloc() : memref<f32>
  loop.parallel (%i) = (0) to (1) {
    %s = loop.for %k = 0 to 100000 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%k] : memref<100000xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[] : memref<f32>
  }
  return %out : memref<f32>
}

// -----

// Two reductions in one body (a row's max, then its sum of exp(x - max)): each has its
// own workgroup buffer, and the second starts after the first's barriers. Integer max
// reductions start from the smallest i32.
// CHECK-LABEL: func.func @two(
// CHECK:         workgroup(%[[P0:.*]] : memref<4x32xf32, #gpu.address_space<workgroup>>, %[[P1:.*]] : memref<4x32xf32, #gpu.address_space<workgroup>>)
// CHECK:           arith.maximumf
// CHECK:           loop.store %{{.*}}, %[[P0]]
// CHECK-COUNT-2:   gpu.barrier
// CHECK:           math.exp
// CHECK:           loop.store %{{.*}}, %[[P1]]
// CHECK-COUNT-2:   gpu.barrier
// CHECK-LABEL: func.func @ints(
// CHECK:         workgroup(%[[PI:.*]] : memref<4x32xi32, #gpu.address_space<workgroup>>)
// CHECK:           %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:           loop.for {{.*}} iter_args(%{{.*}} = %[[MIN]]) -> (i32)
// CHECK:           arith.maxsi
func.func @two(%x: memref<3x5000xf32>) -> memref<3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<3xf32>
  loop.parallel (%i) = (0) to (3) {
    %m = loop.for %k = 0 to 5000 iter_args(%acc = %ninf) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<3x5000xf32>
      %n = arith.maximumf %acc, %v : f32
      loop.yield %n : f32
    }
    %s = loop.for %k = 0 to 5000 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<3x5000xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %n = arith.addf %acc, %e : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<3xf32>
  }
  return %out : memref<3xf32>
}

func.func @ints(%x: memref<4096xi32>, %init: i32) -> memref<i32> {
  %out = loop.alloc() : memref<i32>
  loop.parallel (%i) = (0) to (1) {
    %s = loop.for %k = 0 to 4096 iter_args(%acc = %init) -> (i32) {
      %v = loop.load %x[%k] : memref<4096xi32>
      %n = arith.maxsi %acc, %v : i32
      loop.yield %n : i32
    }
    loop.store %s, %out[] : memref<i32>
  }
  return %out : memref<i32>
}
