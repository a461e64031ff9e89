// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense integer elements of various widths and signedness.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.widths"() {i16 = dense<[300, -300]> : tensor<2xi16>, i32 = dense<[1, 2, 3]> : tensor<3xi32>, i64 = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>, i8 = dense<[1, -1, 127, -128]> : tensor<4xi8>} : () -> ()
"unreg.widths"() {i8 = dense<[1, -1, 127, -128]> : tensor<4xi8>, i16 = dense<[300, -300]> : tensor<2xi16>, i32 = dense<[1, 2, 3]> : tensor<3xi32>, i64 = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>} : () -> ()

// CHECK-LABEL: "unreg.odd_widths"() {i128 = dense<170141183460469231731687303715884105727> : tensor<1xi128>, i3 = dense<[-4, 3]> : tensor<2xi3>, i65 = dense<[1, -1]> : tensor<2xi65>, i7 = dense<[1, 2, 3]> : tensor<3xi7>} : () -> ()
"unreg.odd_widths"() {i7 = dense<[1, 2, 3]> : tensor<3xi7>, i3 = dense<[-4, 3]> : tensor<2xi3>, i65 = dense<[1, -1]> : tensor<2xi65>, i128 = dense<[170141183460469231731687303715884105727]> : tensor<1xi128>} : () -> ()

// Signed, unsigned and index elements.
// CHECK-LABEL: "unreg.signedness"() {idx = dense<[1, 2]> : tensor<2xindex>, s = dense<[-1, 1]> : tensor<2xsi8>, u = dense<[255, 0]> : tensor<2xui8>, u64 = dense<18446744073709551615> : tensor<1xui64>} : () -> ()
"unreg.signedness"() {u = dense<[255, 0]> : tensor<2xui8>, s = dense<[-1, 1]> : tensor<2xsi8>, idx = dense<[1, 2]> : tensor<2xindex>, u64 = dense<[18446744073709551615]> : tensor<1xui64>} : () -> ()

// Nested (multi-dimensional) literals.
// CHECK-LABEL: "unreg.nested"() {a = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>, b = dense<{{\[\[\[}}1], [2]], {{\[\[}}3], [4]]]> : tensor<2x2x1xi32>, c = dense<{{\[\[}}1, 2, 3]]> : tensor<1x3xi16>} : () -> ()
"unreg.nested"() {a = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>, b = dense<[[[1], [2]], [[3], [4]]]> : tensor<2x2x1xi32>, c = dense<[[1, 2, 3]]> : tensor<1x3xi16>} : () -> ()

// Rank 0 and vectors.
// CHECK-LABEL: "unreg.rank0_vector"() {a = dense<7> : tensor<i16>, b = dense<[1, 2, 3, 4]> : vector<4xi32>, c = dense<{{\[\[}}1, 2]]> : vector<1x2xi8>} : () -> ()
"unreg.rank0_vector"() {a = dense<7> : tensor<i16>, b = dense<[1, 2, 3, 4]> : vector<4xi32>, c = dense<[[1, 2]]> : vector<1x2xi8>} : () -> ()

// Hex integers in a dense literal.
// CHECK-LABEL: "unreg.hex_elements"() {a = dense<[16, -1, 255]> : tensor<3xi32>} : () -> ()
"unreg.hex_elements"() {a = dense<[0x10, -0x1, 0xFF]> : tensor<3xi32>} : () -> ()

// As a property, and as operand/result type.
// CHECK-LABEL: %0 = "unreg.dense_prop"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.dense_prop"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
