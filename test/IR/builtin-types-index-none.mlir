// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// index and none.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.index_attr"() {n = none, t = index} : () -> ()
"unreg.index_attr"() {t = index, n = none} : () -> ()

// CHECK-LABEL: %0 = "unreg.index_values"() : () -> index
// CHECK-NEXT:   %1 = "unreg.none_value"(%0) : (index) -> none
// CHECK-NEXT:   "unreg.use"(%1, %0) : (none, index) -> ()
%0 = "unreg.index_values"() : () -> index
%1 = "unreg.none_value"(%0) : (index) -> none
"unreg.use"(%1, %0) : (none, index) -> ()

// CHECK-LABEL: %2:5 = "unreg.index_nested"() : () -> (tensor<?xindex>, vector<2xindex>, memref<4xindex>, tuple<none, index>, (none) -> index)
// CHECK-NEXT: }) : () -> ()
"unreg.index_nested"() : () -> (tensor<?xindex>, vector<2xindex>, memref<4xindex>, tuple<none, index>, (none) -> index)
