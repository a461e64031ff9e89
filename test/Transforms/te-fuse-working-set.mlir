// RUN: tb-opt %s --pass-pipeline='builtin.module(te-fuse{max-working-set-bytes=256 remarks=true})' 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: tb-opt %s --pass-pipeline='builtin.module(te-fuse{max-working-set-bytes=384})' | FileCheck %s --check-prefix=FITS
// RUN: tb-opt %s --pass-pipeline='builtin.module(te-fuse{max-working-set-bytes=256})' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// max-working-set-bytes is a kernel's resource budget (a cache or shared-memory size): the
// bytes of the distinct tensors a fused kernel reads. Inlining %a into %c would make %c
// read %x, %y and %z (3 x 128 bytes) instead of %a and %z (2 x 128 bytes).

// Over the budget, the producer stays a kernel, with a remark saying why.
// BUDGET: te-fuse-working-set.mlir:[[@LINE+12]]:{{[0-9]+}}: remark: te.compute not fused: the fused kernel would read 384 bytes (max-working-set-bytes=256)
// BUDGET: te-fuse-working-set.mlir:[[@LINE+17]]:{{[0-9]+}}: note: consumer here
// BUDGET-LABEL: func.func @sum_then_scale
// BUDGET-COUNT-2: te.compute

// Within it, the producer is inlined.
// FITS-LABEL: func.func @sum_then_scale
// FITS-COUNT-1: te.compute
// FITS-NOT: te.compute

// STATS: (S) 1 refused-working-set
func.func @sum_then_scale(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = te.compute (%x, %y) [%i, %j] {
    %u = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %v = te.read %y[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %s = arith.addf %u, %v : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = te.compute (%a, %z) [%i, %j] {
    %u = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %v = te.read %z[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %p = arith.mulf %u, %v : f32
    te.yield %p : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
