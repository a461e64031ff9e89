// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Operations with regions: one, several, empty regions and empty blocks.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.one_region"() ({
// CHECK-NEXT:     "unreg.a"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.one_region"() ({
  "unreg.a"() : () -> ()
}) : () -> ()

// CHECK-LABEL: "unreg.three_regions"() ({
// CHECK-NEXT:     "unreg.a"() : () -> ()
// CHECK-NEXT:   }, {
// CHECK-NEXT:     "unreg.b"() : () -> ()
// CHECK-NEXT:   }, {
// CHECK-NEXT:     "unreg.c"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.three_regions"() ({
  "unreg.a"() : () -> ()
}, {
  "unreg.b"() : () -> ()
}, {
  "unreg.c"() : () -> ()
}) : () -> ()

// A region without blocks.
// CHECK-LABEL: "unreg.empty_region"() ({
// CHECK-NEXT:   }) : () -> ()
"unreg.empty_region"() ({
}) : () -> ()

// A region with one empty block: the entry label must be printed.
// CHECK-LABEL: "unreg.empty_block"() ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
"unreg.empty_block"() ({
^bb0:
}) : () -> ()

// An entry block label without arguments is not printed when the block has
// operations.
// CHECK-LABEL: "unreg.labelled_entry"() ({
// CHECK-NEXT:     "unreg.a"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.labelled_entry"() ({
^entry:
  "unreg.a"() : () -> ()
}) : () -> ()

// Mixed empty and non-empty regions.
// CHECK-LABEL: "unreg.mixed_regions"() ({
// CHECK-NEXT:   }, {
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }, {
// CHECK-NEXT:     "unreg.x"() : () -> ()
// CHECK-NEXT:   }, {
// CHECK-NEXT:   }) : () -> ()
"unreg.mixed_regions"() ({
}, {
^bb0:
}, {
  "unreg.x"() : () -> ()
}, {
}) : () -> ()

// Regions whose blocks do not end in a terminator are fine for unregistered
// operations.
// CHECK-LABEL: "unreg.no_terminator"() ({
// CHECK-NEXT:     %2 = "unreg.value"() : () -> i32
// CHECK-NEXT:     "unreg.use"(%2) : (i32) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   %0 = "unreg.src"() : () -> i32
"unreg.no_terminator"() ({
  %0 = "unreg.value"() : () -> i32
  "unreg.use"(%0) : (i32) -> ()
}) : () -> ()

// Regions together with operands, attributes and results.
// CHECK-LABEL: %1:2 = "unreg.region_with_everything"(%0) ({
// CHECK-NEXT:   ^bb0(%arg0: i32):
// CHECK-NEXT:     "unreg.yield"(%arg0) : (i32) -> ()
// CHECK-NEXT:   }, {
// CHECK-NEXT:     "unreg.yield"(%0) : (i32) -> ()
// CHECK-NEXT:   }) {attr} : (i32) -> (i32, i32)
// CHECK-NEXT: }) : () -> ()
%1 = "unreg.src"() : () -> i32
%2:2 = "unreg.region_with_everything"(%1) ({
^bb0(%a: i32):
  "unreg.yield"(%a) : (i32) -> ()
}, {
  "unreg.yield"(%1) : (i32) -> ()
}) {attr} : (i32) -> (i32, i32)
