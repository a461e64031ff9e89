// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=4 nr=8 kc=2 vector=4})' | FileCheck %s
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=4 nr=8 kc=8 vector=4})' | FileCheck %s --check-prefix=ONE
// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-matmul-microkernel{mr=4 nr=8 kc=2 vector=4 epilogues=false})' | FileCheck %s --check-prefix=OFF

// The nest after the matmul (bias add and erf GELU, as te-fuse leaves them) is the only
// reader of its result and reads it at its own (i, j): the packed kernel computes it on
// its accumulators, vectors of 4 columns, where it would store them. With kc = 2 over a
// reduction of 3 the last slice is peeled: the first slices store partial sums into C,
// the last one stores the GELU into the output.
// CHECK-LABEL: func.func @bias_gelu
// CHECK:         %[[C:.*]] = loop.alloc() : memref<5x8xf32>
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<5x8xf32>
// CHECK:         loop.for %{{.*}} = 0 to 2 step 2 {
// CHECK:           loop.vector_store %{{.*}}#7, %[[C]]
// CHECK:         loop.for %{{.*}} = 2 to 3 step 2 {
// CHECK:           %[[ACC:.*]]:8 = loop.for
// CHECK:           %[[B:.*]] = loop.vector_load %arg2[(d0, d1) -> (d1)](%{{.*}}, %{{.*}}) : memref<8xf32>, vector<4xf32>
// CHECK-NEXT:      %[[X:.*]] = arith.addf %[[ACC]]#0, %[[B]] : vector<4xf32>
// CHECK:           math.erf %{{.*}} : vector<4xf32>
// CHECK:           loop.vector_store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<5x8xf32>, vector<4xf32>
// CHECK:           %[[B1:.*]] = loop.vector_load %arg2[(d0, d1) -> (d1 + 4)]
// CHECK-NEXT:      arith.addf %[[ACC]]#1, %[[B1]] : vector<4xf32>
// CHECK-NOT:     loop.parallel (%{{.*}}, %{{.*}})
// CHECK:         return %[[OUT]]
// With one slice C is never written: it goes, and the accumulators start from zero.
// ONE-LABEL:   func.func @bias_gelu
// ONE-NOT:       loop.alloc() : memref<5x8xf32>
// ONE:           %[[OUT:.*]] = loop.alloc() : memref<5x8xf32>
// ONE-NOT:       loop.alloc() : memref<5x8xf32>
// ONE:           math.erf %{{.*}} : vector<4xf32>
// ONE-NOT:       loop.parallel (%{{.*}}, %{{.*}})
// ONE:           return %[[OUT]]
// With epilogues=false the kernel stores C and the nest reads it.
// OFF-LABEL:   func.func @bias_gelu
// OFF:           loop.fma
// OFF:           loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (5, 8) {
// OFF-NEXT:        loop.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<5x8xf32>
// OFF:             math.erf %{{.*}} : f32
func.func @bias_gelu(%arg0: memref<5x3xf32>, %arg1: memref<3x8xf32>, %arg2: memref<8xf32>) -> memref<5x8xf32> {
  %cst = arith.constant 0.707106769 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 5.000000e-01 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x8xf32>
  loop.parallel (%arg3, %arg4) = (0, 0) to (5, 8) {
    %2 = loop.for %arg5 = 0 to 3 iter_args(%arg6 = %cst_2) -> (f32) {
      %3 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg3, %arg4, %arg5) : memref<5x3xf32>
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg3, %arg4, %arg5) : memref<3x8xf32>
      %5 = arith.mulf %3, %4 : f32
      %6 = arith.addf %arg6, %5 : f32
      loop.yield %6 : f32
    }
    loop.store %2, %0[%arg3, %arg4] : memref<5x8xf32>
  }
  %1 = loop.alloc() : memref<5x8xf32>
  loop.parallel (%arg3, %arg4) = (0, 0) to (5, 8) {
    %2 = loop.load %0[%arg3, %arg4] : memref<5x8xf32>
    %3 = loop.load %arg2[(d0, d1) -> (d1)](%arg3, %arg4) : memref<8xf32>
    %4 = arith.addf %2, %3 : f32
    %5 = arith.mulf %4, %cst : f32
    %6 = math.erf %5 : f32
    %7 = arith.addf %6, %cst_0 : f32
    %8 = arith.mulf %4, %cst_1 : f32
    %9 = arith.mulf %8, %7 : f32
    loop.store %9, %1[%arg3, %arg4] : memref<5x8xf32>
  }
  loop.dealloc %0 : memref<5x8xf32>
  return %1 : memref<5x8xf32>
}

// -----

// A reader at another index (a transposition) is not an epilogue: the kernel stores C.
// CHECK-LABEL: func.func @transposed_reader
// CHECK:         loop.fma
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (8, 4) {
// CHECK-NEXT:      loop.load %{{.*}}[(d0, d1) -> (d1, d0)]
func.func @transposed_reader(%arg0: memref<4x3xf32>, %arg1: memref<3x8xf32>) -> memref<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<4x8xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (4, 8) {
    %2 = loop.for %arg4 = 0 to 3 iter_args(%arg5 = %cst) -> (f32) {
      %3 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<4x3xf32>
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<3x8xf32>
      %5 = arith.mulf %3, %4 : f32
      %6 = arith.addf %arg5, %5 : f32
      loop.yield %6 : f32
    }
    loop.store %2, %0[%arg2, %arg3] : memref<4x8xf32>
  }
  %1 = loop.alloc() : memref<8x4xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (8, 4) {
    %2 = loop.load %0[(d0, d1) -> (d1, d0)](%arg2, %arg3) : memref<4x8xf32>
    %3 = arith.cmpf olt, %2, %cst : f32
    %4 = arith.select %3, %cst, %2 : f32
    loop.store %4, %1[%arg2, %arg3] : memref<8x4xf32>
  }
  loop.dealloc %0 : memref<4x8xf32>
  return %1 : memref<8x4xf32>
}

// -----

// A nest that writes the matmul's own operand would overwrite rows of A that later row
// blocks still read: it stays.
// CHECK-LABEL: func.func @writes_the_lhs
// CHECK:         loop.fma
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (4, 8) {
// CHECK-NEXT:      loop.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x8xf32>
// CHECK:           loop.store %{{.*}}, %arg0[%{{.*}}, %{{.*}}] : memref<4x8xf32>
func.func @writes_the_lhs(%arg0: memref<4x8xf32>, %arg1: memref<8x8xf32>) -> memref<4x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<4x8xf32>
  loop.parallel (%arg2, %arg3) = (0, 0) to (4, 8) {
    %2 = loop.for %arg4 = 0 to 8 iter_args(%arg5 = %cst) -> (f32) {
      %3 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg2, %arg3, %arg4) : memref<4x8xf32>
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg2, %arg3, %arg4) : memref<8x8xf32>
      %5 = arith.mulf %3, %4 : f32
      %6 = arith.addf %arg5, %5 : f32
      loop.yield %6 : f32
    }
    loop.store %2, %0[%arg2, %arg3] : memref<4x8xf32>
  }
  loop.parallel (%arg2, %arg3) = (0, 0) to (4, 8) {
    %2 = loop.load %0[%arg2, %arg3] : memref<4x8xf32>
    %3 = arith.cmpf olt, %2, %cst : f32
    %4 = arith.select %3, %cst, %2 : f32
    loop.store %4, %arg0[%arg2, %arg3] : memref<4x8xf32>
  }
  loop.dealloc %0 : memref<4x8xf32>
  return %arg0 : memref<4x8xf32>
}

// -----

// The bias is overwritten between the two nests: computed in the kernel, the nest would
// read it before that write. It stays.
// CHECK-LABEL: func.func @operand_written_between
// CHECK:         loop.fma
// CHECK:         loop.store %{{.*}}, %arg2[%{{.*}}] : memref<8xf32>
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 0) to (4, 8) {
func.func @operand_written_between(%arg0: memref<4x3xf32>, %arg1: memref<3x8xf32>, %arg2: memref<8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<4x8xf32>
  loop.parallel (%arg3, %arg4) = (0, 0) to (4, 8) {
    %2 = loop.for %arg5 = 0 to 3 iter_args(%arg6 = %cst) -> (f32) {
      %3 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%arg3, %arg4, %arg5) : memref<4x3xf32>
      %4 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%arg3, %arg4, %arg5) : memref<3x8xf32>
      %5 = arith.mulf %3, %4 : f32
      %6 = arith.addf %arg6, %5 : f32
      loop.yield %6 : f32
    }
    loop.store %2, %0[%arg3, %arg4] : memref<4x8xf32>
  }
  loop.store %cst, %arg2[%c0] : memref<8xf32>
  %1 = loop.alloc() : memref<4x8xf32>
  loop.parallel (%arg3, %arg4) = (0, 0) to (4, 8) {
    %2 = loop.load %0[%arg3, %arg4] : memref<4x8xf32>
    %3 = loop.load %arg2[(d0, d1) -> (d1)](%arg3, %arg4) : memref<8xf32>
    %4 = arith.addf %2, %3 : f32
    loop.store %4, %1[%arg3, %arg4] : memref<4x8xf32>
  }
  loop.dealloc %0 : memref<4x8xf32>
  return %1 : memref<4x8xf32>
}
