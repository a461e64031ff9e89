// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Private and nested declarations are valid: only public ones are rejected
// (invalid-func-declaration.mlir).

// CHECK-LABEL: "func.func"() <{function_type = (i32) -> i32, sym_name = "private_decl", sym_visibility = "private"}> ({
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "private_decl", sym_visibility = "private"}> ({
}) : () -> ()

// CHECK-LABEL: "func.func"() <{function_type = () -> (), sym_name = "nested_decl", sym_visibility = "nested"}> ({
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "nested_decl", sym_visibility = "nested"}> ({
}) : () -> ()
