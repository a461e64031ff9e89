// A failing pass stops the pipeline with an error naming the pass and the op it ran on;
// --mlir-print-ir-after-failure shows the IR it left.
// RUN: not tb-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=1 test-convergence},cse)' --mlir-print-ir-after-failure --mlir-print-ir-after=cse 2>&1 | FileCheck %s
// CHECK: // -----// IR Dump After Canonicalizer Failed (canonicalize) //----- //
// CHECK: module {
// CHECK: error: canonicalizer failed to converge within 1 iterations [pass 'canonicalize' on 'builtin.module']
// CHECK-NOT: IR Dump After CSE

// The same diagnostic is matched by --verify-diagnostics (a substring of it suffices).
// RUN: tb-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=1 test-convergence})' --verify-diagnostics

// expected-error@+1 {{canonicalizer failed to converge within 1 iterations}}
module {
  "func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
  ^bb0(%a: i32):
    %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
}
