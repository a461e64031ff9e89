// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Operations without results and without operands.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.nothing"() : () -> ()
// CHECK-NEXT:   %0 = "unreg.source"() : () -> i32
"unreg.nothing"() : () -> ()

// Zero results but operands.
// CHECK-LABEL: "unreg.sink"(%0, %0) : (i32, i32) -> ()
%0 = "unreg.source"() : () -> i32
"unreg.sink"(%0, %0) : (i32, i32) -> ()

// Zero operands but results.
// CHECK-LABEL: %1 = "unreg.source2"() : () -> tensor<4xf32>
%1 = "unreg.source2"() : () -> tensor<4xf32>

// Zero results with regions, properties and attributes.
// CHECK-LABEL: "unreg.zero_full"() <{p}> ({
// CHECK-NEXT:     "unreg.nothing"() : () -> ()
// CHECK-NEXT:   }) {a} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.zero_full"() <{p}> ({
  "unreg.nothing"() : () -> ()
}) {a} : () -> ()
