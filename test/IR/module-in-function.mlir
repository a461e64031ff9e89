// RUN: tb-opt %s | FileCheck %s
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// Inside a function the default dialect is `func`, so a nested module keeps its
// `builtin.` prefix (a bare `module` would be read as `func.module`); at the top level and
// inside a module it prints as `module`.
// CHECK-LABEL: func.func @module_in_function() {
// CHECK-NEXT:    builtin.module {
// CHECK-NEXT:      module @inner {
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @module_in_function() {
  builtin.module {
    builtin.module @inner {
    }
  }
  return
}
