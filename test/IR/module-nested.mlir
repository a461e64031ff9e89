// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Nested modules, in custom and generic form. The single top-level module
// is not wrapped.

// CHECK:      "builtin.module"() <{sym_name = "outer"}> ({
// CHECK-NEXT:   "builtin.module"() ({
// CHECK-NEXT:     "unreg.in_anonymous"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "builtin.module"() <{sym_name = "inner"}> ({
// CHECK-NEXT:     "builtin.module"() <{sym_name = "innermost"}> ({
// CHECK-NEXT:       "unreg.deep"() : () -> ()
// CHECK-NEXT:     }) {foo.deep} : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "builtin.module"() <{sym_name = "gen"}> ({
// CHECK-NEXT:     "unreg.in_generic"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "builtin.module"() <{sym_name = "empty"}> ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "unreg.after_modules"() : () -> ()
// CHECK-NEXT: }) : () -> ()
module @outer {
  module {
    "unreg.in_anonymous"() : () -> ()
  }
  module @inner {
    module @innermost attributes {foo.deep} {
      "unreg.deep"() : () -> ()
    }
  }
  // A module in generic form, with sym_name in the attribute dictionary.
  "builtin.module"() ({
    "unreg.in_generic"() : () -> ()
  }) {sym_name = "gen"} : () -> ()
  module @empty {
  }
  "unreg.after_modules"() : () -> ()
}
