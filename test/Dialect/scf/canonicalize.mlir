// RUN: tb-opt --canonicalize --split-input-file %s | FileCheck %s
// The same checks hold for MLIR's own canonicalizer:
// RUN: %if mlir-opt %{ mlir-opt --canonicalize --split-input-file %s | FileCheck %s %}

// A branch on a constant `true` is replaced by its then region.
// CHECK-LABEL: func.func @if_true(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[A]] : i32
func.func @if_true(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  %r = scf.if %true -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// A branch on a constant `false` is replaced by its else region.
// CHECK-LABEL: func.func @if_false(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[B]], %[[B]] : i32
// CHECK-NEXT:    return %[[S]] : i32
func.func @if_false(%a: i32, %b: i32) -> i32 {
  %false = arith.constant false
  %r = scf.if %false -> (i32) {
    scf.yield %a : i32
  } else {
    %s = arith.addi %b, %b : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// -----

// `scf.if false` without an else region does nothing, even with side effects inside.
// CHECK-LABEL: func.func @if_false_without_else() {
// CHECK-NEXT:    return
func.func private @side_effect()

func.func @if_false_without_else() {
  %false = arith.constant false
  scf.if %false {
    func.call @side_effect() : () -> ()
  }
  return
}

// -----

// Results nobody uses are no longer yielded; what computed them goes away.
// CHECK-LABEL: func.func @if_unused_result(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (i32) {
// CHECK-NEXT:      func.call @side_effect() : () -> ()
// CHECK-NEXT:      %[[Y:.*]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:      scf.yield %[[Y]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[W:.*]] = arith.xori %[[A]], %[[B]] : i32
// CHECK-NEXT:      scf.yield %[[W]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]] : i32
func.func private @side_effect()

func.func @if_unused_result(%c: i1, %a: i32, %b: i32) -> i32 {
  %r:2 = scf.if %c -> (i32, i32) {
    func.call @side_effect() : () -> ()
    %x = arith.addi %a, %b : i32
    %y = arith.muli %a, %b : i32
    scf.yield %x, %y : i32, i32
  } else {
    %z = arith.subi %a, %b : i32
    %w = arith.xori %a, %b : i32
    scf.yield %z, %w : i32, i32
  }
  return %r#1 : i32
}

// -----

// An `scf.if` whose results are unused and whose regions have no side effects is erased.
// CHECK-LABEL: func.func @if_dead(
// CHECK-NEXT:    return
func.func @if_dead(%c: i1, %a: i32) {
  %r = scf.if %c -> (i32) {
    %s = arith.addi %a, %a : i32
    scf.yield %s : i32
  } else {
    scf.yield %a : i32
  }
  return
}

// -----

// An else region holding only `scf.yield` is dropped.
// CHECK-LABEL: func.func @if_empty_else(
// CHECK-SAME:    %[[C:.*]]: i1) {
// CHECK-NEXT:    scf.if %[[C]] {
// CHECK-NEXT:      func.call @side_effect() : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func private @side_effect()

func.func @if_empty_else(%c: i1) {
  scf.if %c {
    func.call @side_effect() : () -> ()
  } else {
  }
  return
}

// -----

// A loop with a constant empty range gives its inits.
// CHECK-LABEL: func.func @for_zero_trip(
// CHECK-SAME:    %[[INIT:.*]]: f32) -> f32 {
// CHECK-NEXT:    return %[[INIT]] : f32
func.func @for_zero_trip(%init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c4 to %c0 step %c1 iter_args(%acc = %init) -> (f32) {
    %n = arith.addf %acc, %acc : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A loop that runs once is replaced by its body, with the lower bound as induction variable.
// CHECK-LABEL: func.func @for_one_trip(
// CHECK-SAME:    %[[M:.*]]: memref<8xf32>, %[[INIT:.*]]: f32) -> f32 {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[X:.*]] = memref.load %[[M]][%[[C2]]] : memref<8xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.addf %[[INIT]], %[[X]] : f32
// CHECK-NEXT:    return %[[N]] : f32
func.func @for_one_trip(%m: memref<8xf32>, %init: f32) -> f32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c2 to %c3 step %c4 iter_args(%acc = %init) -> (f32) {
    %x = memref.load %m[%i] : memref<8xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A loop whose results are unused and whose body has no side effects is erased.
// CHECK-LABEL: func.func @for_dead(
// CHECK-NEXT:    return
func.func @for_dead(%lb: index, %ub: index, %step: index, %init: f32) {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) {
    %n = arith.addf %acc, %acc : f32
    scf.yield %n : f32
  }
  return
}

// -----

// `scf.index_switch` on a constant runs the matching case.
// CHECK-LABEL: func.func @switch_constant() -> i32 {
// CHECK-NEXT:    %[[C20:.*]] = arith.constant 20 : i32
// CHECK-NEXT:    return %[[C20]] : i32
func.func @switch_constant() -> i32 {
  %c5 = arith.constant 5 : index
  %r = scf.index_switch %c5 -> i32
  case 2 {
    %c10 = arith.constant 10 : i32
    scf.yield %c10 : i32
  }
  case 5 {
    %c20 = arith.constant 20 : i32
    scf.yield %c20 : i32
  }
  default {
    %c30 = arith.constant 30 : i32
    scf.yield %c30 : i32
  }
  return %r : i32
}

// -----

// A single-block `scf.execute_region` is inlined.
// CHECK-LABEL: func.func @execute_region_inlined(
// CHECK-SAME:    %[[A:.*]]: i64) -> i64 {
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[A]], %[[A]] : i64
// CHECK-NEXT:    return %[[S]] : i64
func.func @execute_region_inlined(%a: i64) -> i64 {
  %r = scf.execute_region -> i64 {
    %s = arith.addi %a, %a : i64
    scf.yield %s : i64
  }
  return %r : i64
}

// -----

// `scf.parallel` with an empty dimension gives its initial values.
// CHECK-LABEL: func.func @parallel_zero_trip(
// CHECK-SAME:    %[[M:.*]]: memref<8xf32>, %[[INIT:.*]]: f32) -> f32 {
// CHECK-NEXT:    return %[[INIT]] : f32
func.func @parallel_zero_trip(%m: memref<8xf32>, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.parallel (%i) = (%c1) to (%c0) step (%c1) init (%init) -> f32 {
    %x = memref.load %m[%i] : memref<8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

// An iter_arg yielded unchanged always holds its init; one whose value nobody uses goes,
// with its result.
// CHECK-LABEL: func.func @for_iter_args_fold(
// CHECK-SAME:    %[[LB:.*]]: index, %[[UB:.*]]: index, %[[S:.*]]: index, %[[A:.*]]: i32, %[[B:.*]]: i32) -> (i32, i32) {
// CHECK-NEXT:    %[[R:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[S]] iter_args(%[[X:.*]] = %[[A]]) -> (i32) {
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[X]], %[[B]] : i32
// CHECK-NEXT:      scf.yield %[[N]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]], %[[B]] : i32, i32
func.func @for_iter_args_fold(%lb: index, %ub: index, %s: index, %a: i32, %b: i32) -> (i32, i32) {
  %r:3 = scf.for %i = %lb to %ub step %s iter_args(%x = %a, %y = %b, %z = %a) -> (i32, i32, i32) {
    %n = arith.addi %x, %y : i32
    scf.yield %n, %y, %n : i32, i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// -----

// Two iter_args with the same init and the same yielded value are one.
// CHECK-LABEL: func.func @for_duplicate_iter_args(
// CHECK-SAME:    %[[LB:.*]]: index, %[[UB:.*]]: index, %[[S:.*]]: index, %[[A:.*]]: i32) -> (i32, i32) {
// CHECK-NEXT:    %[[R:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[S]] iter_args(%[[X:.*]] = %[[A]]) -> (i32) {
// CHECK-NEXT:      %[[N:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK-NEXT:      scf.yield %[[N]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]], %[[R]] : i32, i32
func.func @for_duplicate_iter_args(%lb: index, %ub: index, %s: index, %a: i32) -> (i32, i32) {
  %r:2 = scf.for %i = %lb to %ub step %s iter_args(%x = %a, %y = %a) -> (i32, i32) {
    %n = arith.muli %x, %y : i32
    scf.yield %n, %n : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// -----

// Iter_args that only swap among themselves keep their common init.
// CHECK-LABEL: func.func @for_iter_args_cycle(
// CHECK-SAME:    %[[LB:.*]]: index, %[[UB:.*]]: index, %[[S:.*]]: index, %[[A:.*]]: i32, %[[M:.*]]: memref<i32>) -> (i32, i32) {
// CHECK-NEXT:    scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[S]] {
// CHECK-NEXT:      memref.store %[[A]], %[[M]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[A]], %[[A]] : i32, i32
func.func @for_iter_args_cycle(%lb: index, %ub: index, %s: index, %a: i32, %m: memref<i32>) -> (i32, i32) {
  %r:2 = scf.for %i = %lb to %ub step %s iter_args(%x = %a, %y = %a) -> (i32, i32) {
    memref.store %x, %m[] : memref<i32>
    scf.yield %y, %x : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// -----

// An empty loop known to run more than once gives what it yields from outside.
// CHECK-LABEL: func.func @for_empty_many_trips(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[B]] : i32
func.func @for_empty_many_trips(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (i32) {
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// Results chosen between values from outside become selects; the scf.if keeps the rest.
// CHECK-LABEL: func.func @if_to_select(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32, %[[M:.*]]: memref<i32>) -> (i32, i32, i32) {
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (i32) {
// CHECK-NEXT:      %[[L:.*]] = memref.load %[[M]][] : memref<i32>
// CHECK-NEXT:      scf.yield %[[L]] : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[A]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]], %[[R]], %[[B]] : i32, i32, i32
func.func @if_to_select(%c: i1, %a: i32, %b: i32, %m: memref<i32>) -> (i32, i32, i32) {
  %r:3 = scf.if %c -> (i32, i32, i32) {
    %l = memref.load %m[] : memref<i32>
    scf.yield %a, %l, %b : i32, i32, i32
  } else {
    scf.yield %b, %a, %b : i32, i32, i32
  }
  return %r#0, %r#1, %r#2 : i32, i32, i32
}

// -----

// Inside the regions of an scf.if its condition is known.
// CHECK-LABEL: func.func @if_condition_known(
// CHECK-SAME:    %[[C:.*]]: i1, %[[M:.*]]: memref<i1>) {
// CHECK-DAG:     %[[T:.*]] = arith.constant true
// CHECK-DAG:     %[[F:.*]] = arith.constant false
// CHECK:         scf.if %[[C]] {
// CHECK-NEXT:      memref.store %[[T]], %[[M]][] : memref<i1>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      memref.store %[[F]], %[[M]][] : memref<i1>
// CHECK-NEXT:    }
func.func @if_condition_known(%c: i1, %m: memref<i1>) {
  scf.if %c {
    memref.store %c, %m[] : memref<i1>
  } else {
    memref.store %c, %m[] : memref<i1>
  }
  return
}

// -----

// Unused scf.index_switch results are dropped.
// CHECK-LABEL: func.func @index_switch_unused_result(
// CHECK-SAME:    %[[I:.*]]: index, %[[M:.*]]: memref<i32>) {
// CHECK:         scf.index_switch %[[I]]{{ *$}}
// CHECK:         scf.yield{{ *$}}
func.func @index_switch_unused_result(%i: index, %m: memref<i32>) {
  %r = scf.index_switch %i -> i32
  case 2 {
    %c = arith.constant 2 : i32
    memref.store %c, %m[] : memref<i32>
    scf.yield %c : i32
  }
  default {
    %c = arith.constant 3 : i32
    memref.store %c, %m[] : memref<i32>
    scf.yield %c : i32
  }
  return
}

// -----

// A no_inline scf.execute_region stops giving a value defined outside it.
// CHECK-LABEL: func.func @execute_region_outside_value(
// CHECK-SAME:    %[[A:.*]]: i32, %[[M:.*]]: memref<i32>) -> i32 {
// CHECK-NEXT:    scf.execute_region no_inline {
// CHECK-NEXT:      memref.store %[[A]], %[[M]][] : memref<i32>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[A]] : i32
func.func @execute_region_outside_value(%a: i32, %m: memref<i32>) -> i32 {
  %r = scf.execute_region -> i32 no_inline {
    memref.store %a, %m[] : memref<i32>
    scf.yield %a : i32
  }
  return %r : i32
}

// -----

// Dimensions of one iteration are dropped, the induction variable becoming the bound.
// CHECK-LABEL: func.func @parallel_single_iteration_dim(
// CHECK-SAME:    %[[M:.*]]: memref<4x4xf32>, %[[X:.*]]: f32) {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.parallel (%[[J:.*]]) = (%[[C0]]) to (%[[C4]]) step (%[[C1]]) {
// CHECK-NEXT:      memref.store %[[X]], %[[M]][%[[C1]], %[[J]]] : memref<4x4xf32>
func.func @parallel_single_iteration_dim(%m: memref<4x4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i, %j) = (%c1, %c0) to (%c2, %c4) step (%c1, %c1) {
    memref.store %x, %m[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  return
}

// -----

// A loop of one iteration with a reduction becomes its body and the reduction once.
// CHECK-LABEL: func.func @parallel_single_iteration_reduce(
// CHECK-SAME:    %[[M:.*]]: memref<4xf32>, %[[INIT:.*]]: f32) -> f32 {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[X:.*]] = memref.load %[[M]][%[[C2]]] : memref<4xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[INIT]], %[[X]] : f32
// CHECK-NEXT:    return %[[S]] : f32
func.func @parallel_single_iteration_reduce(%m: memref<4xf32>, %init: f32) -> f32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = scf.parallel (%i) = (%c2) to (%c3) step (%c3) init (%init) -> f32 {
    %x = memref.load %m[%i] : memref<4xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %v: f32):
      %s = arith.addf %l, %v : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

// A parallel loop whose body is only an independent parallel loop merges with it.
// CHECK-LABEL: func.func @parallel_merge_nested(
// CHECK-SAME:    %[[M:.*]]: memref<?x?xf32>, %[[N0:.*]]: index, %[[N1:.*]]: index, %[[X:.*]]: f32) {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[C0]]) to (%[[N0]], %[[N1]]) step (%[[C1]], %[[C1]]) {
// CHECK-NEXT:      memref.store %[[X]], %[[M]][%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
func.func @parallel_merge_nested(%m: memref<?x?xf32>, %n0: index, %n1: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n0) step (%c1) {
    scf.parallel (%j) = (%c0) to (%n1) step (%c1) {
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
