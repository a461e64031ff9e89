// Programs for scf-to-cf.mlir: run before and after convert-scf-to-cf on random inputs.

// The sum of the odd elements, with nested control flow: for, if and an inner while.
func.func @sum_odd(%m: memref<16xi32>) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%sum = %zero, %count = %zero) -> (i32, i32) {
    %x = memref.load %m[%i] : memref<16xi32>
    %bit = arith.andi %x, %one : i32
    %odd = arith.cmpi ne, %bit, %zero : i32
    %next:2 = scf.if %odd -> (i32, i32) {
      %s = arith.addi %sum, %x : i32
      %n = arith.addi %count, %one : i32
      scf.yield %s, %n : i32, i32
    } else {
      scf.yield %sum, %count : i32, i32
    }
    scf.yield %next#0, %next#1 : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// The number of decimal digits of |x| (a while loop) and a switch on its remainder.
func.func @digits(%x: i64) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ten = arith.constant 10 : i64
  %neg = arith.cmpi slt, %x, %zero : i64
  %abs = scf.if %neg -> (i64) {
    %n = arith.subi %zero, %x : i64
    scf.yield %n : i64
  } else {
    scf.yield %x : i64
  }
  %r:2 = scf.while (%v = %abs, %d = %one) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sge, %v, %ten : i64
    scf.condition(%more) %v, %d : i64, i64
  } do {
  ^bb0(%v: i64, %d: i64):
    %q = arith.divsi %v, %ten : i64
    %e = arith.addi %d, %one : i64
    scf.yield %q, %e : i64, i64
  }
  %three = arith.constant 3 : i64
  %rem = arith.remsi %abs, %three : i64
  %k = arith.index_cast %rem : i64 to index
  %s = scf.index_switch %k -> i64
  case 0 {
    %c100 = arith.constant 100 : i64
    scf.yield %c100 : i64
  }
  case 1 {
    %w = scf.execute_region -> i64 {
      scf.yield %r#1 : i64
    }
    scf.yield %w : i64
  }
  default {
    scf.yield %r#0 : i64
  }
  return %r#1, %s : i64, i64
}
