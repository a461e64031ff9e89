// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense i1 elements.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.bools"() {a = dense<[true, false, true]> : tensor<3xi1>, b = dense<true> : tensor<8xi1>, c = dense<false> : vector<4xi1>, d = dense<{{\[\[}}true, false], [false, true]]> : tensor<2x2xi1>} : () -> ()
"unreg.bools"() {a = dense<[true, false, true]> : tensor<3xi1>, b = dense<true> : tensor<8xi1>, c = dense<false> : vector<4xi1>, d = dense<[[true, false], [false, true]]> : tensor<2x2xi1>} : () -> ()

// Integer literals 0 and 1 are accepted for i1.
// CHECK-LABEL: "unreg.bool_ints"() {a = dense<[true, false, true]> : tensor<3xi1>, b = dense<true> : tensor<2xi1>} : () -> ()
"unreg.bool_ints"() {a = dense<[1, 0, 1]> : tensor<3xi1>, b = dense<1> : tensor<2xi1>} : () -> ()

// Hex data for i1 is bit-packed, least significant bit first; a byte of all
// zeros or all ones is a splat.
// CHECK-LABEL: "unreg.bool_hex"() {a = dense<[true, false, true, true]> : tensor<4xi1>, b = dense<[true, false, true, false, false, true, false, true]> : tensor<8xi1>, c = dense<true> : tensor<8xi1>, d = dense<false> : tensor<3xi1>} : () -> ()
"unreg.bool_hex"() {a = dense<"0x0D"> : tensor<4xi1>, b = dense<"0xA5"> : tensor<8xi1>, c = dense<"0xFF"> : tensor<8xi1>, d = dense<"0x00"> : tensor<3xi1>} : () -> ()

// i1 vectors and rank 0.
// CHECK-LABEL: "unreg.bool_rank0"() {a = dense<true> : tensor<i1>, b = dense<false> : vector<1xi1>} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.bool_rank0"() {a = dense<true> : tensor<i1>, b = dense<false> : vector<1xi1>} : () -> ()
