// When several functions fail, the first one in program order is reported, whichever
// thread got there first, and the IR dumps stop there as without threads.
// RUN: tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence}))' --verify-diagnostics
// RUN: env TB_NUM_THREADS=4 tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence}))' --verify-diagnostics
// RUN: tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence}))' --verify-diagnostics --mlir-disable-threading
// RUN: env TB_NUM_THREADS=4 not tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence}))' --mlir-print-op-generic --mlir-print-ir-after-all --mlir-print-ir-after-failure > %t.threads 2>&1
// RUN: not tb-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence}))' --mlir-print-op-generic --mlir-print-ir-after-all --mlir-print-ir-after-failure --mlir-disable-threading > %t.one 2>&1
// RUN: diff %t.threads %t.one
// RUN: FileCheck %s < %t.threads

// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK-NEXT: sym_name = "converges"
// CHECK: IR Dump After Canonicalizer Failed (canonicalize)
// CHECK-NEXT: sym_name = "first"
// CHECK-NOT: IR Dump
// CHECK: error: canonicalizer failed to converge within 1 iterations [pass 'canonicalize' on 'func.func']
// CHECK-NOT: error

module {
  "func.func"() <{function_type = () -> (), sym_name = "converges"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
  // expected-error@+1 {{canonicalizer failed to converge within 1 iterations}}
  "func.func"() <{function_type = (i32) -> i32, sym_name = "first"}> ({
  ^bb0(%a: i32):
    %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i32) -> i32, sym_name = "second"}> ({
  ^bb0(%a: i32):
    %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i32) -> i32, sym_name = "third"}> ({
  ^bb0(%a: i32):
    %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
}
