// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense string elements (the element type is not checked).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.strings"() {a = dense<["a", "bc", ""]> : tensor<3x!unreg.str>, b = dense<"splat"> : tensor<2x!unreg.str>, c = dense<{{\[\[}}"x"], ["y"]]> : tensor<2x1x!unreg.str>} : () -> ()
"unreg.strings"() {a = dense<["a", "bc", ""]> : tensor<3x!unreg.str>, b = dense<"splat"> : tensor<2x!unreg.str>, c = dense<[["x"], ["y"]]> : tensor<2x1x!unreg.str>} : () -> ()

// Escapes in dense strings.
// CHECK-LABEL: "unreg.string_escapes"() {a = dense<["q\22", "\\", "\0A\00"]> : tensor<3x!unreg.str>} : () -> ()
"unreg.string_escapes"() {a = dense<["q\"", "\\", "\n\00"]> : tensor<3x!unreg.str>} : () -> ()

// Rank-0 and nested dense strings.
// CHECK-LABEL: "unreg.string_shapes"() {a = dense<"hello"> : tensor<!unreg.str>, b = dense<{{\[\[}}"p", "q"]]> : tensor<1x2x!unreg.str>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.string_shapes"() {a = dense<"hello"> : tensor<!unreg.str>, b = dense<[["p", "q"]]> : tensor<1x2x!unreg.str>} : () -> ()
