// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// The small (8, 6 and 4 bit) floating point types of MLIR 22.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.f8"() {a = f8E5M2, b = f8E4M3, c = f8E4M3FN, d = f8E5M2FNUZ, e = f8E4M3FNUZ, f = f8E4M3B11FNUZ, g = f8E3M4, h = f8E8M0FNU} : () -> ()
"unreg.f8"() {a = f8E5M2, b = f8E4M3, c = f8E4M3FN, d = f8E5M2FNUZ, e = f8E4M3FNUZ, f = f8E4M3B11FNUZ, g = f8E3M4, h = f8E8M0FNU} : () -> ()

// CHECK-LABEL: "unreg.f6_f4"() {a = f6E2M3FN, b = f6E3M2FN, c = f4E2M1FN} : () -> ()
"unreg.f6_f4"() {a = f6E2M3FN, b = f6E3M2FN, c = f4E2M1FN} : () -> ()

// CHECK-LABEL: %0:2 = "unreg.small_values"() : () -> (f8E4M3FN, vector<4xf4E2M1FN>)
// CHECK-NEXT:   "unreg.small_use"(%0#0, %0#1) : (f8E4M3FN, vector<4xf4E2M1FN>) -> ()
// CHECK-NEXT: }) : () -> ()
%0:2 = "unreg.small_values"() : () -> (f8E4M3FN, vector<4xf4E2M1FN>)
"unreg.small_use"(%0#0, %0#1) : (f8E4M3FN, vector<4xf4E2M1FN>) -> ()
