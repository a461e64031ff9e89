// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// The standard floating point types.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.float_attrs"() {bfloat = bf16, double = f64, half = f16, quad = f128, single = f32, tf = tf32, x87 = f80} : () -> ()
"unreg.float_attrs"() {half = f16, bfloat = bf16, single = f32, double = f64, x87 = f80, quad = f128, tf = tf32} : () -> ()

// CHECK-LABEL: %0:7 = "unreg.float_values"() : () -> (f16, bf16, f32, f64, f80, f128, tf32)
// CHECK-NEXT:   "unreg.float_use"(%0#6, %0#5, %0#4, %0#3, %0#2, %0#1, %0#0) : (tf32, f128, f80, f64, f32, bf16, f16) -> ()
%0:7 = "unreg.float_values"() : () -> (f16, bf16, f32, f64, f80, f128, tf32)
"unreg.float_use"(%0#6, %0#5, %0#4, %0#3, %0#2, %0#1, %0#0) : (tf32, f128, f80, f64, f32, bf16, f16) -> ()

// CHECK-LABEL: %1:4 = "unreg.float_nested"() : () -> (tensor<4xbf16>, vector<8xf16>, complex<f80>, tuple<f128, tf32>)
// CHECK-NEXT: }) : () -> ()
"unreg.float_nested"() : () -> (tensor<4xbf16>, vector<8xf16>, complex<f80>, tuple<f128, tf32>)
