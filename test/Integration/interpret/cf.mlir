// RUN: tb-run --interpret %s --function sum_to | FileCheck %s --check-prefix=LOOP
// RUN: tb-run --interpret %s --function classify | FileCheck %s --check-prefix=SWITCH
// RUN: tb-run --interpret %s --function pick | FileCheck %s --check-prefix=PICK
// RUN: not tb-run --interpret %s --function failing_assert 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: env TB_MAX_BRANCHES=1000 not tb-run --interpret %s --function endless 2>&1 | FileCheck %s --check-prefix=ENDLESS
// RUN: env TB_MAX_BRANCHES=lots not tb-run --interpret %s --function endless 2>&1 | FileCheck %s --check-prefix=LIMIT

// A loop in blocks: 0 + 1 + ... + 9, carried through block arguments.
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

// A switch compares the flag's bits in its width: -1 : i8 matches the case 255.
// SWITCH: result #0: f32 = 2.0
// SWITCH-NEXT: result #1: f32 = 1.0
func.func @classify() -> (f32, f32) {
  %minus_one = arith.constant -1 : i8
  %three = arith.constant 3 : i8
  %a = call @case(%minus_one) : (i8) -> f32
  %b = call @case(%three) : (i8) -> f32
  return %a, %b : f32, f32
}

func.func @case(%flag: i8) -> f32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  cf.switch %flag : i8, [
    default: ^done(%one : f32),
    255: ^done(%two : f32)
  ]
^done(%r: f32):
  return %r : f32
}

// The false side of a conditional branch passes its own operands.
// PICK: result #0: i32 = 7
func.func @pick() -> i32 {
  %false = arith.constant false
  %a = arith.constant 3 : i32
  %b = arith.constant 7 : i32
  cf.cond_br %false, ^out(%a : i32), ^out(%b : i32)
^out(%r: i32):
  return %r : i32
}

// ASSERT: cf.mlir:[[@LINE+3]]:3: error: 'cf.assert' op failed: the flag must be set
func.func @failing_assert() {
  %false = arith.constant false
  cf.assert %false, "the flag must be set"
  return
}

// ENDLESS: error: 'cf.br' op: more than 1000 branches taken in one region: an endless loop? (TB_MAX_BRANCHES raises the limit)
// LIMIT: error: TB_MAX_BRANCHES="lots" is not a positive integer
func.func @endless() {
  cf.br ^spin
^spin:
  cf.br ^spin
}
