// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(te-fuse{max-working-set-bytes=8448 min-parallel-points=2})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(te-fuse{order=program max-working-set-bytes=8448 min-parallel-points=2})' | FileCheck %s --check-prefix=PROGRAM
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(te-fuse{max-working-set-bytes=8448 min-parallel-points=2 remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(te-fuse{min-parallel-points=1})' | FileCheck %s --check-prefix=NOLIMIT
// RUN: not tb-opt %s --pass-pipeline='builtin.module(te-fuse{order=sideways})' 2>&1 | FileCheck %s --check-prefix=ERR

// The partition is chosen over the whole function: of the producers that may be inlined,
// the one that saves the most traffic goes first. Here the budget of 8448 bytes of
// distinct inputs per kernel allows one of the two producers of %c, not both (8704
// bytes). %p2 (4096 bytes written and read back) saves more than %p1 (256 bytes): it is
// the one inlined, and %p1 stays. In program order %p1, first, took the budget.
// CHECK-LABEL: func.func @budget_goes_to_the_larger_saving
// CHECK:         %[[P1:.*]] = te.compute (%arg0, %arg1) [%{{.*}}] {
// CHECK:         } : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT:    %[[C:.*]] = te.compute (%[[P1]], %arg2, %arg3)
// CHECK-NEXT:      te.read %arg2
// CHECK-NEXT:      te.read %arg3
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      te.read %[[P1]]
// CHECK-NOT:     te.compute
// CHECK:         return %[[C]]
// PROGRAM-LABEL: func.func @budget_goes_to_the_larger_saving
// PROGRAM:         %[[P2:.*]] = te.compute (%arg2, %arg3) [%{{.*}}, %{{.*}}] {
// PROGRAM:         %[[C:.*]] = te.compute (%[[P2]], %arg0, %arg1)
// PROGRAM-NOT:     te.compute
// PROGRAM:         return %[[C]]
// REMARK: te-fuse-partition.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: te.compute not fused: the fused kernel would read 8704 bytes (max-working-set-bytes=8448)
func.func @budget_goes_to_the_larger_saving(%x: tensor<64xf32>, %y: tensor<64xf32>, %z1: tensor<16x64xf32>, %z2: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %p1 = te.compute (%x, %y) [%j] {
    %a = te.read %x[(d0) -> (d0)] : tensor<64xf32>
    %b = te.read %y[(d0) -> (d0)] : tensor<64xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  } : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %p2 = te.compute (%z1, %z2) [%i, %j] {
    %a = te.read %z1[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %b = te.read %z2[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  } : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = te.compute (%p2, %p1) [%i, %j] {
    %a = te.read %p2[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %b = te.read %p1[(d0, d1) -> (d1)] : tensor<64xf32>
    %s = arith.mulf %a, %b : f32
    te.yield %s : f32
  } : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %c : tensor<16x64xf32>
}

// -----

// A producer with work for threads is not inlined into a reduction with fewer result
// points than min-parallel-points: the reduction's one point runs on one thread, and the
// 65536 exponentials would run there too.
// CHECK-LABEL: func.func @serial_reduction
// CHECK:         te.compute (%arg0) [%{{.*}}, %{{.*}}] {
// CHECK:           math.exp
// CHECK:         te.compute (%{{.*}}) [%{{.*}}] reduce
// REMARK: te-fuse-partition.mlir:[[@LINE+8]]:{{[0-9]+}}: remark: te.compute not fused: the consumer has 1 result points, too few for the threads its work would need (min-parallel-points=2)
// With min-parallel-points=1 there is no limit: one kernel.
// NOLIMIT-LABEL: func.func @serial_reduction
// NOLIMIT:         te.compute
// NOLIMIT-SAME:      reduce
// NOLIMIT-NOT:     te.compute

func.func @serial_reduction(%x: tensor<256x256xf32>) -> tensor<1xf32> {
  %e = te.compute (%x) [%i, %j] {
    %a = te.read %x[(d0, d1) -> (d0, d1)] : tensor<256x256xf32>
    %s = math.exp %a : f32
    te.yield %s : f32
  } : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = te.compute (%e) [%o] reduce [%i, %j] in [256, 256] combiner = sum {
    %a = te.read %e[(d0, d1, d2) -> (d1, d2)] : tensor<256x256xf32>
    te.yield %a : f32
  } : (tensor<256x256xf32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// ERR: error: te-fuse: unknown fusion order 'sideways' (expected 'benefit' or 'program')
