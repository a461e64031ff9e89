// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Affine edge cases that the parser accepts without folding or rejecting.

// CHECK: #map = affine_map<(d0) -> (d0 floordiv 0, d0 mod 0, d0 ceildiv 0)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (d0 mod -2, d0 floordiv -3, d0 ceildiv -4)>
// CHECK-NEXT: #map2 = affine_map<(d0)[s0, s1] -> (d0 + s0 * s1, s0 * s0)>
// CHECK-NEXT: #map3 = affine_map<(d0) -> (d0 * 9223372036854775807, d0 - 9223372036854775807)>
// CHECK-NEXT: #set = affine_set<(d0) : (0 == 0)>
// CHECK-NEXT: "builtin.module"() ({

// Division and modulo by zero are kept as written.
// CHECK-LABEL: "unreg.zero_divisor"() {m = #map} : () -> ()
"unreg.zero_divisor"() {m = affine_map<(d0) -> (d0 floordiv 0, d0 mod 0, d0 ceildiv 0)>} : () -> ()

// Negative divisors and moduli.
// CHECK-LABEL: "unreg.negative_divisor"() {m = #map1} : () -> ()
"unreg.negative_divisor"() {m = affine_map<(d0) -> (d0 mod -2, d0 floordiv -3, d0 ceildiv -4)>} : () -> ()

// A product of symbols is affine.
// CHECK-LABEL: "unreg.symbol_product"() {m = #map2} : () -> ()
"unreg.symbol_product"() {m = affine_map<(d0)[s0, s1] -> (s0 * s1 + d0, s0 * s0)>} : () -> ()

// A set without constraints becomes the always-true set.
// CHECK-LABEL: "unreg.no_constraints"() {s = #set} : () -> ()
"unreg.no_constraints"() {s = affine_set<(d0) : ()>} : () -> ()

// Large constants.
// CHECK-LABEL: "unreg.large_constants"() {m = #map3} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.large_constants"() {m = affine_map<(d0) -> (d0 * 9223372036854775807, d0 + -9223372036854775807)>} : () -> ()
