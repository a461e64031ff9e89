// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Integer set attributes (affine_set), printed as #set aliases.
// Constraints are 'expr >= 0' or 'expr == 0'; other forms are rewritten.

// CHECK: #set = affine_set<(d0) : (d0 >= 0)>
// CHECK-NEXT: #set1 = affine_set<(d0, d1)[s0] : (d0 - 1 >= 0, -d1 + s0 == 0, d0 + d1 >= 0)>
// CHECK-NEXT: #set2 = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>
// CHECK-NEXT: #set3 = affine_set<(d0) : (1 == 0)>
// CHECK-NEXT: #set4 = affine_set<() : (0 == 0)>
// CHECK-NEXT: #set5 = affine_set<(d0)[s0] : (d0 - (s0 + 1) == 0)>
// CHECK-NEXT: #set6 = affine_set<(d0, d1) : (d0 - d1 >= 0)>
// CHECK-NEXT: #set7 = affine_set<(d0) : (-d0 + 10 >= 0)>
// CHECK-NEXT: #set8 = affine_set<(d0) : (d0 mod 2 == 0, d0 floordiv 4 - 1 >= 0)>
// CHECK-NEXT: #set9 = affine_set<()[s0] : (s0 - 4 >= 0)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.sets"() {a = #set, b = #set1, c = #set2} : () -> ()
"unreg.sets"() {a = affine_set<(d0) : (d0 >= 0)>, b = affine_set<(d0, d1)[s0] : (d0 - 1 >= 0, s0 - d1 == 0, d0 + d1 >= 0)>, c = affine_set<(i)[N] : (i >= 0, -i + N - 1 >= 0)>} : () -> ()

// Trivially true and false sets.
// CHECK-LABEL: "unreg.trivial"() {f = #set3, t = #set4} : () -> ()
"unreg.trivial"() {t = affine_set<() : (0 == 0)>, f = affine_set<(d0) : (1 == 0)>} : () -> ()

// '<=' and right-hand sides are moved to the left.
// CHECK-LABEL: "unreg.rewritten"() {eq_rhs = #set5, ge_rhs = #set6, le = #set7} : () -> ()
"unreg.rewritten"() {le = affine_set<(d0) : (d0 <= 10)>, ge_rhs = affine_set<(d0, d1) : (d0 >= d1)>, eq_rhs = affine_set<(d0)[s0] : (d0 == s0 + 1)>} : () -> ()

// div and mod in constraints; sets with symbols only.
// CHECK-LABEL: "unreg.div_mod"() {a = #set8, b = #set9} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.div_mod"() {a = affine_set<(d0) : (d0 mod 2 == 0, d0 floordiv 4 - 1 >= 0)>, b = affine_set<()[s0] : (s0 - 4 >= 0)>} : () -> ()
