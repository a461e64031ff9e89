// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Types of unregistered dialects.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.bare"() {a = !foo.bar, b = !foo.baz_2, c = !a.b.c} : () -> ()
"unreg.bare"() {a = !foo.bar, b = !foo.baz_2, c = !a.b.c} : () -> ()

// Bodies are kept verbatim, whitespace included.
// CHECK-LABEL: "unreg.bodies"() {a = !foo.bar<1>, b = !foo.bar<"s", 2, [3, 4]>, c = !foo.bar<i32>, d = !foo.bar<{k = v}>, e = !foo.bar<  spaced   out  >} : () -> ()
"unreg.bodies"() {a = !foo.bar<1>, b = !foo.bar<"s", 2, [3, 4]>, c = !foo.bar<i32>, d = !foo.bar<{k = v}>, e = !foo.bar<  spaced   out  >} : () -> ()

// Nested angle brackets, brackets and braces; any balanced punctuation.
// CHECK-LABEL: "unreg.nesting"() {a = !foo.t<a<b<c>>>, b = !foo.t<[(x)]{y}>, c = !foo.t<"<unbalanced in string">, d = !foo.t<x -> y>} : () -> ()
"unreg.nesting"() {a = !foo.t<a<b<c>>>, b = !foo.t<[(x)]{y}>, c = !foo.t<"<unbalanced in string">, d = !foo.t<x -> y>} : () -> ()

// The pretty form with a dot and the opaque form with a string body.
// CHECK-LABEL: "unreg.forms"() {a = !foo<"bar">, b = !foo<"bar<1>">, c = !foo.bar<>} : () -> ()
"unreg.forms"() {a = !foo<"bar">, b = !foo<"bar<1>">, c = !foo.bar<>} : () -> ()

// Dialect types as values and inside builtin types.
// CHECK-LABEL: %0 = "unreg.opaque_values"() : () -> !foo.handle<3>
// CHECK-NEXT:   %1 = "unreg.use"(%0) : (!foo.handle<3>) -> tensor<4x!foo.elt>
// CHECK-NEXT:   %2:2 = "unreg.use2"(%1) : (tensor<4x!foo.elt>) -> (tuple<!foo.a, !bar.b>, tensor<*x!foo.elt>)
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.opaque_values"() : () -> !foo.handle<3>
%1 = "unreg.use"(%0) : (!foo.handle<3>) -> tensor<4x!foo.elt>
"unreg.use2"(%1) : (tensor<4x!foo.elt>) -> (tuple<!foo.a, !bar.b>, tensor<*x!foo.elt>)
