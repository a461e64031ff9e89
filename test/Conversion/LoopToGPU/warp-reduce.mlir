// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | FileCheck %s
// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu{warp-reduce-min=0})" %s | FileCheck %s --check-prefix=OFF

// A long reduction runs one output per warp: lane l folds elements l, l + 32, ... from
// the identity, five xor shuffles combine the lanes, and the initial value comes last.
// CHECK-LABEL: func.func @row_sums(
// CHECK:         %[[INIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BS:.*]] = %[[BLOCK]], %{{.*}}, %{{.*}}) {
// CHECK:           %[[GLOBAL:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK:           %[[C32:.*]] = arith.constant 32 : index
// CHECK:           %[[WARP:.*]] = arith.divui %[[GLOBAL]], %[[C32]] : index
// CHECK:           %[[LANE:.*]] = arith.remui %[[TX]], %[[C32]] : index
// CHECK:           loop.for %[[ROW:.*]] = #{{.*}}(%[[WARP]]) to 48 step 48 {
// CHECK:             %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             %[[PART:.*]] = loop.for %[[K:.*]] = #{{.*}}(%[[LANE]]) to 1000 step 32 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:               loop.load %{{.*}}[%[[ROW]], %[[K]]]
// CHECK:             %[[S16:.*]]:2 = gpu.shuffle xor %[[PART]], %{{.*}}, %{{.*}} : f32
// CHECK:             %[[A16:.*]] = arith.addf %[[PART]], %[[S16]]#0 : f32
// CHECK-COUNT-4:     gpu.shuffle xor
// CHECK:             %[[ALL:.*]] = arith.addf %[[INIT]], %{{.*}} : f32
// CHECK:             loop.store %[[ALL]], %{{.*}}[%[[ROW]]]
// OFF-LABEL: func.func @row_sums(
// OFF-NOT:     gpu.shuffle
func.func @row_sums(%x: memref<48x1000xf32>) -> memref<48xf32> {
  %init = arith.constant 1.0 : f32
  %out = loop.alloc() : memref<48xf32>
  loop.parallel (%i) = (0) to (48) {
    %s = loop.for %k = 0 to 1000 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<48x1000xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<48xf32>
  }
  return %out : memref<48xf32>
}

// -----

// Max reductions start each lane from -inf and combine with maximumf.
// CHECK-LABEL: func.func @row_max(
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:         loop.for %{{.*}} step 32 iter_args
// CHECK:           arith.maximumf
// CHECK:         gpu.shuffle xor
// CHECK:         arith.maximumf
func.func @row_max(%x: memref<8x256xf32>, %init: f32) -> memref<8xf32> {
  %out = loop.alloc() : memref<8xf32>
  loop.parallel (%i) = (0) to (8) {
    %s = loop.for %k = 0 to 256 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<8x256xf32>
      %n = arith.maximumf %v, %acc : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<8xf32>
  }
  return %out : memref<8xf32>
}

// -----

// Short reductions stay one output per thread.
// CHECK-LABEL: func.func @short_rows(
// CHECK-NOT:     gpu.shuffle
// CHECK:         loop.for %{{.*}} = 0 to 16 iter_args
func.func @short_rows(%x: memref<8x16xf32>) -> memref<8xf32> {
  %init = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<8xf32>
  loop.parallel (%i) = (0) to (8) {
    %s = loop.for %k = 0 to 16 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<8x16xf32>
      %n = arith.addf %acc, %v : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<8xf32>
  }
  return %out : memref<8xf32>
}

// -----

// A reduction that stores inside its loop is not reordered.
// CHECK-LABEL: func.func @stores_inside(
// CHECK-NOT:     gpu.shuffle
func.func @stores_inside(%x: memref<8x128xf32>, %log: memref<8x128xf32>) -> memref<8xf32> {
  %init = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<8xf32>
  loop.parallel (%i) = (0) to (8) {
    %s = loop.for %k = 0 to 128 iter_args(%acc = %init) -> (f32) {
      %v = loop.load %x[%i, %k] : memref<8x128xf32>
      %n = arith.addf %acc, %v : f32
      loop.store %n, %log[%i, %k] : memref<8x128xf32>
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<8xf32>
  }
  return %out : memref<8xf32>
}

// -----

// f64 values cannot be shuffled as one 32-bit register: one output per thread.
// CHECK-LABEL: func.func @doubles(
// CHECK-NOT:     gpu.shuffle
func.func @doubles(%x: memref<8x128xf64>) -> memref<8xf64> {
  %init = arith.constant 0.0 : f64
  %out = loop.alloc() : memref<8xf64>
  loop.parallel (%i) = (0) to (8) {
    %s = loop.for %k = 0 to 128 iter_args(%acc = %init) -> (f64) {
      %v = loop.load %x[%i, %k] : memref<8x128xf64>
      %n = arith.addf %acc, %v : f64
      loop.yield %n : f64
    }
    loop.store %s, %out[%i] : memref<8xf64>
  }
  return %out : memref<8xf64>
}
