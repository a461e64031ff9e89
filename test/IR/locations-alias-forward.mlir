// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Location aliases may be used before they are defined, the way the printer
// emits them: definitions after the operations (only locations allow this).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.fwd"() : () -> () loc("fwd.c":1:1)
"unreg.fwd"() : () -> () loc(#loc1)
// CHECK-LABEL: "unreg.fwd_region"() ({
// CHECK-NEXT:   ^bb0(%arg0: i32 loc("arg.c":2:2)):
// CHECK-NEXT:     "unreg.inner"() : () -> () loc(callsite("fwd.c":1:1 at "arg.c":2:2))
// CHECK-NEXT:   }) : () -> () loc(fused<"meta">["fwd.c":1:1, callsite("fwd.c":1:1 at "arg.c":2:2)])
"unreg.fwd_region"() ({
^bb0(%arg0: i32 loc(#loc2)):
  "unreg.inner"() : () -> () loc(#loc3)
}) : () -> () loc(#loc4)
// CHECK-LABEL: "unreg.fwd_twice"() : () -> () loc("fwd.c":1:1)
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations-alias-forward.mlir":0:0)
"unreg.fwd_twice"() : () -> () loc(#loc1)

#loc1 = loc("fwd.c":1:1)
#loc2 = loc("arg.c":2:2)
#loc3 = loc(callsite(#loc1 at #loc2))
#loc4 = loc(fused<"meta">[#loc1, #loc3])
