// Run-time errors point at the op that failed; usage errors say what is expected.
// RUN: not tb-run --interpret %s --function oob --random-inputs 0 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not tb-run --interpret %s --function div 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not tb-run --interpret %s --function args 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not tb-run --interpret %s 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not tb-run %s --function args 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not tb-run --interpret %s --function nope 2>&1 | FileCheck %s --check-prefix=NOPE

// The index is computed, so only the run finds it out of bounds (a constant one is
// refused by the verifier).
// OOB: errors.mlir:[[@LINE+4]]:8: error: 'loop.load' op index 4 out of bounds for dimension 0 of size 4
func.func @oob(%m: memref<4xf32>) -> f32 {
  %c2 = arith.constant 2 : index
  %i = arith.muli %c2, %c2 : index
  %x = loop.load %m[%i] : memref<4xf32>
  return %x : f32
}

// DIV: errors.mlir:[[@LINE+3]]:8: error: 'arith.remsi' op divides by zero
func.func @div() -> i32 {
  %z = arith.constant 0 : i32
  %q = arith.remsi %z, %z : i32
  return %q : i32
}

// ARGS: tb-run: @args takes 2 arguments, 0 --input files were given; expected:
// ARGS-NEXT: #0: tensor<2xf32>
// ARGS-NEXT: #1: i32
func.func @args(%a: tensor<2xf32>, %b: i32) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// WHICH: tb-run: the module has several functions (@oob, @div, @args); choose one with --function
// NOPE: tb-run: no function @nope with a body; the module has: @oob, @div, @args
