// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Sparse elements attributes: sparse<indices, values>.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.sparse"() {a = sparse<{{\[\[}}0, 0], [1, 2]], [1.000000e+00, 5.000000e+00]> : tensor<3x4xf32>, b = sparse<{{\[\[}}0], [3]], [7, 8]> : tensor<4xi32>} : () -> ()
"unreg.sparse"() {a = sparse<[[0, 0], [1, 2]], [1.0, 5.0]> : tensor<3x4xf32>, b = sparse<[[0], [3]], [7, 8]> : tensor<4xi32>} : () -> ()

// A single index or value prints as a splat.
// CHECK-LABEL: "unreg.sparse_splat"() {a = sparse<0, 7> : tensor<4xi32>, b = sparse<1, 3> : tensor<2x2xi16>, c = sparse<0, 1> : tensor<4xi32>} : () -> ()
"unreg.sparse_splat"() {a = sparse<[[0]], [7]> : tensor<4xi32>, b = sparse<[[1, 1]], 3> : tensor<2x2xi16>, c = sparse<0, 1> : tensor<4xi32>} : () -> ()

// Empty sparse attribute.
// CHECK-LABEL: "unreg.sparse_empty"() {a = sparse<> : tensor<2x2xi8>} : () -> ()
"unreg.sparse_empty"() {a = sparse<> : tensor<2x2xi8>} : () -> ()

// Hex values and complex values.
// CHECK-LABEL: "unreg.sparse_kinds"() {a = sparse<{{\[\[}}0], [1]], [1, 2]> : tensor<4xi16>, b = sparse<{{\[\[}}0, 1]], (1.000000e+00,2.000000e+00)> : tensor<2x2xcomplex<f32>>, c = sparse<0, true> : tensor<3xi1>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.sparse_kinds"() {a = sparse<[[0], [1]], "0x01000200"> : tensor<4xi16>, b = sparse<[[0, 1]], [(1.0, 2.0)]> : tensor<2x2xcomplex<f32>>, c = sparse<[[0]], [true]> : tensor<3xi1>} : () -> ()
