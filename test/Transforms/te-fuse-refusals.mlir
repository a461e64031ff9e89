// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(te-fuse{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tb-opt %s --split-input-file --te-fuse | FileCheck %s

// Each case keeps a producer as its own kernel; the remark at the producer says why.

// The operands of a contraction stay materialized (reuse across its result points, and
// the matmul nest stays as the micro-kernel scheduler expects it).
// REMARK: te-fuse-refusals.mlir:[[@LINE+5]]:{{[0-9]+}}: remark: te.compute not fused: the consumer is a contraction (fuse-into-contractions=false keeps its operands materialized)
// REMARK: te-fuse-refusals.mlir:[[@LINE+10]]:{{[0-9]+}}: note: consumer here
// CHECK-LABEL: func.func @matmul_operand
// CHECK-COUNT-2: te.compute
func.func @matmul_operand(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %r = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x16xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  } : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = te.compute (%r, %w) [%i, %j] reduce [%k] in [16] combiner = sum {
    %a = te.read %r[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
    %b = te.read %w[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A reduction is not recomputed inside its consumer.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: it reduces, so its elements exist only after its reduction loops
// CHECK-LABEL: func.func @reduction_producer
// CHECK-COUNT-2: te.compute
func.func @reduction_producer(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = te.compute (%x) [%i] reduce [%k] in [8] combiner = max {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %e = te.compute (%s) [%i] {
    %v = te.read %s[(d0) -> (d0)] : tensor<4xf32>
    %r = math.exp %v : f32
    te.yield %r : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// A padded read yields the padding outside the producer; the producer's body would not.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: the consumer reads it with padding
// CHECK-LABEL: func.func @padded_read
// CHECK-COUNT-2: te.compute
func.func @padded_read(%x: tensor<8xf32>) -> tensor<10xf32> {
  %n = te.compute (%x) [%i] {
    %v = te.read %x[(d0) -> (d0)] : tensor<8xf32>
    %r = arith.negf %v : f32
    te.yield %r : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %p = te.compute (%n) [%i] {
    %v = te.read %n[(d0) -> (d0 - 1)] {padding = 0.0 : f32} : tensor<8xf32>
    te.yield %v : f32
  } : (tensor<8xf32>) -> tensor<10xf32>
  return %p : tensor<10xf32>
}

// -----

// Recomputing three exponentials in a second consumer costs more than the limit.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: recomputing it in its consumers costs 24 extra flops per element (max-recompute-flops=16)
// CHECK-LABEL: func.func @recompute_over_limit
// CHECK-COUNT-3: te.compute
func.func @recompute_over_limit(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = te.compute (%x) [%i] {
    %v = te.read %x[(d0) -> (d0)] : tensor<8xf32>
    %a = math.exp %v : f32
    %b = math.exp %a : f32
    %c = math.exp %b : f32
    te.yield %c : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %p = te.compute (%e) [%i] {
    %v = te.read %e[(d0) -> (d0)] : tensor<8xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %q = te.compute (%e) [%i] {
    %v = te.read %e[(d0) -> (d0)] : tensor<8xf32>
    %n = arith.mulf %v, %v : f32
    te.yield %n : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %p, %q : tensor<8xf32>, tensor<8xf32>
}

// -----

// A result the function returns stays materialized.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: its result is used outside te.compute by 'func.return'
// CHECK-LABEL: func.func @returned_producer
// CHECK-COUNT-2: te.compute
func.func @returned_producer(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = te.compute (%x) [%i] {
    %v = te.read %x[(d0) -> (d0)] : tensor<8xf32>
    %r = arith.negf %v : f32
    te.yield %r : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %m = te.compute (%n) [%i] {
    %v = te.read %n[(d0) -> (d0)] : tensor<8xf32>
    %r = arith.mulf %v, %v : f32
    te.yield %r : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %n, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// A body that uses its indices as values cannot be re-indexed by composing maps.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: its body uses its indices as values
// CHECK-LABEL: func.func @indices_as_values
// CHECK-COUNT-2: te.compute
func.func @indices_as_values(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = te.compute () [%i] {
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    te.yield %f : f32
  } : () -> tensor<8xf32>
  %s = te.compute (%r, %x) [%i] {
    %a = te.read %r[(d0) -> (d0)] : tensor<8xf32>
    %b = te.read %x[(d0) -> (d0)] : tensor<8xf32>
    %c = arith.addf %a, %b : f32
    te.yield %c : f32
  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A per-channel scale (a square root and a division) broadcast over every pixel would be
// recomputed at each of them: 35 extra evaluations per element.
// REMARK: te-fuse-refusals.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: te.compute not fused: recomputing it in its consumers costs 350 extra flops per element (max-recompute-flops=16)
// CHECK-LABEL: func.func @broadcast_too_costly
// CHECK-COUNT-2: te.compute
func.func @broadcast_too_costly(%x: tensor<4x36xf32>, %v: tensor<4xf32>) -> tensor<4x36xf32> {
  %s = te.compute (%v) [%c] {
    %a = te.read %v[(d0) -> (d0)] : tensor<4xf32>
    %r = math.sqrt %a : f32
    %d = arith.divf %a, %r : f32
    %e = arith.addf %d, %r : f32
    te.yield %e : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  %y = te.compute (%x, %s) [%c, %p] {
    %a = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x36xf32>
    %b = te.read %s[(d0, d1) -> (d0)] : tensor<4xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  } : (tensor<4x36xf32>, tensor<4xf32>) -> tensor<4x36xf32>
  return %y : tensor<4x36xf32>
}
