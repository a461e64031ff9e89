// Functions with scf loops and conditionals over memrefs compile: tb-run's pipeline lowers
// them to cf branches (convert-scf-to-cf, last). The compiled results equal the
// interpreter's, which runs the scf ops themselves.
// RUN: tb-run %s --function sum_positive --random-inputs 3 > %t.sum.compiled
// RUN: tb-run --interpret %s --function sum_positive --random-inputs 3 > %t.sum.interpreted
// RUN: diff %t.sum.compiled %t.sum.interpreted
// RUN: tb-run %s --function collatz_steps | FileCheck %s --check-prefix=WHILE
// RUN: tb-run --interpret %s --function collatz_steps | FileCheck %s --check-prefix=WHILE
// RUN: tb-run %s --function scale_rows --random-inputs 9 > %t.rows.compiled
// RUN: tb-run --interpret %s --function scale_rows --random-inputs 9 > %t.rows.interpreted
// RUN: diff %t.rows.compiled %t.rows.interpreted
// RUN: tb-run %s --function pick | FileCheck %s --check-prefix=SWITCH

// A loop carrying a sum, with a conditional inside.
func.func @sum_positive(%m: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %m[%i] : memref<64xf32>
    %positive = arith.cmpf ogt, %x, %zero : f32
    %next = scf.if %positive -> (f32) {
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %next : f32
  }
  return %sum : f32
}

// scf.while: the number of Collatz steps from 27 to 1 is 111.
// WHILE: result #0: i32 = 111
func.func @collatz_steps() -> i32 {
  %start = arith.constant 27 : i32
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %r:2 = scf.while (%n = %start, %steps = %zero) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %n, %one : i32
    scf.condition(%more) %n, %steps : i32, i32
  } do {
  ^bb0(%n: i32, %steps: i32):
    %rem = arith.remui %n, %two : i32
    %even = arith.cmpi eq, %rem, %zero : i32
    %next = scf.if %even -> (i32) {
      %h = arith.divui %n, %two : i32
      scf.yield %h : i32
    } else {
      %t = arith.muli %n, %three : i32
      %u = arith.addi %t, %one : i32
      scf.yield %u : i32
    }
    %s = arith.addi %steps, %one : i32
    scf.yield %next, %s : i32, i32
  }
  return %r#1 : i32
}

// Nested loops with an i32 induction variable store into a fresh buffer.
func.func @scale_rows(%a: memref<4x8xf32>) -> memref<4x8xf32> {
  %out = memref.alloc() : memref<4x8xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0 : i32
  %hi = arith.constant 4 : i32
  %step = arith.constant 1 : i32
  scf.for %r = %lo to %hi step %step : i32 {
    %i = arith.index_cast %r : i32 to index
    %f = arith.sitofp %r : i32 to f32
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i, %j] : memref<4x8xf32>
      %y = arith.mulf %x, %f : f32
      memref.store %y, %out[%i, %j] : memref<4x8xf32>
    }
  }
  return %out : memref<4x8xf32>
}

// scf.index_switch and scf.execute_region.
// SWITCH: result #0: i32 = 20
// SWITCH-NEXT: result #1: i32 = 30
func.func @pick() -> (i32, i32) {
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %a = func.call @switch(%c5) : (index) -> i32
  %b = func.call @switch(%c7) : (index) -> i32
  return %a, %b : i32, i32
}

func.func @switch(%k: index) -> i32 {
  %r = scf.index_switch %k -> i32
  case 2 {
    %c10 = arith.constant 10 : i32
    scf.yield %c10 : i32
  }
  case 5 {
    %c20 = scf.execute_region -> i32 {
      %c = arith.constant 20 : i32
      scf.yield %c : i32
    }
    scf.yield %c20 : i32
  }
  default {
    %c30 = arith.constant 30 : i32
    scf.yield %c30 : i32
  }
  return %r : i32
}
