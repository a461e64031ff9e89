// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-local-scope %s | FileCheck %s --check-prefix=LOCAL
// REQUIRES: mlir-opt

// Affine maps and sets print through #map/#set aliases numbered by first appearance, maps
// first; properties always print in full; local scope prints everything inline.

// CHECK:      #map = affine_map<(d0) -> (d0 + 1)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map2 = affine_map<(d0) -> (d0 + 3)>
// CHECK-NEXT: #map3 = affine_map<(d0) -> (d0 + 4)>
// CHECK-NEXT: #set = affine_set<(d0) : (d0 >= 0)>
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "unreg.a"() {a = #map, b = #set, c = memref<4x4xf32, #map1>} : () -> ()
// CHECK-NEXT:   "unreg.b"() <{p = affine_map<(d0) -> (d0 * 2)>}> ({
// CHECK-NEXT:     "unreg.c"() {q = [#map, #map2]} : () -> ()
// CHECK-NEXT:   }) {z = #map3} : () -> ()

// LOCAL-NOT: #map
// LOCAL: "unreg.a"() {a = affine_map<(d0) -> (d0 + 1)>, b = affine_set<(d0) : (d0 >= 0)>, c = memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>} : () -> ()
"unreg.a"() {a = affine_map<(d0) -> (d0 + 1)>, b = affine_set<(d0) : (d0 >= 0)>, c = memref<4x4xf32, affine_map<(d0,d1)->(d1,d0)>>} : () -> ()
"unreg.b"() <{p = affine_map<(d0) -> (d0 * 2)>}> ({
  "unreg.c"() {q = [affine_map<(d0)->(d0+1)>, affine_map<(d0)->(d0+3)>]} : () -> ()
}) {z = affine_map<(d0)->(d0+4)>} : () -> ()
