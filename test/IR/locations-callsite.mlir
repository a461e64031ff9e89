// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Call site locations.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.callsite"() : () -> () loc(callsite("callee" at "caller.c":7:8))
"unreg.callsite"() : () -> () loc(callsite("callee" at "caller.c":7:8))

// Nested call sites, on either side.
// CHECK-LABEL: "unreg.callsite_nested"() : () -> () loc(callsite(callsite("a" at "b":1:1) at "c":2:2))
"unreg.callsite_nested"() : () -> () loc(callsite(callsite("a" at "b":1:1) at "c":2:2))
// CHECK-LABEL: "unreg.callsite_nested_caller"() : () -> () loc(callsite("a" at callsite("b":1:1 at "c":2:2)))
"unreg.callsite_nested_caller"() : () -> () loc(callsite("a" at callsite("b":1:1 at "c":2:2)))

// Call sites mixing other kinds of locations.
// CHECK-LABEL: "unreg.callsite_mixed"() : () -> () loc(callsite("f"("f.c":1:1) at fused["g.c":2:2, "h.c":3:3]))
"unreg.callsite_mixed"() : () -> () loc(callsite("f"("f.c":1:1) at fused["g.c":2:2, "h.c":3:3]))
// CHECK-LABEL: "unreg.callsite_unknown"() : () -> () loc(callsite(unknown at unknown))
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations-callsite.mlir":0:0)
"unreg.callsite_unknown"() : () -> () loc(callsite(unknown at unknown))
