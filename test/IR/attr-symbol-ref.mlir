// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Symbol reference attributes: flat, nested and quoted.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.flat"() {a = @foo, b = @_bar, c = @baz$1, d = @x.y, e = @a1_2} : () -> ()
"unreg.flat"() {a = @foo, b = @_bar, c = @baz$1, d = @x.y, e = @a1_2} : () -> ()

// CHECK-LABEL: "unreg.nested"() {a = @a::@b, b = @a::@b::@c, c = @outer::@"in ner"::@leaf} : () -> ()
"unreg.nested"() {a = @a::@b, b = @a::@b::@c, c = @outer::@"in ner"::@leaf} : () -> ()

// Names that are not bare identifiers are quoted.
// CHECK-LABEL: "unreg.quoted"() {a = @"with space", b = @"q\22s", c = @"1starts_with_digit", d = @plain, f = @"new\0Aline"} : () -> ()
"unreg.quoted"() {a = @"with space", b = @"q\"s", c = @"1starts_with_digit", d = @"plain", f = @"new\nline"} : () -> ()

// Symbol references in arrays and properties.
// CHECK-LABEL: "unreg.sym_props"() <{callee = @f, targets = [@a, @b::@c]}> : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.sym_props"() <{callee = @f, targets = [@a, @b::@c]}> : () -> ()
