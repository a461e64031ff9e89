// Pipelines print back with every element; passes given as flags run in order.
// RUN: tb-opt %s --dump-pass-pipeline --pass-pipeline='builtin.module(func.func(cse, dce), symbol-dce)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: Pass Manager with 3 passes:
// NESTED-NEXT: builtin.module(func.func(cse,dce),symbol-dce)

// RUN: tb-opt %s --dump-pass-pipeline --cse --symbol-dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS
// FLAGS: builtin.module(cse,symbol-dce)

// Invalid pipelines are reported before anything runs, and the run fails.
// RUN: not tb-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// UNCLOSED: tb-opt: invalid pass pipeline: expected ')' to close the pipeline
// RUN: not tb-opt %s --pass-pipeline='cse' 2>&1 | FileCheck %s --check-prefix=UNANCHORED
// UNANCHORED: a pipeline must be anchored on an operation
// RUN: not tb-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: tb-opt: 'no-such-pass' does not refer to a registered pass (see --list-passes)
// RUN: not tb-opt %s --pass-pipeline='builtin.module(cse{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: tb-opt: pass 'cse' takes no options, but was given 'bogus'
// RUN: not tb-opt %s --cse --pass-pipeline='builtin.module(dce)' 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: --pass-pipeline cannot be combined with passes given as flags
// RUN: not tb-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: error: can't run 'func.func' pass manager on 'builtin.module' op

// The registry lists passes with their descriptions.
// RUN: tb-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST: Passes:
// LIST: --cse {{ *}}Eliminate common sub-expressions
// LIST: --symbol-dce

"func.func"() <{function_type = () -> (), sym_name = "f"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// Typed options print back at their effective values; bad values are rejected.
// RUN: tb-opt %s --dump-pass-pipeline --pass-pipeline='builtin.module(canonicalize{max-iterations=3 test-convergence})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CANON
// CANON: builtin.module(canonicalize{max-iterations=3 region-simplify=true test-convergence=true top-down=true})
// RUN: not tb-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=many})' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: invalid value 'many' for option 'max-iterations' of pass 'canonicalize': expected int
// RUN: tb-opt %s --canonicalize="max-iterations=2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGOPT
// FLAGOPT: builtin.module(canonicalize{max-iterations=2
