// A nested pipeline runs on several functions at once (one thread per core, or
// TB_NUM_THREADS), unless --mlir-disable-threading; the output and the IR dumps are the
// same either way.
// RUN: tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-op-generic --mlir-print-ir-after-all > %t.default 2>&1
// RUN: env TB_NUM_THREADS=3 tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-op-generic --mlir-print-ir-after-all > %t.three 2>&1
// RUN: tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-op-generic --mlir-print-ir-after-all --mlir-disable-threading > %t.one 2>&1
// RUN: diff %t.default %t.one
// RUN: diff %t.three %t.one
// RUN: FileCheck %s < %t.three
// RUN: FileCheck %s < %t.one

// The dumps come per function, in program order.
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK-NEXT: sym_name = "a"
// CHECK: IR Dump After CSE (cse)
// CHECK-NEXT: sym_name = "a"
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK-NEXT: sym_name = "b"
// CHECK: IR Dump After CSE (cse)
// CHECK-NEXT: sym_name = "b"
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK-NEXT: sym_name = "c"
// CHECK: IR Dump After CSE (cse)
// CHECK-NEXT: sym_name = "c"
// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK-NEXT: sym_name = "d"
// CHECK: IR Dump After CSE (cse)
// CHECK-NEXT: sym_name = "d"

// CHECK-LABEL: "builtin.module"() ({
// CHECK:       sym_name = "a"
// CHECK-NEXT:  ^bb0(%[[X:.*]]: i32):
// CHECK-NEXT:    %[[W:.*]] = "builtin.unrealized_conversion_cast"(%[[X]]) : (i32) -> i64
// CHECK-NEXT:    %[[C:.*]] = "func.call"(%[[W]]) <{callee = @b}> : (i64) -> f32
// CHECK-NEXT:    "func.return"(%[[X]], %[[W]], %[[C]]) : (i32, i64, f32) -> ()
// CHECK:       sym_name = "b"
// CHECK-NEXT:  ^bb0(%[[Y:.*]]: i64):
// CHECK-NEXT:    %[[F:.*]] = "builtin.unrealized_conversion_cast"(%[[Y]]) : (i64) -> f32
// CHECK-NEXT:    "func.return"(%[[F]]) : (f32) -> ()
// CHECK:       sym_name = "c"
// CHECK:         "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:  ^bb1:  // pred: ^bb0
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK:       sym_name = "d"
// CHECK-NEXT:    "unreg.region"() ({
// CHECK-NEXT:      %[[B:.*]] = "builtin.unrealized_conversion_cast"() : () -> i1
// CHECK-NEXT:      "unreg.use"(%[[B]], %[[B]]) : (i1, i1) -> ()

// The variable must be a positive integer.
// RUN: env TB_NUM_THREADS=0 not tb-opt %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tb-opt: TB_NUM_THREADS must be a positive integer, not '0'

module {
  "func.func"() <{function_type = (i32) -> (i32, i64, f32), sym_name = "a"}> ({
  ^bb0(%x: i32):
    %0 = "builtin.unrealized_conversion_cast"(%x) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    %2 = "builtin.unrealized_conversion_cast"(%1) : (i32) -> i64
    %3 = "builtin.unrealized_conversion_cast"(%1) : (i32) -> i64
    %4 = "func.call"(%3) <{callee = @b}> : (i64) -> f32
    "func.return"(%1, %2, %4) : (i32, i64, f32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i64) -> f32, sym_name = "b"}> ({
  ^bb0(%y: i64):
    %0 = "builtin.unrealized_conversion_cast"(%y) : (i64) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%y) : (i64) -> f32
    %2 = "builtin.unrealized_conversion_cast"(%1) : (f32) -> i8
    "func.return"(%0) : (f32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "c"}> ({
    "unreg.br"()[^bb2] : () -> ()
  ^bb1:
    "unreg.dead"() : () -> ()
    "unreg.br"()[^bb2] : () -> ()
  ^bb2:
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "d"}> ({
    "unreg.region"() ({
      %0 = "builtin.unrealized_conversion_cast"() : () -> i1
      %1 = "builtin.unrealized_conversion_cast"() : () -> i1
      "unreg.use"(%0, %1) : (i1, i1) -> ()
    }) : () -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}
