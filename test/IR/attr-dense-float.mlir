// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense floating point elements.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.f32"() {a = dense<[1.000000e+00, 2.500000e+00, -3.000000e+00]> : tensor<3xf32>, b = dense<{{\[\[}}1.000000e-01, 2.000000e-01], [3.000000e-01, 4.000000e-01]]> : tensor<2x2xf32>, c = dense<[1.000000e+10, -0.000000e+00]> : tensor<2xf32>} : () -> ()
"unreg.f32"() {a = dense<[1.0, 2.5, -3.0]> : tensor<3xf32>, b = dense<[[0.1, 0.2], [0.3, 0.4]]> : tensor<2x2xf32>, c = dense<[1.0e10, -0.0]> : tensor<2xf32>} : () -> ()

// CHECK-LABEL: "unreg.other_types"() {bf16 = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xbf16>, f16 = dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>, f64 = dense<[3.1415926535897931, 1.000000e-300]> : tensor<2xf64>, f8 = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf8E4M3FN>, f80 = dense<1.500000e+00> : tensor<1xf80>} : () -> ()
"unreg.other_types"() {f16 = dense<[1.0, 65504.0]> : tensor<2xf16>, bf16 = dense<[1.0, 2.0]> : tensor<2xbf16>, f64 = dense<[3.141592653589793, 1.0e-300]> : tensor<2xf64>, f80 = dense<[1.5]> : tensor<1xf80>, f8 = dense<[1.0, 2.0]> : tensor<2xf8E4M3FN>} : () -> ()

// Hexadecimal element values: NaN and infinity stay hex.
// CHECK-LABEL: "unreg.hex_elements"() {a = dense<[0x7FC00000, 1.000000e+00, 0xFF800000]> : tensor<3xf32>, b = dense<0x7FC00000> : tensor<2xf32>, c = dense<[0x7E00, 1.000000e+00]> : tensor<2xf16>} : () -> ()
"unreg.hex_elements"() {a = dense<[0x7FC00000, 0x3F800000, 0xFF800000]> : tensor<3xf32>, b = dense<0x7FC00000> : tensor<2xf32>, c = dense<[0x7E00, 0x3C00]> : tensor<2xf16>} : () -> ()

// Float literals that are whole numbers.
// CHECK-LABEL: "unreg.whole_numbers"() {a = dense<[1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<3xf32>, b = dense<4.000000e+00> : tensor<2xf64>} : () -> ()
"unreg.whole_numbers"() {a = dense<[1.0, 2., -3.0]> : tensor<3xf32>, b = dense<4.0> : tensor<2xf64>} : () -> ()

// Vectors and rank 0.
// CHECK-LABEL: "unreg.vectors"() {a = dense<[1.000000e+00, 2.000000e+00]> : vector<2xf32>, b = dense<5.000000e-01> : tensor<f64>, c = dense<{{\[\[}}1.000000e+00], [2.000000e+00]]> : vector<2x1xf16>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.vectors"() {a = dense<[1.0, 2.0]> : vector<2xf32>, b = dense<0.5> : tensor<f64>, c = dense<[[1.0], [2.0]]> : vector<2x1xf16>} : () -> ()
