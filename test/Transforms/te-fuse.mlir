// RUN: tb-opt %s --split-input-file --te-fuse | FileCheck %s
// RUN: tb-opt %s --split-input-file --te-fuse --convert-te-to-loop | FileCheck %s --check-prefix=LOOP

// An elementwise producer read one-to-one by a single consumer is inlined: its body
// replaces the read, and the consumer reads the producer's input instead.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK:         te.compute (%arg0) [{{.*}}] {
// CHECK-NEXT:      %[[X:.*]] = te.read %arg0[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[E]] : f32
// CHECK-NEXT:      te.yield %[[N]] : f32
// CHECK-NOT:     te.compute
// LOOP-LABEL: func.func @elementwise_chain
// LOOP:          loop.alloc
// LOOP-NOT:      loop.alloc
// LOOP:          return
func.func @elementwise_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %e = math.exp %v : f32
    te.yield %e : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = te.compute (%a) [%i, %j] {
    %v = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A transpose inlined into its consumer: the maps compose, (d1, d0) after (d0, d1).
// CHECK-LABEL: func.func @transpose_composes
// CHECK:         te.compute (%arg1, %arg0) [{{.*}}] {
// CHECK-DAG:       te.read %arg0[(d0, d1) -> (d1, d0)] : tensor<8x4xf32>
// CHECK-DAG:       te.read %arg1[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
// CHECK:           arith.addf
// CHECK-NOT:     te.compute
func.func @transpose_composes(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d1, d0)] : tensor<8x4xf32>
    te.yield %v : f32
  } : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %s = te.compute (%t, %y) [%i, %j] {
    %a = te.read %t[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %b = te.read %y[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %c = arith.addf %a, %b : f32
    te.yield %c : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A cheap producer read with reuse (a broadcast row) is recomputed in its consumer.
// CHECK-LABEL: func.func @broadcast_recomputed
// CHECK:         te.compute (%arg0, %arg1) [{{.*}}] {
// CHECK:           te.read %arg1[(d0, d1) -> (d1)] : tensor<8xf32>
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     te.compute
func.func @broadcast_recomputed(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %d = te.compute (%s) [%j] {
    %v = te.read %s[(d0) -> (d0)] : tensor<8xf32>
    %w = arith.mulf %v, %v : f32
    te.yield %w : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %y = te.compute (%x, %d) [%i, %j] {
    %a = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %b = te.read %d[(d0, d1) -> (d1)] : tensor<8xf32>
    %c = arith.addf %a, %b : f32
    te.yield %c : f32
  } : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A reduction's elementwise prologue moves into its body: the sum reads x, not exp(x).
// CHECK-LABEL: func.func @prologue_into_reduction
// CHECK:         te.compute (%arg0) [{{.*}}] reduce [{{.*}}] in [8] combiner = sum {
// CHECK-NEXT:      %[[X:.*]] = te.read %arg0[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      te.yield %[[E]] : f32
// CHECK-NOT:     te.compute
func.func @prologue_into_reduction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %r = math.exp %v : f32
    te.yield %r : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = te.compute (%e) [%i] reduce [%k] in [8] combiner = sum {
    %v = te.read %e[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// The elementwise op after a reduction (a mean's division) is recomputed in each kernel
// that reads it, here the sum of squared deviations, reading the row sum directly.
// CHECK-LABEL: func.func @epilogue_into_readers
// CHECK:         %[[SUM:.*]] = te.compute (%arg0) [{{.*}}] reduce [{{.*}}] in [8] combiner = sum {
// CHECK:         te.compute (%arg0, %[[SUM]]) [{{.*}}] reduce [{{.*}}] in [8] combiner = sum {
// CHECK:           te.read %[[SUM]][(d0, d1) -> (d0)] : tensor<4xf32>
// CHECK:           arith.divf
// CHECK:           arith.subf
// CHECK-NOT:     te.compute
func.func @epilogue_into_readers(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %sum = te.compute (%x) [%i] reduce [%k] in [8] combiner = sum {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %mean = te.compute (%sum) [%i] {
    %v = te.read %sum[(d0) -> (d0)] : tensor<4xf32>
    %n = arith.constant 8.0 : f32
    %m = arith.divf %v, %n : f32
    te.yield %m : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  %sq = te.compute (%x, %mean) [%i] reduce [%k] in [8] combiner = sum {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %m = te.read %mean[(d0, d1) -> (d0)] : tensor<4xf32>
    %d = arith.subf %v, %m : f32
    %p = arith.mulf %d, %d : f32
    te.yield %p : f32
  } : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %sq : tensor<4xf32>
}
