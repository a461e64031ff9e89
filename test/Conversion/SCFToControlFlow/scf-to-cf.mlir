// RUN: tb-opt --convert-scf-to-cf --split-input-file %s | FileCheck %s
// The lowered functions compute what the scf ones compute (the interpreter runs both):
// RUN: tb-opt --convert-scf-to-cf %S/Inputs/programs.mlir > %t.cf.mlir
// RUN: tb-run --interpret %S/Inputs/programs.mlir --function sum_odd --random-inputs 4 > %t.scf.out
// RUN: tb-run --interpret %t.cf.mlir --function sum_odd --random-inputs 4 > %t.cf.out
// RUN: diff %t.scf.out %t.cf.out
// RUN: tb-run --interpret %S/Inputs/programs.mlir --function digits --random-inputs 8 > %t.scf.digits
// RUN: tb-run --interpret %t.cf.mlir --function digits --random-inputs 8 > %t.cf.digits
// RUN: diff %t.scf.digits %t.cf.digits
// RUN: not tb-opt --convert-scf-to-cf %S/Inputs/parallel.mlir 2>&1 | FileCheck %s --check-prefix=PARALLEL

// A loop becomes a condition block that enters the body or leaves; the body adds the step
// and branches back with the yielded values.
// CHECK-LABEL: func.func @for_sum(
// CHECK-SAME:    %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index, %[[INIT:.*]]: f32) -> f32 {
// CHECK-NEXT:    cf.br ^bb1(%[[LB]], %[[INIT]] : index, f32)
// CHECK-NEXT:  ^bb1(%[[IV:.*]]: index, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[IV]], %[[UB]] : index
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^bb2(%[[IV]], %[[ACC]] : index, f32), ^bb3(%[[ACC]] : f32)
// CHECK-NEXT:  ^bb2(%[[I:.*]]: index, %[[A:.*]]: f32):
// CHECK-NEXT:    %[[N:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[I]], %[[STEP]] : index
// CHECK-NEXT:    cf.br ^bb1(%[[NEXT]], %[[N]] : index, f32)
// CHECK-NEXT:  ^bb3(%[[R:.*]]: f32):
// CHECK-NEXT:    return %[[R]] : f32
func.func @for_sum(%lb: index, %ub: index, %step: index, %init: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) {
    %n = arith.addf %acc, %acc : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// `scf.for unsigned` compares unsigned.
// CHECK-LABEL: func.func @for_unsigned(
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : i8
func.func @for_unsigned(%lb: i8, %ub: i8, %step: i8) {
  scf.for unsigned %i = %lb to %ub step %step : i8 {
  }
  return
}

// -----

// CHECK-LABEL: func.func @if_else(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    cf.br ^bb3(%[[A]] : i32)
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    cf.br ^bb3(%[[B]] : i32)
// CHECK-NEXT:  ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:    return %[[R]] : i32
func.func @if_else(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// Without an else region, the false edge goes to the block after the op.
// CHECK-LABEL: func.func @if_then(
// CHECK-SAME:    %[[C:.*]]: i1, %[[M:.*]]: memref<4xf32>, %[[X:.*]]: f32) {
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK:         memref.store %[[X]], %[[M]]
// CHECK-NEXT:    cf.br ^bb2
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    return
func.func @if_then(%c: i1, %m: memref<4xf32>, %x: f32) {
  scf.if %c {
    %c0 = arith.constant 0 : index
    memref.store %x, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @while_loop(
// CHECK-SAME:    %[[N:.*]]: i32) -> i32 {
// CHECK:         cf.br ^bb1(%{{.*}} : i32)
// CHECK-NEXT:  ^bb1(%[[I:.*]]: i32):
// CHECK-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i32
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^bb2(%[[I]] : i32), ^bb3(%[[I]] : i32)
// CHECK-NEXT:  ^bb2(%[[J:.*]]: i32):
// CHECK:         %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK-NEXT:    cf.br ^bb1(%[[NEXT]] : i32)
// CHECK-NEXT:  ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT:    return %[[R]] : i32
func.func @while_loop(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    %c1 = arith.constant 1 : i32
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// -----

// `scf.index_switch` becomes a `cf.switch` on the index as an i64.
// CHECK-LABEL: func.func @switch(
// CHECK-SAME:    %[[K:.*]]: index) -> i32 {
// CHECK-NEXT:    %[[F:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT:    cf.switch %[[F]] : i64, [
// CHECK-NEXT:      default: ^bb1,
// CHECK-NEXT:      2: ^bb2
// CHECK-NEXT:    ]
func.func @switch(%k: index) -> i32 {
  %r = scf.index_switch %k -> i32
  case 2 {
    %c10 = arith.constant 10 : i32
    scf.yield %c10 : i32
  }
  default {
    %c30 = arith.constant 30 : i32
    scf.yield %c30 : i32
  }
  return %r : i32
}

// -----

// `scf.execute_region` splices its blocks in.
// CHECK-LABEL: func.func @execute_region(
// CHECK-SAME:    %[[C:.*]]: i1, %[[X:.*]]: i64) -> i64 {
// CHECK-NEXT:    cf.br ^bb1
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb2, ^bb3
// CHECK:       ^bb4(%[[R:.*]]: i64):
// CHECK-NEXT:    return %[[R]] : i64
func.func @execute_region(%c: i1, %x: i64) -> i64 {
  %r = scf.execute_region -> i64 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %d = arith.addi %x, %x : i64
    scf.yield %d : i64
  ^bb2:
    scf.yield %x : i64
  }
  return %r : i64
}

// PARALLEL: error: 'scf.parallel' op is not lowered by convert-scf-to-cf
