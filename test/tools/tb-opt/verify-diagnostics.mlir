// Expectations that do not match are reported, and the run fails.
// RUN: not tb-opt --split-input-file --verify-diagnostics %s 2>&1 | FileCheck %s

// CHECK: verify-diagnostics.mlir:[[@LINE+2]]:{{[0-9]+}}: error: unexpected error: use of undeclared SSA value name
// expected-error@+1 {{some other message}}
"builtin.unrealized_conversion_cast"(%undefined) : (i32) -> i32
// CHECK: verify-diagnostics.mlir:[[@LINE-2]]: error: expected error "some other message" was not produced

// -----

// A chunk with an expectation but no error.
// CHECK: verify-diagnostics.mlir:[[@LINE+1]]: error: expected error "never happens" was not produced
// expected-error@+1 {{never happens}}
%0 = "builtin.unrealized_conversion_cast"() : () -> i32
