// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Location aliases: #name = loc(...) defined at the top, used as loc(#name),
// and referenced from inside other locations. The printer makes its own
// #locN aliases and prints them after the module.

#loc_a = loc("alias.c":10:2)
#loc_b = loc("other.c":1:1)
#meta_loc = loc(fused<"meta">[#loc_a, "n"])
#call = loc(callsite(#loc_a at #loc_b))

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.use_alias"() : () -> () loc(#loc1)
"unreg.use_alias"() : () -> () loc(#loc_a)
// CHECK-LABEL: "unreg.use_fused_alias"() : () -> () loc(#loc4)
"unreg.use_fused_alias"() : () -> () loc(#meta_loc)
// CHECK-LABEL: "unreg.use_call_alias"() : () -> () loc(#loc5)
"unreg.use_call_alias"() : () -> () loc(#call)
// CHECK-LABEL: "unreg.inline_ref"() : () -> () loc(#loc6)
"unreg.inline_ref"() : () -> () loc(fused[#loc_a, #loc_b])
// CHECK-LABEL: "unreg.same_twice"() : () -> () loc(#loc3)
// CHECK-NEXT: }) : () -> () loc(#loc)
// CHECK-NEXT: #loc = loc("{{.*}}locations-alias.mlir":0:0)
// CHECK-NEXT: #loc1 = loc("alias.c":10:2)
// CHECK-NEXT: #loc2 = loc("n")
// CHECK-NEXT: #loc3 = loc("other.c":1:1)
// CHECK-NEXT: #loc4 = loc(fused<"meta">[#loc1, #loc2])
// CHECK-NEXT: #loc5 = loc(callsite(#loc1 at #loc3))
// CHECK-NEXT: #loc6 = loc(fused[#loc1, #loc3])
"unreg.same_twice"() : () -> () loc(#loc_b)
