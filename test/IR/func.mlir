// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// func.func and func.return in the generic form (func is a registered
// dialect, so these must verify).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "func.func"() <{function_type = (i32, f32) -> (f32, i32), sym_name = "swap"}> ({
// CHECK-NEXT:   ^bb0(%arg3: i32, %arg4: f32):
// CHECK-NEXT:     "func.return"(%arg4, %arg3) : (f32, i32) -> ()
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{function_type = (i32, f32) -> (f32, i32), sym_name = "swap"}> ({
^bb0(%a: i32, %b: f32):
  "func.return"(%b, %a) : (f32, i32) -> ()
}) : () -> ()

// A declaration: private, with an empty body region.
// CHECK-LABEL: "func.func"() <{function_type = (tensor<?xf32>) -> (), sym_name = "decl", sym_visibility = "private"}> ({
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{function_type = (tensor<?xf32>) -> (), sym_name = "decl", sym_visibility = "private"}> ({
}) : () -> ()

// Argument and result attributes.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{foo.arg}, {}], function_type = (i64, i64) -> i64, res_attrs = [{foo.res = 1 : i32}], sym_name = "attrs"}> ({
// CHECK-NEXT:   ^bb0(%arg1: i64, %arg2: i64):
// CHECK-NEXT:     "func.return"(%arg1) : (i64) -> ()
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{arg_attrs = [{foo.arg}, {}], function_type = (i64, i64) -> i64, res_attrs = [{foo.res = 1 : i32}], sym_name = "attrs"}> ({
^bb0(%x: i64, %y: i64):
  "func.return"(%x) : (i64) -> ()
}) : () -> ()

// A multi-block body using unregistered branch operations.
// CHECK-LABEL: "func.func"() <{function_type = (i1) -> i8, sym_name = "cfg"}> ({
// CHECK-NEXT:   ^bb0(%arg0: i1):
// CHECK-NEXT:     "unreg.cond_br"(%arg0)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     %0 = "unreg.const"() {value = 1 : i8} : () -> i8
// CHECK-NEXT:     "func.return"(%0) : (i8) -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb0
// CHECK-NEXT:     %1 = "unreg.const"() {value = 2 : i8} : () -> i8
// CHECK-NEXT:     "func.return"(%1) : (i8) -> ()
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{function_type = (i1) -> i8, sym_name = "cfg"}> ({
^bb0(%c: i1):
  "unreg.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  %one = "unreg.const"() {value = 1 : i8} : () -> i8
  "func.return"(%one) : (i8) -> ()
^bb2:
  %two = "unreg.const"() {value = 2 : i8} : () -> i8
  "func.return"(%two) : (i8) -> ()
}) : () -> ()

// Discardable attributes on a function, and a function inside a module.
// CHECK-LABEL: "builtin.module"() <{sym_name = "lib"}> ({
// CHECK-NEXT:     "func.func"() <{function_type = () -> (), sym_name = "noop"}> ({
// CHECK-NEXT:       "func.return"() : () -> ()
// CHECK-NEXT:     }) {foo.inline} : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
module @lib {
  "func.func"() <{function_type = () -> (), sym_name = "noop"}> ({
    "func.return"() : () -> ()
  }) {foo.inline} : () -> ()
}
