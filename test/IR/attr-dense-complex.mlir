// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense complex elements: (real, imaginary) pairs.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.complex_float"() {a = dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>, b = dense<(1.500000e+00,0.000000e+00)> : tensor<3xcomplex<f64>>, c = dense<{{\[\[}}(0.000000e+00,1.000000e+00)], [(1.000000e+00,0.000000e+00)]]> : tensor<2x1xcomplex<f16>>} : () -> ()
"unreg.complex_float"() {a = dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>, b = dense<(1.5, 0.0)> : tensor<3xcomplex<f64>>, c = dense<[[(0.0, 1.0)], [(1.0, 0.0)]]> : tensor<2x1xcomplex<f16>>} : () -> ()

// CHECK-LABEL: "unreg.complex_int"() {a = dense<[(1,2), (3,4)]> : tensor<2xcomplex<i32>>, b = dense<(-1,1)> : tensor<2xcomplex<i8>>, c = dense<(255,0)> : tensor<1xcomplex<ui8>>} : () -> ()
"unreg.complex_int"() {a = dense<[(1, 2), (3, 4)]> : tensor<2xcomplex<i32>>, b = dense<(-1, 1)> : tensor<2xcomplex<i8>>, c = dense<[(255, 0)]> : tensor<1xcomplex<ui8>>} : () -> ()

// Complex hex data.
// CHECK-LABEL: "unreg.complex_hex"() {a = dense<(1.000000e+00,2.000000e+00)> : tensor<1xcomplex<f32>>, b = dense<[(1,0), (2,0)]> : tensor<2xcomplex<i8>>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.complex_hex"() {a = dense<"0x0000803F00000040"> : tensor<1xcomplex<f32>>, b = dense<"0x01000200"> : tensor<2xcomplex<i8>>} : () -> ()
