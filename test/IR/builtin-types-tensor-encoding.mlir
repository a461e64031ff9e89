// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Ranked tensors with an encoding attribute.

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.string_encoding"() {a = tensor<4xf32, "enc">, b = tensor<?x?xf64, "csr">} : () -> ()
"unreg.string_encoding"() {a = tensor<4xf32, "enc">, b = tensor<?x?xf64, "csr">} : () -> ()

// CHECK-LABEL: "unreg.other_encodings"() {a = tensor<4xf32, 1 : i32>, b = tensor<4xf32, [1, 2]>, c = tensor<4xf32, {k = "v"}>, d = tensor<4xf32, #unreg.layout<"x">>, e = tensor<f32, unit>} : () -> ()
"unreg.other_encodings"() {a = tensor<4xf32, 1 : i32>, b = tensor<4xf32, [1, 2]>, c = tensor<4xf32, {k = "v"}>, d = tensor<4xf32, #unreg.layout<"x">>, e = tensor<f32, unit>} : () -> ()

// An encoding that is itself a type or an affine map.
// CHECK-LABEL: "unreg.odd_encodings"() {a = tensor<4xf32, i32>, b = tensor<2x2xi8, #map>} : () -> ()
"unreg.odd_encodings"() {a = tensor<4xf32, i32>, b = tensor<2x2xi8, affine_map<(d0, d1) -> (d1, d0)>>} : () -> ()

// CHECK-LABEL: %0 = "unreg.encoded_values"() : () -> tensor<8xi8, "blocked">
// CHECK-NEXT:   "unreg.use"(%0) : (tensor<8xi8, "blocked">) -> ()
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.encoded_values"() : () -> tensor<8xi8, "blocked">
"unreg.use"(%0) : (tensor<8xi8, "blocked">) -> ()
