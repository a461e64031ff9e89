// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --canonicalize %s | FileCheck %s

// A cast that undoes another folds to the original value; both casts then die.
// CHECK-LABEL: sym_name = "round_trip"
// CHECK-NEXT:  ^bb0(%arg0: i32):
// CHECK-NEXT:    "func.return"(%arg0) : (i32) -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "round_trip"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
  "func.return"(%1) : (i32) -> ()
}) : () -> ()

// -----

// A cast to the type it already has is its input.
// CHECK-LABEL: sym_name = "identity"
// CHECK-NEXT:  ^bb0(%arg0: f32):
// CHECK-NEXT:    "func.return"(%arg0) : (f32) -> ()
"func.func"() <{function_type = (f32) -> f32, sym_name = "identity"}> ({
^bb0(%a: f32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (f32) -> f32
  "func.return"(%0) : (f32) -> ()
}) : () -> ()

// -----

// A cast to a third type does not fold.
// CHECK-LABEL: sym_name = "no_fold"
// CHECK:         %[[A:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK-NEXT:    %[[B:.*]] = "builtin.unrealized_conversion_cast"(%[[A]]) : (f32) -> i64
// CHECK-NEXT:    "func.return"(%[[B]]) : (i64) -> ()
"func.func"() <{function_type = (i32) -> i64, sym_name = "no_fold"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i64
  "func.return"(%1) : (i64) -> ()
}) : () -> ()

// -----

// Blocks that no branch reaches are removed; reachable ones stay.
// CHECK-LABEL: sym_name = "unreachable"
// CHECK:         "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:  ^bb1:  // pred: ^bb0
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "unreachable"}> ({
  "unreg.br"()[^bb2] : () -> ()
^bb1:
  "unreg.dead"() : () -> ()
  "unreg.br"()[^bb2] : () -> ()
^bb2:
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Dead pure ops go; ops with unknown effects stay.
// CHECK-LABEL: sym_name = "dead"
// CHECK-NEXT:    "unreg.effect"() : () -> i8
// CHECK-NEXT:    "func.return"() : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "dead"}> ({
  %0 = "unreg.effect"() : () -> i8
  %1 = "builtin.unrealized_conversion_cast"(%0) : (i8) -> i64
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A declaration and the empty regions of nested ops are left alone; unreachable blocks
// around them still go, however many there are (they are erased in one pass).
// CHECK-LABEL: sym_name = "declaration"
// CHECK-NEXT:  }) : () -> ()
// CHECK-LABEL: sym_name = "empty_regions"
// CHECK:         "unreg.empty"() ({
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "declaration", sym_visibility = "private"}> ({
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "empty_regions"}> ({
  "unreg.empty"() ({}) : () -> ()
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "func.return"() : () -> ()
^bb2:
  "unreg.empty"() ({}) : () -> ()
  "unreg.br"()[^bb3] : () -> ()
^bb3:
  "unreg.br"()[^bb2] : () -> ()
}) : () -> ()
