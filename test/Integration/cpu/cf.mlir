// Functions with several blocks compile: branches become LLVM control flow and block
// arguments phis. The compiled results equal the interpreter's. (The functions are at the
// loop level already, so no lowering pipeline runs.)
// RUN: tb-run %s --pipeline 'builtin.module()' --function sum_to --random-inputs 0 > %t.compiled
// RUN: tb-run --interpret %s --function sum_to --random-inputs 0 > %t.interpreted
// RUN: diff %t.compiled %t.interpreted
// RUN: FileCheck %s --check-prefix=LOOP < %t.compiled
// RUN: tb-run %s --pipeline 'builtin.module()' --function classify | FileCheck %s --check-prefix=SWITCH
// RUN: tb-run %s --pipeline 'builtin.module()' --function reduce --random-inputs 5 > %t.reduce.compiled
// RUN: tb-run --interpret %s --function reduce --random-inputs 5 > %t.reduce.interpreted
// RUN: diff %t.reduce.compiled %t.reduce.interpreted
// RUN: tb-run %s --pipeline 'builtin.module()' --function same_block_twice | FileCheck %s --check-prefix=TWICE
// RUN: not --crash tb-run %s --pipeline 'builtin.module()' --function failing_assert 2>&1 | FileCheck %s --check-prefix=ASSERT

// LOOP: result #0: i32 = 45
func.func @sum_to() -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ten = arith.constant 10 : i32
  cf.br ^loop(%zero, %zero : i32, i32)
^loop(%i: i32, %acc: i32):
  %more = arith.cmpi slt, %i, %ten : i32
  cf.cond_br %more, ^body, ^exit(%acc : i32)
^body:
  %next_acc = arith.addi %acc, %i : i32
  %next_i = arith.addi %i, %one : i32
  cf.br ^loop(%next_i, %next_acc : i32, i32)
^exit(%r: i32):
  return %r : i32
}

// Equal case values: the first wins. -1 : i8 matches the case 255.
// SWITCH: result #0: f32 = 2.0
// SWITCH-NEXT: result #1: f32 = 1.0
// SWITCH-NEXT: result #2: f32 = 3.0
func.func @classify() -> (f32, f32, f32) {
  %minus_one = arith.constant -1 : i8
  %three = arith.constant 3 : i8
  %seven = arith.constant 7 : i8
  %a = call @case(%minus_one) : (i8) -> f32
  %b = call @case(%three) : (i8) -> f32
  %c = call @case(%seven) : (i8) -> f32
  return %a, %b, %c : f32, f32, f32
}

func.func @case(%flag: i8) -> f32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  cf.switch %flag : i8, [
    default: ^done(%one : f32),
    255: ^done(%two : f32),
    7: ^done(%three : f32),
    7: ^done(%one : f32)
  ]
^done(%r: f32):
  return %r : f32
}

// A branch chooses which loop nest runs over the buffer.
func.func @reduce(%m: memref<8xf32>, %use_max: i1) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  cf.cond_br %use_max, ^max, ^sum
^max:
  %first = loop.load %m[%c0] : memref<8xf32>
  %mx = loop.for %i = 1 to 8 iter_args(%acc = %first) -> (f32) {
    %x = loop.load %m[%i] : memref<8xf32>
    %n = arith.maximumf %acc, %x : f32
    loop.yield %n : f32
  }
  cf.br ^done(%mx : f32)
^sum:
  %s = loop.for %i = 0 to 8 iter_args(%acc = %zero) -> (f32) {
    %x = loop.load %m[%i] : memref<8xf32>
    %n = arith.addf %acc, %x : f32
    loop.yield %n : f32
  }
  cf.br ^done(%s : f32)
^done(%r: f32):
  return %r : f32
}

// Both edges of a conditional branch reach one block with different values.
// TWICE: result #0: i32 = 4
func.func @same_block_twice() -> i32 {
  %true = arith.constant true
  %a = arith.constant 4 : i32
  %b = arith.constant 9 : i32
  cf.cond_br %true, ^out(%a : i32), ^out(%b : i32)
^out(%r: i32):
  return %r : i32
}

// A failed assertion prints its message and aborts the program, as in MLIR.
// ASSERT: assertion failed: the flag must be set
func.func @failing_assert() {
  %false = arith.constant false
  cf.assert %false, "the flag must be set"
  return
}
