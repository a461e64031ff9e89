// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// memref with strided layouts.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.static_strides"() {a = memref<4x5xf32, strided<[5, 1]>>, b = memref<4x5xf32, strided<[10, 2]>>, c = memref<8xi8, strided<[3]>>} : () -> ()
"unreg.static_strides"() {a = memref<4x5xf32, strided<[5, 1]>>, b = memref<4x5xf32, strided<[10, 2]>>, c = memref<8xi8, strided<[3]>>} : () -> ()

// CHECK-LABEL: "unreg.dynamic_strides"() {a = memref<?x?xf32, strided<[?, 1], offset: ?>>, b = memref<?xf32, strided<[?]>>, c = memref<4x4xf32, strided<[?, ?], offset: 16>>} : () -> ()
"unreg.dynamic_strides"() {a = memref<?x?xf32, strided<[?, 1], offset: ?>>, b = memref<?xf32, strided<[?]>>, c = memref<4x4xf32, strided<[?, ?], offset: 16>>} : () -> ()

// A zero offset is not printed.
// CHECK-LABEL: "unreg.offsets"() {a = memref<4xf32, strided<[1]>>, b = memref<4xf32, strided<[1], offset: 7>>, c = memref<4xf32, strided<[2], offset: ?>>} : () -> ()
"unreg.offsets"() {a = memref<4xf32, strided<[1], offset: 0>>, b = memref<4xf32, strided<[1], offset: 7>>, c = memref<4xf32, strided<[2], offset: ?>>} : () -> ()

// Rank 0 (no strides) and a stride of zero.
// CHECK-LABEL: "unreg.edge_strides"() {a = memref<f32, strided<[]>>, b = memref<f32, strided<[], offset: 3>>, c = memref<4x4xf32, strided<[0, 1]>>} : () -> ()
"unreg.edge_strides"() {a = memref<f32, strided<[]>>, b = memref<f32, strided<[], offset: 3>>, c = memref<4x4xf32, strided<[0, 1]>>} : () -> ()

// A strided layout with a memory space.
// CHECK-LABEL: "unreg.strided_space"() {a = memref<4xf32, strided<[2], offset: 7>, 3>, b = memref<?xf32, strided<[?], offset: ?>, "gpu">} : () -> ()
"unreg.strided_space"() {a = memref<4xf32, strided<[2], offset: 7>, 3>, b = memref<?xf32, strided<[?], offset: ?>, "gpu">} : () -> ()

// The strided attribute on its own.
// CHECK-LABEL: "unreg.strided_attr"() {a = strided<[1]>, b = strided<[?, 4], offset: ?>, c = strided<[]>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.strided_attr"() {a = strided<[1]>, b = strided<[?, 4], offset: ?>, c = strided<[]>} : () -> ()
