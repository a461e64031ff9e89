// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// memref with affine map layouts.

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d0 floordiv 8, d1 floordiv 8, d0 mod 8, d1 mod 8)>
// CHECK-NEXT: #map2 = affine_map<(d0) -> (d0 + 4)>
// CHECK-NEXT: #map3 = affine_map<(d0, d1)[s0] -> (d0 * 4 + d1 + s0)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.permutation"() {a = memref<4x8xf32, #map>} : () -> ()
"unreg.permutation"() {a = memref<4x8xf32, affine_map<(d0, d1) -> (d1, d0)>>} : () -> ()

// CHECK-LABEL: "unreg.tiled"() {a = memref<64x64xf32, #map1>} : () -> ()
"unreg.tiled"() {a = memref<64x64xf32, affine_map<(d0, d1) -> (d0 floordiv 8, d1 floordiv 8, d0 mod 8, d1 mod 8)>>} : () -> ()

// CHECK-LABEL: "unreg.offset_map"() {a = memref<16xf32, #map2>, b = memref<4x4xf32, #map3>} : () -> ()
"unreg.offset_map"() {a = memref<16xf32, affine_map<(d0) -> (d0 + 4)>>, b = memref<4x4xf32, affine_map<(d0, d1)[s0] -> (d0 * 4 + d1 + s0)>>} : () -> ()

// The same map twice gets a single alias.
// CHECK-LABEL: "unreg.shared_map"() {a = memref<4x8xi8, #map>, b = memref<2x2xi8, #map>} : () -> ()
"unreg.shared_map"() {a = memref<4x8xi8, affine_map<(d0, d1) -> (d1, d0)>>, b = memref<2x2xi8, affine_map<(d0, d1) -> (d1, d0)>>} : () -> ()

// A layout map together with a memory space.
// CHECK-LABEL: "unreg.map_space"() {a = memref<4x8xf32, #map, 2>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.map_space"() {a = memref<4x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 2>} : () -> ()
