// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Function types, as attributes and inside other types.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.simple"() {a = () -> (), b = (i32) -> i32, c = (i32, f32) -> (), d = () -> f32, e = (i1) -> (i1, i1)} : () -> ()
"unreg.simple"() {a = () -> (), b = (i32) -> i32, c = (i32, f32) -> (), d = () -> f32, e = (i1) -> (i1, i1)} : () -> ()

// A single result is printed without parentheses; a single function-typed
// result keeps them.
// CHECK-LABEL: "unreg.parens"() {a = (i32) -> i32, b = () -> (() -> ()), c = (i32) -> ((i32) -> i32)} : () -> ()
"unreg.parens"() {a = (i32) -> (i32), b = () -> (() -> ()), c = (i32) -> ((i32) -> i32)} : () -> ()

// Function types as inputs and results of function types.
// CHECK-LABEL: "unreg.nested"() {a = ((i32) -> i32) -> ((f32) -> f32), b = (() -> (), (i8) -> (i8, i8)) -> (() -> (), i1), c = ((((i1) -> ()) -> ()) -> ()) -> ()} : () -> ()
"unreg.nested"() {a = ((i32) -> i32) -> ((f32) -> f32), b = (() -> (), (i8) -> (i8, i8)) -> (() -> (), i1), c = ((((i1) -> ()) -> ()) -> ()) -> ()} : () -> ()

// Function types in tuples and as values.
// CHECK-LABEL: %0 = "unreg.function_values"() : () -> ((i32) -> (f32, f32))
// CHECK-NEXT:   %1:2 = "unreg.use"(%0) : ((i32) -> (f32, f32)) -> (tuple<() -> ()>, (tensor<?xf32>) -> memref<*xf32>)
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.function_values"() : () -> ((i32) -> (f32, f32))
%1:2 = "unreg.use"(%0) : ((i32) -> (f32, f32)) -> (tuple<() -> ()>, (tensor<?xf32>) -> memref<*xf32>)
