// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --split-input-file %s | FileCheck %s
// REQUIRES: mlir-opt

// builtin.module in its custom form: module, module @name,
// module attributes {...}. A file holding exactly one top-level module is
// not wrapped in another one.
//
// The chunks of the output are separated by a line holding the split marker;
// the CHECK lines match it with a regex because mlir-opt --split-input-file
// splits at the marker text anywhere in a line, comments included.

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "unreg.in_plain_module"() : () -> ()
// CHECK-NEXT: }) : () -> ()
module {
  "unreg.in_plain_module"() : () -> ()
}

// -----

// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() <{sym_name = "named"}> ({
// CHECK-NEXT:   "unreg.in_named_module"() : () -> ()
// CHECK-NEXT: }) : () -> ()
module @named {
  "unreg.in_named_module"() : () -> ()
}

// -----

// Discardable attributes of a module must have a dialect prefix; the
// inherent sym_name/sym_visibility become properties.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() <{sym_name = "with_attrs", sym_visibility = "private"}> ({
// CHECK-NEXT:   "unreg.in_module_with_attrs"() : () -> ()
// CHECK-NEXT: }) {foo.flag, unreg.attr = 1 : i32} : () -> ()
module @with_attrs attributes {unreg.attr = 1 : i32, sym_visibility = "private", foo.flag} {
  "unreg.in_module_with_attrs"() : () -> ()
}

// -----

// attributes without a name; a quoted module name.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "builtin.module"() <{sym_name = "quoted name"}> ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) {foo.x = [1, 2]} : () -> ()
module attributes {foo.x = [1, 2]} {
  module @"quoted name" {
  }
}

// -----

// An empty module gets an empty block, which is printed.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) : () -> ()
module {
}

// -----

// The generic form of builtin.module.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() <{sym_name = "generic"}> ({
// CHECK-NEXT:   "unreg.in_generic_module"() : () -> ()
// CHECK-NEXT: }) {foo.attr} : () -> ()
"builtin.module"() <{sym_name = "generic"}> ({
  "unreg.in_generic_module"() : () -> ()
}) {foo.attr} : () -> ()

// -----

// A module with a location.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() <{sym_name = "located"}> ({
// CHECK-NEXT:   "unreg.in_located_module"() : () -> ()
// CHECK-NEXT: }) : () -> ()
module @located {
  "unreg.in_located_module"() : () -> ()
} loc("mod.c":1:1)
