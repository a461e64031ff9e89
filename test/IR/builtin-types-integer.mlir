// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Integer types: signless, signed, unsigned; common and odd widths.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.signless"() {i1 = i1, i1024 = i1024, i128 = i128, i16 = i16, i32 = i32, i64 = i64, i7 = i7, i8 = i8} : () -> ()
"unreg.signless"() {i1 = i1, i7 = i7, i8 = i8, i16 = i16, i32 = i32, i64 = i64, i128 = i128, i1024 = i1024} : () -> ()

// CHECK-LABEL: "unreg.signed"() {a = si1, b = si8, c = si32, d = si64, e = si3, f = si999} : () -> ()
"unreg.signed"() {a = si1, b = si8, c = si32, d = si64, e = si3, f = si999} : () -> ()

// CHECK-LABEL: "unreg.unsigned"() {a = ui1, b = ui8, c = ui16, d = ui64, e = ui5, f = ui4096} : () -> ()
"unreg.unsigned"() {a = ui1, b = ui8, c = ui16, d = ui64, e = ui5, f = ui4096} : () -> ()

// The largest width MLIR allows is 2^24 - 1.
// CHECK-LABEL: "unreg.max_width"() {w = i16777215} : () -> ()
"unreg.max_width"() {w = i16777215} : () -> ()

// Zero-width integers are allowed.
// CHECK-LABEL: "unreg.zero_width"() {a = i0, b = si0, c = ui0} : () -> ()
"unreg.zero_width"() {a = i0, b = si0, c = ui0} : () -> ()

// Integer types as operand and result types.
// CHECK-LABEL: %0:3 = "unreg.int_values"() : () -> (i1, si17, ui33)
// CHECK-NEXT:   "unreg.int_use"(%0#0, %0#1, %0#2) : (i1, si17, ui33) -> ()
%0:3 = "unreg.int_values"() : () -> (i1, si17, ui33)
"unreg.int_use"(%0#0, %0#1, %0#2) : (i1, si17, ui33) -> ()

// Integer types nested in other types.
// CHECK-LABEL: %1:4 = "unreg.int_nested"() : () -> (tensor<2xsi8>, vector<3xui16>, memref<4xi3>, complex<si32>)
// CHECK-NEXT: }) : () -> ()
%1:4 = "unreg.int_nested"() : () -> (tensor<2xsi8>, vector<3xui16>, memref<4xi3>, complex<si32>)
