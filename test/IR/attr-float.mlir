// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Float attributes in decimal notation. Without a type a float is f64.
// Values that print exactly with six digits after the point use %e style;
// others get the shortest string that reads back to the same value, or hex.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.decimal"() {a = 1.000000e+00 : f64, b = 1.500000e+00 : f32, c = -2.250000e+00 : f64, d = 0.000000e+00 : f32, e = -0.000000e+00 : f64, f = 1.000000e+02 : f32} : () -> ()
"unreg.decimal"() {a = 1.0, b = 1.5 : f32, c = -2.25 : f64, d = 0.0 : f32, e = -0.0 : f64, f = 100.0 : f32} : () -> ()

// CHECK-LABEL: "unreg.exponent"() {a = 1.500000e+10 : f64, b = -2.500000e-03 : f64, c = 1.000000e+300 : f64, d = 1.000000e-300 : f64, e = 1.000000e+05 : f32, f = 3.000000e+02 : f32} : () -> ()
"unreg.exponent"() {a = 1.5e10, b = -2.5E-3 : f64, c = 1.0e300 : f64, d = 1.0e-300 : f64, e = 1.e5 : f32, f = 3.0e+2 : f32} : () -> ()

// Values that need more than six significant digits.
// CHECK-LABEL: "unreg.precision"() {a = 1.000000e-01 : f64, b = 0.333333343 : f32, c = 3.1415926535897931 : f64, d = 2.71828175 : f32, e = 1.0000009999999999 : f64, f = 1.000000e-01 : f32} : () -> ()
"unreg.precision"() {a = 0.1 : f64, b = 0.333333343 : f32, c = 3.141592653589793 : f64, d = 2.718281828 : f32, e = 1.000001 : f64, f = 0.1 : f32} : () -> ()

// Integers that are not exactly representable print as hex bit patterns.
// CHECK-LABEL: "unreg.inexact"() {a = 0x419D6F3454000000 : f64, b = 0x4B800000 : f32, c = 0x4996B438 : f32} : () -> ()
"unreg.inexact"() {a = 123456789.0 : f64, b = 16777217.0 : f32, c = 1234567.0 : f32} : () -> ()

// Subnormal values.
// CHECK-LABEL: "unreg.subnormal"() {a = 1.401300e-45 : f32, b = 4.940660e-324 : f64} : () -> ()
"unreg.subnormal"() {a = 1.0e-45 : f32, b = 4.9406564584124654e-324 : f64} : () -> ()

// Floats inside arrays keep their type.
// CHECK-LABEL: "unreg.in_array"() {a = [1.000000e+00, 2.000000e+00 : f32, -5.000000e-01 : f16]} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.in_array"() {a = [1.0, 2.0 : f32, -0.5 : f16]} : () -> ()
