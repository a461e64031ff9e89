// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Float attributes of every float type, written in decimal.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.f16"() {a = 1.000000e+00 : f16, b = 6.550400e+04 : f16, c = 9.997550e-02 : f16, d = -0.000000e+00 : f16, e = 5.960460e-08 : f16} : () -> ()
"unreg.f16"() {a = 1.0 : f16, b = 65504.0 : f16, c = 0.1 : f16, d = -0.0 : f16, e = 6.0e-8 : f16} : () -> ()

// CHECK-LABEL: "unreg.bf16"() {a = 3.000000e+00 : bf16, b = 1.000980e-01 : bf16, c = 9.969200e+37 : bf16} : () -> ()
"unreg.bf16"() {a = 3.0 : bf16, b = 0.1 : bf16, c = 1.0e38 : bf16} : () -> ()

// CHECK-LABEL: "unreg.f64"() {a = 1.000000e+00 : f64, b = 1.7976931348623157E+308 : f64, c = 2.2250738585072014E-308 : f64} : () -> ()
"unreg.f64"() {a = 1.0 : f64, b = 1.7976931348623157e308 : f64, c = 2.2250738585072014e-308 : f64} : () -> ()

// CHECK-LABEL: "unreg.f80"() {a = 2.500000e+00 : f80, b = 0.100000000000000005551 : f80, c = 0x7FFF8000000000000000 : f80} : () -> ()
"unreg.f80"() {a = 2.5 : f80, b = 0.1 : f80, c = 1.0e4000 : f80} : () -> ()

// CHECK-LABEL: "unreg.f128"() {a = 1.000000e+00 : f128, b = 0.100000000000000005551115123125782702 : f128, c = -3.500000e+00 : f128} : () -> ()
"unreg.f128"() {a = 1.0 : f128, b = 0.1 : f128, c = -3.5 : f128} : () -> ()

// CHECK-LABEL: "unreg.tf32"() {a = 5.000000e-01 : tf32, b = 9.997550e-02 : tf32} : () -> ()
"unreg.tf32"() {a = 0.5 : tf32, b = 0.1 : tf32} : () -> ()

// CHECK-LABEL: "unreg.small"() {a = 4.480000e+02 : f8E4M3FN, b = 1.500000e+00 : f4E2M1FN, c = 9.375000e-02 : f8E5M2, d = 2.000000e+00 : f6E3M2FN, e = 4.000000e+00 : f8E8M0FNU} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.small"() {a = 448.0 : f8E4M3FN, b = 1.5 : f4E2M1FN, c = 0.1 : f8E5M2, d = 2.0 : f6E3M2FN, e = 4.0 : f8E8M0FNU} : () -> ()
