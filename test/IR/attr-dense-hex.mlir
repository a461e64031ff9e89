// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense attributes given as a hex string of raw little-endian element data.
// Small ones print as ordinary literals; a buffer with one element's worth of
// data is a splat.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.hex_ints"() {a = dense<[1, 2, 3, 4]> : tensor<4xi8>, b = dense<[1, 2, 3, 4]> : tensor<4xi16>, c = dense<[-21026, -4162]> : tensor<2xi16>, d = dense<1> : tensor<1xi64>} : () -> ()
"unreg.hex_ints"() {a = dense<"0x01020304"> : tensor<4xi8>, b = dense<"0x0100020003000400"> : tensor<4xi16>, c = dense<"0xDEADBEEF"> : tensor<2xi16>, d = dense<"0x0100000000000000"> : tensor<1xi64>} : () -> ()

// CHECK-LABEL: "unreg.hex_floats"() {a = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, b = dense<0x7FC00000> : tensor<4xf32>, c = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>} : () -> ()
"unreg.hex_floats"() {a = dense<"0x0000803F00000040"> : tensor<2xf32>, b = dense<"0x0000C07F"> : tensor<4xf32>, c = dense<"0x003C0040"> : tensor<2xf16>} : () -> ()

// Hex splat.
// CHECK-LABEL: "unreg.hex_splat"() {a = dense<42> : tensor<8xi32>, b = dense<1.000000e+00> : tensor<2x2xf32>} : () -> ()
"unreg.hex_splat"() {a = dense<"0x2A000000"> : tensor<8xi32>, b = dense<"0x0000803F"> : tensor<2x2xf32>} : () -> ()

// Lowercase hex digits.
// CHECK-LABEL: "unreg.hex_lower"() {a = dense<[171, 205, 239, 1]> : tensor<4xui8>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.hex_lower"() {a = dense<"0xabcdef01"> : tensor<4xui8>} : () -> ()
