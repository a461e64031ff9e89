// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Attributes of unregistered dialects.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.bare"() {a = #foo.bar, b = #foo.baz_1, c = #a.b.c} : () -> ()
"unreg.bare"() {a = #foo.bar, b = #foo.baz_1, c = #a.b.c} : () -> ()

// Bodies are kept verbatim, whitespace and string escapes included.
// CHECK-LABEL: "unreg.bodies"() {a = #foo.bar<1, "x">, b = #foo.t<  sp  >, c = #foo.s<"q\"\n">, d = #foo.n<a<b<c>>, [x], {y}, (z)>, e = #foo.arrow<x -> y>} : () -> ()
"unreg.bodies"() {a = #foo.bar<1, "x">, b = #foo.t<  sp  >, c = #foo.s<"q\"\n">, d = #foo.n<a<b<c>>, [x], {y}, (z)>, e = #foo.arrow<x -> y>} : () -> ()

// The opaque form with a string body, and an empty body.
// CHECK-LABEL: "unreg.forms"() {a = #foo<"raw body">, b = #foo.e<>} : () -> ()
"unreg.forms"() {a = #foo<"raw body">, b = #foo.e<>} : () -> ()

// Dialect attributes inside containers, as properties and as
// discardable attributes whose name carries the dialect prefix.
// CHECK-LABEL: "unreg.nested"() <{p = #foo.prop<1>}> {a = [#foo.a, #foo.b<x>], d = {k = #foo.c}, foo.discardable = #foo.d} : () -> ()
"unreg.nested"() <{p = #foo.prop<1>}> {a = [#foo.a, #foo.b<x>], d = {k = #foo.c}, foo.discardable = #foo.d} : () -> ()

// Dialect attributes with a type.
// CHECK-LABEL: "unreg.typed"() {a = #foo.val<1> : i32, b = #foo.v : tensor<4xf32>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.typed"() {a = #foo.val<1> : i32, b = #foo.v : tensor<4xf32>} : () -> ()
