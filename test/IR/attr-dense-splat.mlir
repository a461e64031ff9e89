// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Splat dense attributes, and non-splat literals whose elements are all equal
// (printed as splats).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.splats"() {a = dense<1> : tensor<4xi32>, b = dense<1.500000e+00> : vector<4xf32>, c = dense<0> : tensor<2x3x4xi8>, d = dense<true> : tensor<8xi1>} : () -> ()
"unreg.splats"() {a = dense<1> : tensor<4xi32>, b = dense<1.5> : vector<4xf32>, c = dense<0> : tensor<2x3x4xi8>, d = dense<true> : tensor<8xi1>} : () -> ()

// Equal elements are folded into a splat when printed.
// CHECK-LABEL: "unreg.uniform"() {a = dense<5> : tensor<3xi32>, b = dense<2.000000e+00> : tensor<2x2xf32>, c = dense<false> : tensor<2xi1>} : () -> ()
"unreg.uniform"() {a = dense<[5, 5, 5]> : tensor<3xi32>, b = dense<[[2.0, 2.0], [2.0, 2.0]]> : tensor<2x2xf32>, c = dense<[false, false]> : tensor<2xi1>} : () -> ()

// A one-element tensor prints as a splat too.
// CHECK-LABEL: "unreg.single"() {a = dense<7> : tensor<1xi64>, b = dense<3.000000e+00> : tensor<1x1xf32>} : () -> ()
"unreg.single"() {a = dense<[7]> : tensor<1xi64>, b = dense<[[3.0]]> : tensor<1x1xf32>} : () -> ()

// Splats of complex, index, unsigned and rank-0 types.
// CHECK-LABEL: "unreg.splat_kinds"() {a = dense<(1.000000e+00,-1.000000e+00)> : tensor<3xcomplex<f32>>, b = dense<3> : tensor<4xindex>, c = dense<200> : tensor<2xui8>, d = dense<9> : tensor<i8>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.splat_kinds"() {a = dense<(1.0, -1.0)> : tensor<3xcomplex<f32>>, b = dense<3> : tensor<4xindex>, c = dense<200> : tensor<2xui8>, d = dense<9> : tensor<i8>} : () -> ()
