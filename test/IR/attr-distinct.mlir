// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Distinct attributes: each distinct[N]<...> is a unique attribute. The
// numbers are reassigned in printing order; a unit payload prints as <>.

// CHECK: #distinct = distinct[0]<42 : i32>
// CHECK-NEXT: #distinct1 = distinct[1]<"s">
// CHECK-NEXT: #distinct2 = distinct[2]<@sym>
// CHECK-NEXT: #distinct3 = distinct[3]<@sym>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.distinct"() {a = #distinct, b = distinct[4]<>, c = #distinct, d = [#distinct1]} : () -> ()
"unreg.distinct"() {a = distinct[0]<42 : i32>, b = distinct[7]<unit>, c = distinct[0]<42 : i32>, d = [distinct[5]<"s">]} : () -> ()

// The same payload under two different ids gives two different attributes.
// CHECK-LABEL: "unreg.two_ids"() {a = #distinct2, b = #distinct3} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.two_ids"() {a = distinct[10]<@sym>, b = distinct[11]<@sym>} : () -> ()
