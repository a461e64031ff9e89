// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --reconcile-unrealized-casts %s | FileCheck %s

// A chain of casts that returns to the starting type disappears.
// CHECK-LABEL: sym_name = "chain"
// CHECK-NEXT:  ^bb0(%arg0: i32):
// CHECK-NEXT:    "unreg.use"(%arg0) : (i32) -> ()
"func.func"() <{function_type = (i32) -> (), sym_name = "chain"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  %1 = "builtin.unrealized_conversion_cast"(%0) : (i64) -> f32
  %2 = "builtin.unrealized_conversion_cast"(%1) : (f32) -> i32
  "unreg.use"(%2) : (i32) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Multi-value casts reconcile as a whole; unused casts are dropped.
// CHECK-LABEL: sym_name = "multi"
// CHECK-NEXT:  ^bb0(%arg0: i32, %arg1: f32):
// CHECK-NEXT:    "unreg.use"(%arg0, %arg1) : (i32, f32) -> ()
"func.func"() <{function_type = (i32, f32) -> (), sym_name = "multi"}> ({
^bb0(%a: i32, %b: f32):
  %0:2 = "builtin.unrealized_conversion_cast"(%a, %b) : (i32, f32) -> (i64, f64)
  %1:2 = "builtin.unrealized_conversion_cast"(%0#0, %0#1) : (i64, f64) -> (i32, f32)
  %unused = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i8
  "unreg.use"(%1#0, %1#1) : (i32, f32) -> ()
  "func.return"() : () -> ()
}) : () -> ()
