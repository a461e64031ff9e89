// A failing pipeline writes a reproducer: the IR before the pipeline plus the pipeline,
// in the input's resource trailer; --run-reproducer replays it and fails the same way.
// RUN: not tb-opt %s --pass-pipeline='builtin.module(cse,canonicalize{max-iterations=1 test-convergence})' --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=ORIG
// RUN: FileCheck %s --check-prefix=FILE < %t.repro.mlir
// RUN: not tb-opt --run-reproducer %t.repro.mlir 2>&1 | FileCheck %s --check-prefix=REPLAY

// ORIG: reproducer written to {{.*}}repro.mlir; replay it with: tb-opt --run-reproducer
// ORIG: error: canonicalizer failed to converge within 1 iterations

// FILE: "builtin.unrealized_conversion_cast"
// FILE: external_resources: {
// FILE-NEXT: mlir_reproducer: {
// FILE-NEXT: pipeline: "builtin.module(cse,canonicalize{max-iterations=1 test-convergence})",
// FILE-NEXT: disable_threading: true,
// FILE-NEXT: verify_each: true

// REPLAY: error: canonicalizer failed to converge within 1 iterations [pass 'canonicalize' on 'builtin.module']

"func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
  "func.return"(%1) : (i32) -> ()
}) : () -> ()
