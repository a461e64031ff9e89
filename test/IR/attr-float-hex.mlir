// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Float attributes given as hexadecimal bit patterns: NaN, infinity and
// ordinary values. NaN and infinity always print in hex; other values print
// in decimal.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.f32_special"() {inf = 0x7F800000 : f32, ninf = 0xFF800000 : f32, nnan = 0xFFC00000 : f32, payload = 0x7FC12345 : f32, qnan = 0x7FC00000 : f32, snan = 0x7F800001 : f32} : () -> ()
"unreg.f32_special"() {qnan = 0x7FC00000 : f32, inf = 0x7F800000 : f32, ninf = 0xFF800000 : f32, snan = 0x7F800001 : f32, nnan = 0xFFC00000 : f32, payload = 0x7FC12345 : f32} : () -> ()

// CHECK-LABEL: "unreg.f64_special"() {inf = 0x7FF0000000000000 : f64, ninf = 0xFFF0000000000000 : f64, qnan = 0x7FF8000000000000 : f64} : () -> ()
"unreg.f64_special"() {qnan = 0x7FF8000000000000 : f64, inf = 0x7FF0000000000000 : f64, ninf = 0xFFF0000000000000 : f64} : () -> ()

// CHECK-LABEL: "unreg.f16_bf16_special"() {a = 0x7E00 : f16, b = 0x7C00 : f16, c = 0xFC00 : f16, d = 0x7FC0 : bf16, e = 0x7F80 : bf16} : () -> ()
"unreg.f16_bf16_special"() {a = 0x7E00 : f16, b = 0x7C00 : f16, c = 0xFC00 : f16, d = 0x7FC0 : bf16, e = 0x7F80 : bf16} : () -> ()

// CHECK-LABEL: "unreg.f80_f128_special"() {a = 0x7FFF8000000000000000 : f80, b = 0x7FFF0000000000000000000000000000 : f128, c = 0x7FFF8000000000000000000000000000 : f128} : () -> ()
"unreg.f80_f128_special"() {a = 0x7FFF8000000000000000 : f80, b = 0x7FFF0000000000000000000000000000 : f128, c = 0x7FFF8000000000000000000000000000 : f128} : () -> ()

// Ordinary values written in hex print as decimal.
// CHECK-LABEL: "unreg.hex_ordinary"() {b = 9.183550e-41 : bf16, d = 2.000000e+00 : f64, h = 1.000000e+00 : f16, lowercase = 1.000000e+00 : f32, negzero = -0.000000e+00 : f32, one = 1.000000e+00 : f32, tiny = 1.401300e-45 : f32} : () -> ()
"unreg.hex_ordinary"() {one = 0x3F800000 : f32, negzero = 0x80000000 : f32, tiny = 0x00000001 : f32, h = 0x3C00 : f16, b = 0x0001 : bf16, d = 0x4000000000000000 : f64, lowercase = 0x3f800000 : f32} : () -> ()

// Small float types.
// CHECK-LABEL: "unreg.hex_small"() {a = 0x7F : f8E4M3FN, b = 0x7C : f8E5M2, c = 0x80 : f8E4M3FNUZ, d = 1.953130e-03 : f8E4M3FN} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.hex_small"() {a = 0x7F : f8E4M3FN, b = 0x7C : f8E5M2, c = 0x80 : f8E4M3FNUZ, d = 0x01 : f8E4M3FN} : () -> ()
