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
