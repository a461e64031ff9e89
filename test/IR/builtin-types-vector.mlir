// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Fixed, scalable and 0-d vectors.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.fixed"() {a = vector<4xf32>, b = vector<2x3xi8>, c = vector<1xf16>, d = vector<2x2x2x2xi1>, e = vector<4xindex>} : () -> ()
"unreg.fixed"() {a = vector<4xf32>, b = vector<2x3xi8>, c = vector<1xf16>, d = vector<2x2x2x2xi1>, e = vector<4xindex>} : () -> ()

// CHECK-LABEL: "unreg.scalable"() {a = vector<[4]xf32>, b = vector<2x[4]xi32>, c = vector<[2]x[4]xi1>, d = vector<[1]xf64>, e = vector<4x[8]x2xbf16>} : () -> ()
"unreg.scalable"() {a = vector<[4]xf32>, b = vector<2x[4]xi32>, c = vector<[2]x[4]xi1>, d = vector<[1]xf64>, e = vector<4x[8]x2xbf16>} : () -> ()

// CHECK-LABEL: "unreg.zero_d"() {a = vector<f32>, b = vector<i1>, c = vector<index>} : () -> ()
"unreg.zero_d"() {a = vector<f32>, b = vector<i1>, c = vector<index>} : () -> ()

// Small float and odd-width integer elements.
// CHECK-LABEL: "unreg.odd_elements"() {a = vector<8xf8E4M3FN>, b = vector<3xi7>, c = vector<2xsi8>, d = vector<16xui4>} : () -> ()
"unreg.odd_elements"() {a = vector<8xf8E4M3FN>, b = vector<3xi7>, c = vector<2xsi8>, d = vector<16xui4>} : () -> ()

// Vectors as values.
// CHECK-LABEL: %0 = "unreg.vector_values"() : () -> vector<[4]xf32>
// CHECK-NEXT:   %1 = "unreg.use"(%0) : (vector<[4]xf32>) -> vector<2x[4]xi32>
// CHECK-NEXT:   %2 = "unreg.use2"(%1) : (vector<2x[4]xi32>) -> vector<f32>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.vector_values"() : () -> vector<[4]xf32>
%1 = "unreg.use"(%0) : (vector<[4]xf32>) -> vector<2x[4]xi32>
"unreg.use2"(%1) : (vector<2x[4]xi32>) -> vector<f32>
