// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Ranked, unranked, dynamic and rank-0 tensors.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.ranked"() {a = tensor<4xf32>, b = tensor<2x3x4xi8>, c = tensor<1x1x1x1x1xf64>, d = tensor<0xi32>, e = tensor<0x4x0xf16>} : () -> ()
"unreg.ranked"() {a = tensor<4xf32>, b = tensor<2x3x4xi8>, c = tensor<1x1x1x1x1xf64>, d = tensor<0xi32>, e = tensor<0x4x0xf16>} : () -> ()

// CHECK-LABEL: "unreg.dynamic"() {a = tensor<?xf32>, b = tensor<?x4xf32>, c = tensor<4x?xf32>, d = tensor<?x?x?xi1>} : () -> ()
"unreg.dynamic"() {a = tensor<?xf32>, b = tensor<?x4xf32>, c = tensor<4x?xf32>, d = tensor<?x?x?xi1>} : () -> ()

// CHECK-LABEL: "unreg.unranked"() {a = tensor<*xf32>, b = tensor<*xi64>, c = tensor<*xcomplex<f32>>} : () -> ()
"unreg.unranked"() {a = tensor<*xf32>, b = tensor<*xi64>, c = tensor<*xcomplex<f32>>} : () -> ()

// CHECK-LABEL: "unreg.rank0"() {a = tensor<f32>, b = tensor<i1>, c = tensor<index>} : () -> ()
"unreg.rank0"() {a = tensor<f32>, b = tensor<i1>, c = tensor<index>} : () -> ()

// Element types other than scalars.
// CHECK-LABEL: "unreg.elements"() {a = tensor<2xvector<4xf32>>, b = tensor<3xcomplex<f64>>, c = tensor<2x!unreg.elt>} : () -> ()
"unreg.elements"() {a = tensor<2xvector<4xf32>>, b = tensor<3xcomplex<f64>>, c = tensor<2x!unreg.elt>} : () -> ()

// Large dimensions.
// CHECK-LABEL: "unreg.big_dims"() {a = tensor<9223372036854775807xi8>, b = tensor<1000000x1000000xf32>} : () -> ()
"unreg.big_dims"() {a = tensor<9223372036854775807xi8>, b = tensor<1000000x1000000xf32>} : () -> ()

// CHECK-LABEL: %0 = "unreg.tensor_values"() : () -> tensor<?x4xf32>
// CHECK-NEXT:   %1 = "unreg.tensor_use"(%0) : (tensor<?x4xf32>) -> tensor<*xf32>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.tensor_values"() : () -> tensor<?x4xf32>
"unreg.tensor_use"(%0) : (tensor<?x4xf32>) -> tensor<*xf32>
