// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Shaped types whose element count overflows a 64-bit integer are valid types, as in
// mlir-opt: every dimension fits, only their product does not. They parse and print
// unchanged; element counts of such types are computed with checked arithmetic
// (`shape_num_elements`), never wrapped.

// CHECK-LABEL: "unreg.huge"() : () -> (tensor<9223372036854775807x2xf32>, memref<4611686018427387904x4xf32>, vector<4611686018427387904x4xi8>)
%0:3 = "unreg.huge"() : () -> (tensor<9223372036854775807x2xf32>, memref<4611686018427387904x4xf32>, vector<4611686018427387904x4xi8>)

// A zero dimension makes the element count 0 whatever the other dimensions are.
// CHECK-LABEL: "unreg.empty_elements"() {v = dense<> : tensor<4611686018427387904x4x0xf32>} : () -> ()
"unreg.empty_elements"() {v = dense<> : tensor<4611686018427387904x4x0xf32>} : () -> ()
