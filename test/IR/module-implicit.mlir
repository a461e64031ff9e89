// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --split-input-file %s | FileCheck %s
// REQUIRES: mlir-opt

// The implicit top-level module: top-level operations other than a single
// module are wrapped in a builtin.module.

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "unreg.top_level_op"() : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.top_level_op"() : () -> ()

// -----

// Two modules at the top level are wrapped.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "builtin.module"() <{sym_name = "first"}> ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "builtin.module"() <{sym_name = "second"}> ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
module @first {
}
module @second {
}

// -----

// A module followed by another operation is wrapped.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "builtin.module"() ({
// CHECK-NEXT:     "unreg.inside"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "unreg.outside"() : () -> ()
// CHECK-NEXT: }) : () -> ()
module {
  "unreg.inside"() : () -> ()
}
"unreg.outside"() : () -> ()

// -----

// A chunk with only comments and aliases is an empty module.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) : () -> ()
#unused = 1

// -----

// A top-level "unreg.module"-like operation is not a module.
// CHECK-LABEL: {{^// -{5}$}}
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "unreg.module"() ({
// CHECK-NEXT:     "unreg.x"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.module"() ({
  "unreg.x"() : () -> ()
}) : () -> ()
