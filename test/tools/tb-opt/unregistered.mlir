// Unknown dialects are rejected unless --allow-unregistered-dialect is given.
// RUN: not tb-opt %s 2>&1 | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=ALLOWED

// CHECK: unregistered.mlir:[[@LINE+2]]:1: error: operation being parsed with an unregistered dialect
// ALLOWED: "unreg.op"() : () -> ()
"unreg.op"() : () -> ()
