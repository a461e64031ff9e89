// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Ranked, dynamic, rank-0 and unranked memrefs without layout.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.ranked"() {a = memref<4xf32>, b = memref<2x3xi8>, c = memref<0xf64>, d = memref<?x?xf32>, e = memref<4x?x2xi1>} : () -> ()
"unreg.ranked"() {a = memref<4xf32>, b = memref<2x3xi8>, c = memref<0xf64>, d = memref<?x?xf32>, e = memref<4x?x2xi1>} : () -> ()

// CHECK-LABEL: "unreg.rank0"() {a = memref<f32>, b = memref<index>} : () -> ()
"unreg.rank0"() {a = memref<f32>, b = memref<index>} : () -> ()

// CHECK-LABEL: "unreg.unranked"() {a = memref<*xf32>, b = memref<*xi8, 1>, c = memref<*xf16, "shared">} : () -> ()
"unreg.unranked"() {a = memref<*xf32>, b = memref<*xi8, 1>, c = memref<*xf16, "shared">} : () -> ()

// Element types: vectors, complex and memrefs are allowed (dialect types are not).
// CHECK-LABEL: "unreg.elements"() {a = memref<4xvector<8xf32>>, b = memref<2xcomplex<f32>>, d = memref<2xmemref<4xi8>>} : () -> ()
"unreg.elements"() {a = memref<4xvector<8xf32>>, b = memref<2xcomplex<f32>>, d = memref<2xmemref<4xi8>>} : () -> ()

// An identity affine map layout is dropped by the parser.
// CHECK-LABEL: "unreg.identity_layout"() {a = memref<4x4xf32>} : () -> ()
"unreg.identity_layout"() {a = memref<4x4xf32, affine_map<(d0, d1) -> (d0, d1)>>} : () -> ()

// CHECK-LABEL: %0 = "unreg.memref_values"() : () -> memref<?x4xf32>
// CHECK-NEXT:   %1 = "unreg.use"(%0) : (memref<?x4xf32>) -> memref<*xf32>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.memref_values"() : () -> memref<?x4xf32>
"unreg.use"(%0) : (memref<?x4xf32>) -> memref<*xf32>
