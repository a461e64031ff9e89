// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --dce %s | FileCheck %s

// Chains of unused pure ops disappear; used ones, terminators and ops with unknown side
// effects stay.
// CHECK-LABEL: sym_name = "chain"
// CHECK-NEXT:  ^bb0(%arg0: i32):
// CHECK-NEXT:    %[[K:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK-NEXT:    "unreg.effect"() : () -> i8
// CHECK-NEXT:    "func.return"(%[[K]]) : (f32) -> ()
"func.func"() <{function_type = (i32) -> f32, sym_name = "chain"}> ({
^bb0(%a: i32):
  %kept = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %d0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  %d1 = "builtin.unrealized_conversion_cast"(%d0) : (i64) -> f64
  %d2 = "builtin.unrealized_conversion_cast"(%d1) : (f64) -> i16
  %e = "unreg.effect"() : () -> i8
  "func.return"(%kept) : (f32) -> ()
}) : () -> ()

// -----

// A declaration and the empty regions of nested ops have nothing to remove.
// CHECK-LABEL: sym_name = "declaration"
// CHECK-NEXT:  }) : () -> ()
// CHECK-LABEL: sym_name = "empty_regions"
// CHECK:         "unreg.empty"() ({
// CHECK-NEXT:    }) : () -> ()
// CHECK-NOT:     unrealized_conversion_cast
"func.func"() <{function_type = () -> (), sym_name = "declaration", sym_visibility = "private"}> ({
}) : () -> ()
"func.func"() <{function_type = (i32) -> (), sym_name = "empty_regions"}> ({
^bb0(%a: i32):
  "unreg.empty"() ({}) : () -> ()
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  "func.return"() : () -> ()
}) : () -> ()
