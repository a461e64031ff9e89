// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// The generic operation form: "dialect.name"(operands)[successors]
// <{properties}> (regions) {attributes} : function-type loc(...).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: %0 = "unreg.no_operands"() : () -> i32
%0 = "unreg.no_operands"() : () -> i32

// CHECK-LABEL: %1 = "unreg.operands"(%0, %0) : (i32, i32) -> i64
%1 = "unreg.operands"(%0, %0) : (i32, i32) -> i64

// Everything at once.
// CHECK-LABEL: %2 = "unreg.everything"(%1) <{prop = 1 : i32}> ({
// CHECK-NEXT:     "unreg.inner"() : () -> ()
// CHECK-NEXT:   }) {attr = "a"} : (i64) -> f32
%2 = "unreg.everything"(%1) <{prop = 1 : i32}> ({
  "unreg.inner"() : () -> ()
}) {attr = "a"} : (i64) -> f32

// Operation names with several dots, digits and underscores, and a dialect
// namespace only.
// CHECK-LABEL: "unreg.a.b.c"() : () -> ()
"unreg.a.b.c"() : () -> ()
// CHECK-LABEL: "unreg._x1$y"() : () -> ()
"unreg._x1$y"() : () -> ()
// CHECK-LABEL: "a_dialect.op"() : () -> ()
"a_dialect.op"() : () -> ()

// Operation names are strings: escapes are allowed in them.
// CHECK-LABEL: "unreg.escaped"() : () -> ()
// CHECK-NEXT:   %3 = "unreg.src"() : () -> !foo.t
"unreg.esc\61ped"() : () -> ()

// Types of operands may be any builtin or dialect type.
// CHECK-LABEL: "unreg.typed_operands"(%3, %2) : (!foo.t, f32) -> ()
// CHECK-NEXT: }) : () -> ()
%3 = "unreg.src"() : () -> !foo.t
"unreg.typed_operands"(%3, %2) : (!foo.t, f32) -> ()
