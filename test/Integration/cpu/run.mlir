// tb-run compiles the chosen function (and what it calls) for the host CPU by default,
// and prints what the interpreter prints for the same random inputs.
// RUN: tb-run %s --function matmul --random-inputs 3 > %t.compiled
// RUN: tb-run --interpret %s --function matmul --random-inputs 3 > %t.interpreted
// RUN: diff %t.compiled %t.interpreted
// RUN: tb-run %s --function matmul --random-inputs 3 --threads 2 --mcpu x86-64-v2 | diff - %t.interpreted
// RUN: tb-run %s --function twice --input %S/Inputs/row.npy | FileCheck %s --check-prefix=TWICE
// Functions at higher levels are lowered by the default pipeline first; with an empty
// pipeline the backend refuses them.
// RUN: tb-run %s --function tensors --random-inputs 0 --check | FileCheck %s --check-prefix=LOWERED
// RUN: not tb-run %s --function tensors --random-inputs 0 --pipeline 'builtin.module()' 2>&1 | FileCheck %s --check-prefix=TENSOR
// RUN: not tb-run %s --function tensors --random-inputs 0 --pipeline 'builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPELINE

func.func @matmul(%a: memref<3x5xf32>, %b: memref<5x2xf32>) -> memref<3x2xf32> {
  %c = loop.alloc() : memref<3x2xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (3, 2) {
    loop.store %zero, %c[%i, %j] : memref<3x2xf32>
    loop.for %k = 0 to 5 {
      %x = loop.load %a[%i, %k] : memref<3x5xf32>
      %y = loop.load %b[%k, %j] : memref<5x2xf32>
      %acc = loop.load %c[%i, %j] : memref<3x2xf32>
      %r = loop.fma %x, %y, %acc : f32
      loop.store %r, %c[%i, %j] : memref<3x2xf32>
    }
  }
  return %c : memref<3x2xf32>
}

// TWICE: result #0: memref<4xf32> = [2.0, -1.0, 0.5, 8.0]
func.func @twice(%a: memref<4xf32>) -> memref<4xf32> {
  %out = loop.alloc() : memref<4xf32>
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    loop.store %y, %out[%i] : memref<4xf32>
  }
  return %out : memref<4xf32>
}

// LOWERED: result #0: tensor<2xf32> = [{{.*}}]
// LOWERED-NEXT: check: result #0 matches the interpreter (max abs error 0.000e0, max rel error 0.000e0)
// TENSOR: run.mlir:[[@LINE+2]]:1: error: cannot export @tensors: argument #0 has type 'tensor<2xf32>'
// PIPELINE: tb-run: --pipeline: {{.*}}no-such-pass
func.func @tensors(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.relu %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
