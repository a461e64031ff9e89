// --stats prints the kernels (loop nests) of the compiled function, counted after every
// pass of the pipeline, and their estimated memory traffic: each kernel reading each
// buffer it loads from once and writing each buffer it stores to once, at full size.

// With te-fuse (the cpu pipeline), exp and negf end up in the row sum's body: one kernel
// reads %x (4x8xf32, 128 bytes) and writes the sums (4xf32, 16 bytes).
// RUN: tb-run %s --random-inputs 1 --print-limit 0 --stats | FileCheck %s --check-prefix=FUSED
// FUSED: kernels: 1
// FUSED-NEXT: estimated memory traffic: 144 B (144 bytes: read 128, written 16)
// FUSED-NEXT: result #0: tensor<4xf32> = <4 elements>

// Without te-fuse every te.compute is a kernel with a buffer of its own: exp writes
// 128 bytes, negf reads and writes 128 each, the sum reads 128 and writes 16.
// RUN: tb-run %s --random-inputs 1 --print-limit 0 --stats --pipeline='builtin.module(convert-te-to-loop, canonicalize, loop-default-schedule, loop-apply-schedule, plan-buffers)' | FileCheck %s --check-prefix=UNFUSED
// UNFUSED: kernels: 3
// UNFUSED-NEXT: estimated memory traffic: 656 B (656 bytes: read 384, written 272)

// The interpreter compiles nothing to count.
// RUN: not tb-run %s --random-inputs 1 --interpret --stats 2>&1 | FileCheck %s --check-prefix=INTERPRET
// INTERPRET: error: the argument '--interpret' cannot be used with '--stats'
func.func @row_sum_of_neg_exp(%x: tensor<4x8xf32>) -> tensor<4xf32> {
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
  %s = te.compute (%b) [%i] reduce [%k] in [8] combiner = sum {
    %v = te.read %b[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
