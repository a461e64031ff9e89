// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Locations used as attribute values. They are printed (as #loc aliases)
// even without --mlir-print-debuginfo, because they are attributes here.

// CHECK: #loc = loc("x")
// CHECK-NEXT: #loc1 = loc("f.c":1:2)
// CHECK-NEXT: #loc2 = loc(unknown)
// CHECK-NEXT: #loc3 = loc("a":1:2)
// CHECK-NEXT: #loc4 = loc("b")
// CHECK-NEXT: #loc5 = loc("g")
// CHECK-NEXT: #loc6 = loc("h.c":3:4)
// CHECK-NEXT: #loc7 = loc("p")
// CHECK-NEXT: #loc8 = loc("q":1:1)
// CHECK-NEXT: #loc9 = loc("r")
// CHECK-NEXT: #loc10 = loc(fused[#loc3, #loc4])
// CHECK-NEXT: #loc11 = loc(callsite(#loc5 at #loc6))
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.loc_attrs"() {a = #loc, b = #loc1, c = #loc2, d = #loc10, e = #loc11} : () -> ()
"unreg.loc_attrs"() {a = loc("x"), b = loc("f.c":1:2), c = loc(unknown), d = loc(fused["a":1:2, "b"]), e = loc(callsite("g" at "h.c":3:4))} : () -> ()

// Locations inside arrays and dictionaries.
// CHECK-LABEL: "unreg.loc_nested"() {a = [#loc7, #loc8], d = {where = #loc9}} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.loc_nested"() {a = [loc("p"), loc("q":1:1)], d = {where = loc("r")}} : () -> ()
