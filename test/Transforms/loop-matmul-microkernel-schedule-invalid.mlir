// RUN: tb-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(loop-matmul-microkernel)'

func.func @columns_not_whole_vectors(%arg0: memref<5x6xf32>, %arg1: memref<6x10xf32>) -> memref<5x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x10xf32>
  // expected-error @+1 {{loop-matmul-microkernel: the nest's schedule does not fit: asks for NR = 6 columns, not a multiple of its vector width 4}}
  loop.parallel (%i, %j) = (0, 0) to (5, 10) attributes {loop.schedule = #loop.schedule<tiles = [[2], [6], []], vector = 4>} {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<5x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%i, %j, %k) : memref<6x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<5x10xf32>
  }
  return %0 : memref<5x10xf32>
}

// -----

func.func @wrong_rank(%arg0: memref<5x6xf32>, %arg1: memref<6x10xf32>) -> memref<5x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = loop.alloc() : memref<5x10xf32>
  // expected-error @+1 {{loop-matmul-microkernel: the nest's schedule does not fit: schedule tiles 2 dimensions but the nest has 3}}
  loop.parallel (%i, %j) = (0, 0) to (5, 10) attributes {loop.schedule = #loop.schedule<tiles = [[2], [8]]>} {
    %1 = loop.for %k = 0 to 6 iter_args(%acc = %cst) -> (f32) {
      %2 = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%i, %j, %k) : memref<5x6xf32>
      %3 = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%i, %j, %k) : memref<6x10xf32>
      %4 = arith.mulf %2, %3 : f32
      %5 = arith.addf %acc, %4 : f32
      loop.yield %5 : f32
    }
    loop.store %1, %0[%i, %j] : memref<5x10xf32>
  }
  return %0 : memref<5x10xf32>
}
