// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Semi-affine maps: symbols may appear as multipliers, divisors and moduli.

// CHECK: #map = affine_map<(d0)[s0] -> (d0 ceildiv s0)>
// CHECK-NEXT: #map1 = affine_map<(d0)[s0] -> (d0 floordiv s0)>
// CHECK-NEXT: #map2 = affine_map<(d0)[s0] -> (d0 mod s0)>
// CHECK-NEXT: #map3 = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK-NEXT: #map4 = affine_map<()[s0, s1] -> (s0 * s1)>
// CHECK-NEXT: #map5 = affine_map<(d0, d1)[s0, s1] -> ((d0 + d1) floordiv s0, d1 mod (s0 + s1), d0 * s1 + 2)>
// CHECK-NEXT: #map6 = affine_map<(d0)[s0] -> (d0 * s0 + s0 mod 4)>
// CHECK-NEXT: #map7 = affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.semi"() {cdiv = #map, fdiv = #map1, mod = #map2, mul = #map3, mul2 = #map3} : () -> ()
"unreg.semi"() {mul = affine_map<(d0)[s0] -> (d0 * s0)>, mul2 = affine_map<(d0)[s0] -> (s0 * d0)>, fdiv = affine_map<(d0)[s0] -> (d0 floordiv s0)>, cdiv = affine_map<(d0)[s0] -> (d0 ceildiv s0)>, mod = affine_map<(d0)[s0] -> (d0 mod s0)>} : () -> ()

// Symbol-only products and mixed expressions.
// CHECK-LABEL: "unreg.semi_mixed"() {a = #map4, b = #map5, c = #map6} : () -> ()
"unreg.semi_mixed"() {a = affine_map<()[s0, s1] -> (s0 * s1)>, b = affine_map<(d0, d1)[s0, s1] -> ((d0 + d1) floordiv s0, d1 mod (s0 + s1), d0 * s1 + 2)>, c = affine_map<(i)[N] -> (i * N + N mod 4)>} : () -> ()

// Semi-affine layout maps on memrefs.
// CHECK-LABEL: "unreg.semi_layout"() {a = memref<8x8xf32, #map7>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.semi_layout"() {a = memref<8x8xf32, affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>>} : () -> ()
