// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense attributes without elements.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.empty"() {a = dense<> : tensor<0xi32>, b = dense<> : tensor<0xf32>, c = dense<> : tensor<1x0xi32>, d = dense<> : tensor<2x0x3xi8>} : () -> ()
"unreg.empty"() {a = dense<> : tensor<0xi32>, b = dense<[]> : tensor<0xf32>, c = dense<[[]]> : tensor<1x0xi32>, d = dense<> : tensor<2x0x3xi8>} : () -> ()

// Empty complex, bool and string elements.
// CHECK-LABEL: "unreg.empty_kinds"() {a = dense<> : tensor<0xcomplex<f32>>, b = dense<> : tensor<0xi1>, c = dense<> : tensor<0x!unreg.str>} : () -> ()
"unreg.empty_kinds"() {a = dense<> : tensor<0xcomplex<f32>>, b = dense<[]> : tensor<0xi1>, c = dense<[]> : tensor<0x!unreg.str>} : () -> ()

// Empty hex data.
// CHECK-LABEL: "unreg.empty_hex"() {a = dense<> : tensor<0xi64>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.empty_hex"() {a = dense<"0x"> : tensor<0xi64>} : () -> ()
