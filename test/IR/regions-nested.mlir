// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Nested regions; values from enclosing regions are visible inside.

// CHECK: "builtin.module"() ({
// CHECK-NEXT:   %0 = "unreg.def"() : () -> i32

// CHECK-LABEL: "unreg.outer"() ({
// CHECK-NEXT:     %1 = "unreg.def1"(%0) : (i32) -> i32
// CHECK-NEXT:     "unreg.middle"() ({
// CHECK-NEXT:     ^bb0(%arg0: i32):
// CHECK-NEXT:       %2 = "unreg.def2"(%0, %1, %arg0) : (i32, i32, i32) -> i32
// CHECK-NEXT:       "unreg.inner"() ({
// CHECK-NEXT:         "unreg.use"(%0, %1, %2, %arg0) : (i32, i32, i32, i32) -> ()
// CHECK-NEXT:       }) : () -> ()
// CHECK-NEXT:     }) : () -> ()
// CHECK-NEXT:   }) : () -> ()
%0 = "unreg.def"() : () -> i32
"unreg.outer"() ({
  %1 = "unreg.def1"(%0) : (i32) -> i32
  "unreg.middle"() ({
  ^bb0(%arg: i32):
    %2 = "unreg.def2"(%0, %1, %arg) : (i32, i32, i32) -> i32
    "unreg.inner"() ({
      "unreg.use"(%0, %1, %2, %arg) : (i32, i32, i32, i32) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()

// Deep nesting of empty regions.
// CHECK-LABEL: "unreg.deep"() ({
// CHECK-NEXT:     "unreg.l1"() ({
// CHECK-NEXT:       "unreg.l2"() ({
// CHECK-NEXT:         "unreg.l3"() ({
// CHECK-NEXT:           "unreg.l4"() ({
// CHECK-NEXT:           }) : () -> ()
// CHECK-NEXT:         }) : () -> ()
// CHECK-NEXT:       }) : () -> ()
// CHECK-NEXT:     }) : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.deep"() ({
  "unreg.l1"() ({
    "unreg.l2"() ({
      "unreg.l3"() ({
        "unreg.l4"() ({
        }) : () -> ()
      }) : () -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()

// Nested regions inside multi-block regions.
// CHECK-LABEL: "unreg.nested_cfg"() ({
// CHECK-NEXT:     "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "unreg.inner"() ({
// CHECK-NEXT:       "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:     ^bb1:  // pred: ^bb0
// CHECK-NEXT:       "unreg.end"() : () -> ()
// CHECK-NEXT:     }) : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.nested_cfg"() ({
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "unreg.inner"() ({
    "unreg.br"()[^bb1] : () -> ()
  ^bb1:
    "unreg.end"() : () -> ()
  }) : () -> ()
}) : () -> ()
