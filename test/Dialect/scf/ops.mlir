// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | tb-opt | FileCheck %s
// tb-opt prints exactly what mlir-opt prints, and mlir-opt reads tb-opt's output (custom and
// generic) with the same meaning. (Not %mlir-diff: region arguments print without their
// locations in the custom form, in mlir-opt's output as in ours, so its debug-info
// round trip names the printed file, which differs between the two tools.)
// RUN: tb-opt %s > %t.tb && mlir-opt %s > %t.ref && diff %t.ref %t.tb
// RUN: mlir-opt --mlir-print-op-generic --mlir-print-debuginfo %s > %t.ref.generic
// RUN: tb-opt --mlir-print-op-generic --mlir-print-debuginfo %s | mlir-opt --mlir-print-op-generic --mlir-print-debuginfo > %t.tb.generic
// RUN: diff %t.ref.generic %t.tb.generic
// RUN: tb-opt --mlir-print-op-generic %s | mlir-opt --mlir-print-op-generic > %t.tb.plain
// RUN: tb-opt %s | mlir-opt --mlir-print-op-generic > %t.tb.custom
// RUN: diff %t.tb.plain %t.tb.custom
// REQUIRES: mlir-opt

// `scf.for` over index bounds; a body yielding nothing shows no `scf.yield`.
// CHECK-LABEL: func.func @for_index(%arg0: index, %arg1: index, %arg2: index) {
// CHECK-NEXT:    scf.for %arg3 = %arg0 to %arg1 step %arg2 {
// CHECK-NEXT:      %0 = arith.addi %arg3, %arg3 : index
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @for_index(%lb: index, %ub: index, %step: index) {
  scf.for %i = %lb to %ub step %step {
    %x = arith.addi %i, %i : index
  }
  return
}

// Integer bounds print their type after the step (two spaces, as MLIR prints them); `unsigned` compares unsigned.
// CHECK-LABEL: func.func @for_i32_unsigned(%arg0: i32, %arg1: i32, %arg2: i32) {
// CHECK-NEXT:    scf.for %arg3 = %arg0 to %arg1 step %arg2  : i32 {
// CHECK-NEXT:      scf.for unsigned %arg4 = %arg0 to %arg1 step %arg2  : i32 {
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @for_i32_unsigned(%lb: i32, %ub: i32, %step: i32) {
  scf.for %i = %lb to %ub step %step : i32 {
    scf.for unsigned %j = %lb to %ub step %step : i32 {
    }
  }
  return
}

// Loop-carried values: the body's `scf.yield` is shown.
// CHECK-LABEL: func.func @for_iter_args(%arg0: index, %arg1: index, %arg2: index, %arg3: f32) -> f32 {
// CHECK-NEXT:    %0 = scf.for %arg4 = %arg0 to %arg1 step %arg2 iter_args(%arg5 = %arg3) -> (f32) {
// CHECK-NEXT:      %1 = arith.addf %arg5, %arg5 : f32
// CHECK-NEXT:      scf.yield %1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @for_iter_args(%lb: index, %ub: index, %step: index, %init: f32) -> f32 {
  %sum = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) {
    %next = arith.addf %acc, %acc : f32
    scf.yield %next : f32
  }
  return %sum : f32
}

// Several iter_args, an integer induction variable and trailing attributes.
// CHECK-LABEL: func.func @for_i64_iter_args(%arg0: i64, %arg1: i64) -> (i64, f32) {
// CHECK-NEXT:    %c1_i64 = arith.constant 1 : i64
// CHECK-NEXT:    %c0_i64 = arith.constant 0 : i64
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %0:2 = scf.for %arg2 = %arg0 to %arg1 step %c1_i64 iter_args(%arg3 = %c0_i64, %arg4 = %cst) -> (i64, f32)  : i64 {
// CHECK-NEXT:      %1 = arith.addi %arg3, %arg2 : i64
// CHECK-NEXT:      scf.yield %1, %arg4 : i64, f32
// CHECK-NEXT:    } {tag = "loop"}
// CHECK-NEXT:    return %0#0, %0#1 : i64, f32
// CHECK-NEXT:  }
func.func @for_i64_iter_args(%lb: i64, %ub: i64) -> (i64, f32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %lb to %ub step %c1 iter_args(%a = %c0, %b = %z) -> (i64, f32) : i64 {
    %n = arith.addi %a, %i : i64
    scf.yield %n, %b : i64, f32
  } {tag = "loop"}
  return %r#0, %r#1 : i64, f32
}

// `scf.if` without results or else region.
// CHECK-LABEL: func.func @if_then(%arg0: i1, %arg1: f32) {
// CHECK-NEXT:    scf.if %arg0 {
// CHECK-NEXT:      %0 = arith.addf %arg1, %arg1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @if_then(%c: i1, %x: f32) {
  scf.if %c {
    %y = arith.addf %x, %x : f32
  }
  return
}

// `scf.if` with results yields in both regions.
// CHECK-LABEL: func.func @if_else_results(%arg0: i1, %arg1: f32) -> (f32, f32) {
// CHECK-NEXT:    %0:2 = scf.if %arg0 -> (f32, f32) {
// CHECK-NEXT:      %1 = arith.addf %arg1, %arg1 : f32
// CHECK-NEXT:      scf.yield %1, %arg1 : f32, f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %1 = arith.subf %arg1, %arg1 : f32
// CHECK-NEXT:      scf.yield %1, %1 : f32, f32
// CHECK-NEXT:    } {tag}
// CHECK-NEXT:    return %0#0, %0#1 : f32, f32
// CHECK-NEXT:  }
func.func @if_else_results(%c: i1, %x: f32) -> (f32, f32) {
  %r:2 = scf.if %c -> (f32, f32) {
    %a = arith.addf %x, %x : f32
    scf.yield %a, %x : f32, f32
  } else {
    %b = arith.subf %x, %x : f32
    scf.yield %b, %b : f32, f32
  } {tag}
  return %r#0, %r#1 : f32, f32
}

// `scf.while`: the 'after' region spells its arguments; attributes follow `attributes`.
// CHECK-LABEL: func.func @while_loop(%arg0: i32) -> i32 {
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = scf.while (%arg1 = %c0_i32) : (i32) -> i32 {
// CHECK-NEXT:      %1 = arith.cmpi slt, %arg1, %arg0 : i32
// CHECK-NEXT:      scf.condition(%1) %arg1 : i32
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%arg1: i32):
// CHECK-NEXT:      %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT:      %1 = arith.addi %arg1, %c1_i32 : i32
// CHECK-NEXT:      scf.yield %1 : i32
// CHECK-NEXT:    } attributes {tag = "w"}
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
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
  } attributes {tag = "w"}
  return %r : i32
}

// `scf.while` carrying nothing.
// CHECK-LABEL: func.func @while_no_values() {
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    scf.while : () -> () {
// CHECK-NEXT:      scf.condition(%true)
// CHECK-NEXT:    } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @while_no_values() {
  %true = arith.constant true
  scf.while : () -> () {
    scf.condition(%true)
  } do {
    scf.yield
  }
  return
}

// `scf.execute_region` with one or several results, `no_inline`, and several blocks.
// CHECK-LABEL: func.func @execute_region() -> (i64, i64) {
// CHECK-NEXT:    %0 = scf.execute_region -> i64 {
// CHECK-NEXT:      %c1_i64 = arith.constant 1 : i64
// CHECK-NEXT:      scf.yield %c1_i64 : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %1:2 = scf.execute_region -> (i64, i64) no_inline {
// CHECK-NEXT:      %c2_i64 = arith.constant 2 : i64
// CHECK-NEXT:      scf.yield %c2_i64, %c2_i64 : i64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.execute_region {
// CHECK-NEXT:      cf.br ^bb1
// CHECK-NEXT:    ^bb1:  // pred: ^bb0
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0, %1#1 : i64, i64
// CHECK-NEXT:  }
func.func @execute_region() -> (i64, i64) {
  %a = scf.execute_region -> i64 {
    %c1 = arith.constant 1 : i64
    scf.yield %c1 : i64
  }
  %b:2 = scf.execute_region -> (i64, i64) no_inline {
    %c2 = arith.constant 2 : i64
    scf.yield %c2, %c2 : i64, i64
  }
  scf.execute_region {
    cf.br ^bb1
  ^bb1:
    scf.yield
  }
  return %a, %b#1 : i64, i64
}

// `scf.index_switch`: one line per case, then the default (its empty `scf.yield` elided).
// CHECK-LABEL: func.func @index_switch(%arg0: index) -> i32 {
// CHECK-NEXT:    %0 = scf.index_switch %arg0 -> i32 
// CHECK-NEXT:    case 2 {
// CHECK-NEXT:      %c10_i32 = arith.constant 10 : i32
// CHECK-NEXT:      scf.yield %c10_i32 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    case -5 {
// CHECK-NEXT:      %c20_i32 = arith.constant 20 : i32
// CHECK-NEXT:      scf.yield %c20_i32 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    default {
// CHECK-NEXT:      %c30_i32 = arith.constant 30 : i32
// CHECK-NEXT:      scf.yield %c30_i32 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.index_switch %arg0 
// CHECK-NEXT:    default {
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @index_switch(%i: index) -> i32 {
  %r = scf.index_switch %i -> i32
  case 2 {
    %c10 = arith.constant 10 : i32
    scf.yield %c10 : i32
  }
  case -5 {
    %c20 = arith.constant 20 : i32
    scf.yield %c20 : i32
  }
  default {
    %c30 = arith.constant 30 : i32
    scf.yield %c30 : i32
  }
  scf.index_switch %i
  default {
  }
  return %r : i32
}

// `scf.parallel` with two dimensions and two reductions; a body without reductions ends with a bare `scf.reduce`.
// CHECK-LABEL: func.func @parallel_reduce(%arg0: index, %arg1: index, %arg2: index) -> (f32, i32) {
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT:    %0:2 = scf.parallel (%arg3, %arg4) = (%arg0, %arg0) to (%arg1, %arg1) step (%arg2, %arg2) init (%cst, %c1_i32) -> (f32, i32) {
// CHECK-NEXT:      %cst_0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %1 = arith.index_cast %arg3 : index to i32
// CHECK-NEXT:      scf.reduce(%cst_0, %1 : f32, i32) {
// CHECK-NEXT:      ^bb0(%arg5: f32, %arg6: f32):
// CHECK-NEXT:        %2 = arith.addf %arg5, %arg6 : f32
// CHECK-NEXT:        scf.reduce.return %2 : f32
// CHECK-NEXT:      }, {
// CHECK-NEXT:      ^bb0(%arg5: i32, %arg6: i32):
// CHECK-NEXT:        %2 = arith.muli %arg5, %arg6 : i32
// CHECK-NEXT:        scf.reduce.return %2 : i32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.parallel (%arg3) = (%arg0) to (%arg1) step (%arg2) {
// CHECK-NEXT:      scf.reduce 
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0#0, %0#1 : f32, i32
// CHECK-NEXT:  }
func.func @parallel_reduce(%lb: index, %ub: index, %step: index) -> (f32, i32) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1 : i32
  %r:2 = scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%step, %step) init (%zero, %one) -> (f32, i32) {
    %x = arith.constant 1.0 : f32
    %y = arith.index_cast %i : index to i32
    scf.reduce(%x, %y : f32, i32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%l: i32, %r: i32):
      %p = arith.muli %l, %r : i32
      scf.reduce.return %p : i32
    }
  }
  scf.parallel (%k) = (%lb) to (%ub) step (%step) {
  }
  return %r#0, %r#1 : f32, i32
}
