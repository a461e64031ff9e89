// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// tuple types: empty, flat and nested.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.tuples"() {deep = tuple<tuple<tuple<tuple<i1>>>>, empty = tuple<>, nested = tuple<i32, tuple<f32, tuple<>>>, one = tuple<i32>, two = tuple<i32, f32>} : () -> ()
"unreg.tuples"() {empty = tuple<>, one = tuple<i32>, two = tuple<i32, f32>, nested = tuple<i32, tuple<f32, tuple<>>>, deep = tuple<tuple<tuple<tuple<i1>>>>} : () -> ()

// Tuples of shaped, function and dialect types.
// CHECK-LABEL: "unreg.tuple_members"() {a = tuple<tensor<?xf32>, memref<4xi8>, vector<[2]xf16>>, b = tuple<(i32) -> i32, none, index>, c = tuple<!unreg.t, complex<f32>>} : () -> ()
"unreg.tuple_members"() {a = tuple<tensor<?xf32>, memref<4xi8>, vector<[2]xf16>>, b = tuple<(i32) -> i32, none, index>, c = tuple<!unreg.t, complex<f32>>} : () -> ()

// Tuples as values.
// CHECK-LABEL: %0 = "unreg.tuple_values"() : () -> tuple<i32, tuple<>>
// CHECK-NEXT:   %1 = "unreg.use"(%0) : (tuple<i32, tuple<>>) -> tuple<>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.tuple_values"() : () -> tuple<i32, tuple<>>
%1 = "unreg.use"(%0) : (tuple<i32, tuple<>>) -> tuple<>
