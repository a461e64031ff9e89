// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s
// The CHECK lines are mlir-opt's canonical form (aliases, float spellings): tb-opt's output is read back by mlir-opt and must print exactly so.
// REQUIRES: mlir-opt

// Affine map attributes. Maps are printed as #map aliases at the top, and
// dimension/symbol names are canonicalized to d0.../s0....

// CHECK: #map = affine_map<(d0, d1) -> (d0 + d1)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (3, -5)>
// CHECK-NEXT: #map2 = affine_map<(d0) -> (-d0)>
// CHECK-NEXT: #map3 = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK-NEXT: #map4 = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 * 2 + s1)>
// CHECK-NEXT: #map5 = affine_map<(d0) -> (d0)>
// CHECK-NEXT: #map6 = affine_map<(d0, d1) -> (d0 floordiv 2, d1 ceildiv 4, (d0 + d1) mod 8)>
// CHECK-NEXT: #map7 = affine_map<(d0) -> ((d0 floordiv 4) * 4 + d0 mod 4)>
// CHECK-NEXT: #map8 = affine_map<(d0) -> ((d0 + 1) floordiv 3)>
// CHECK-NEXT: #map9 = affine_map<(d0) -> (d0 * 3)>
// CHECK-NEXT: #map10 = affine_map<(d0) -> (d0 + 3)>
// CHECK-NEXT: #map11 = affine_map<(d0) -> (d0 - 1, d0 * -2 + 3, (d0 + 1) * 4)>
// CHECK-NEXT: #map12 = affine_map<(d0) -> (0, d0, 2, 1)>
// CHECK-NEXT: #map13 = affine_map<(d0, d1) -> (d0 + d1 - d1)>
// CHECK-NEXT: #map14 = affine_map<() -> ()>
// CHECK-NEXT: #map15 = affine_map<(d0, d1) -> ()>
// CHECK-NEXT: #map16 = affine_map<()[s0] -> (s0)>
// CHECK-NEXT: #map17 = affine_map<()[s0, s1] -> (s1 + s0 * 2)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.basic"() {add = #map, const = #map1, neg = #map2, perm = #map3} : () -> ()
"unreg.basic"() {add = affine_map<(d0, d1) -> (d0 + d1)>, perm = affine_map<(d0, d1, d2) -> (d2, d0, d1)>, const = affine_map<(d0) -> (3, -5)>, neg = affine_map<(d0) -> (-d0)>} : () -> ()

// Named dimensions and symbols.
// CHECK-LABEL: "unreg.named"() {a = #map4, b = #map5} : () -> ()
"unreg.named"() {a = affine_map<(i, j)[M, N] -> (i + M, j * 2 + N)>, b = affine_map<(row)[] -> (row)>} : () -> ()

// floordiv, ceildiv and mod by constants, with parentheses where needed.
// CHECK-LABEL: "unreg.div_mod"() {a = #map6, b = #map7, c = #map8} : () -> ()
"unreg.div_mod"() {a = affine_map<(d0, d1) -> (d0 floordiv 2, d1 ceildiv 4, (d0 + d1) mod 8)>, b = affine_map<(d0) -> (d0 floordiv 4 * 4 + d0 mod 4)>, c = affine_map<(d0) -> ((d0 + 1) floordiv 3)>} : () -> ()

// Expressions are simplified and put in a canonical order.
// CHECK-LABEL: "unreg.simplified"() {a = #map9, b = #map10, c = #map11, d = #map12, e = #map13} : () -> ()
"unreg.simplified"() {a = affine_map<(x) -> (x + 2 * x)>, b = affine_map<(d0) -> (3 + d0)>, c = affine_map<(d0) -> (d0 - 1, d0 * -2 + 3, (d0 + 1) * 4)>, d = affine_map<(d0) -> (d0 mod 1, d0 floordiv 1, 4 floordiv 2, 7 mod 3)>, e = affine_map<(d0, d1) -> (d1 + d0 - d1)>} : () -> ()

// Empty maps, maps without results and symbol-only maps.
// CHECK-LABEL: "unreg.empty"() {a = #map14, b = #map15, c = #map16, d = #map17} : () -> ()
"unreg.empty"() {a = affine_map<() -> ()>, b = affine_map<(d0, d1) -> ()>, c = affine_map<()[s0] -> (s0)>, d = affine_map<()[s0, s1] -> (s1 + s0 * 2)>} : () -> ()

// The same map used twice shares one alias; maps nested in arrays.
// CHECK-LABEL: "unreg.shared"() {a = [#map, #map]} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.shared"() {a = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d0 + d1)>]} : () -> ()
