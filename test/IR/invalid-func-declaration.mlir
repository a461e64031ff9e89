// RUN: %mlir-diff --invalid %s
// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// REQUIRES: mlir-opt

// A func.func without a body is a declaration, and a declaration must be private (or
// nested): a public symbol has to be defined where it is seen.

// expected-error@+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func @no_visibility(i32) -> i32

// -----

// expected-error@+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func public @explicitly_public()

// -----

// The generic form with an empty body region.
// expected-error@+1 {{'func.func' op symbol declaration cannot have public visibility}}
"func.func"() <{function_type = () -> (), sym_name = "generic"}> ({
}) : () -> ()
