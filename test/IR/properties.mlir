// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Properties (<{...}>) of unregistered operations are a dictionary that is
// kept apart from the discardable attribute dictionary.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.props"() <{a = 1 : i64, b = "s", c = [], d = {x}}> {y, z = 1 : i64} : () -> ()
"unreg.props"() <{a = 1, b = "s", c = [], d = {x}}> {z = 1, y} : () -> ()

// Properties are sorted like attributes.
// CHECK-LABEL: "unreg.props_sorted"() <{a = 2 : i64, "quoted key" = 3 : i64, z = 1 : i64}> : () -> ()
"unreg.props_sorted"() <{z = 1, a = 2, "quoted key" = 3}> : () -> ()

// An empty property dictionary is printed.
// CHECK-LABEL: "unreg.props_empty"() <{}> : () -> ()
"unreg.props_empty"() <{}> : () -> ()

// The same name may be both a property and an attribute.
// CHECK-LABEL: "unreg.props_same_name"() <{n = 1 : i64}> {n = 2 : i64} : () -> ()
"unreg.props_same_name"() <{n = 1}> {n = 2} : () -> ()

// Properties with operands, successors, regions and results.
// CHECK-LABEL: "unreg.props_full"() ({
// CHECK-NEXT:     %0 = "unreg.props_producer"() <{kind = "producer"}> : () -> i32
// CHECK-NEXT:     "unreg.props_br"(%0)[^bb1] <{operandSegmentSizes = array<i32: 1>}> ({
// CHECK-NEXT:       "unreg.in"() : () -> ()
// CHECK-NEXT:     }) {x} : (i32) -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "unreg.props_after"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.props_full"() ({
  %0 = "unreg.props_producer"() <{kind = "producer"}> : () -> i32
  "unreg.props_br"(%0)[^bb1] <{operandSegmentSizes = array<i32: 1>}> ({
    "unreg.in"() : () -> ()
  }) {x} : (i32) -> ()
^bb1:
  "unreg.props_after"() : () -> ()
}) : () -> ()

// For registered operations, inherent attributes written in the attribute
// dictionary are moved to properties (here: builtin.module's sym_name).
// CHECK-LABEL: "builtin.module"() <{sym_name = "m"}> ({
// CHECK-NEXT:     "unreg.in_module"() : () -> ()
// CHECK-NEXT:   }) {unreg.other = 1 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
"builtin.module"() ({
  "unreg.in_module"() : () -> ()
}) {sym_name = "m", unreg.other = 1} : () -> ()
