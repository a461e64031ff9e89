// RUN: %mlir-diff --invalid %s
// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// REQUIRES: mlir-opt

// A successor list in brackets has at least one successor: `[]` is an error, as in
// mlir-opt (an op without successors leaves the brackets out).

"unreg.func"() ({
// expected-error@+1 {{expected list element}}
  "unreg.br"()[] : () -> ()
}) : () -> ()

// -----

// At the top level too, where no successor could be named anyway.
// expected-error@+1 {{expected list element}}
"unreg.br"()[] : () -> ()
