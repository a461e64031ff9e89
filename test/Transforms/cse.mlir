// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --pass-pipeline='builtin.module(func.func(cse))' %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --cse %s | FileCheck %s

// Identical pure ops merge; their uses move to the first one.
// CHECK-LABEL: sym_name = "duplicates"
// CHECK:         %[[A:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK-NOT:     unrealized_conversion_cast
// CHECK:         "func.return"(%[[A]], %[[A]]) : (f32, f32) -> ()
"func.func"() <{function_type = (i32) -> (f32, f32), sym_name = "duplicates"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  "func.return"(%0, %1) : (f32, f32) -> ()
}) : () -> ()

// -----

// Different result types, operands or attributes keep ops apart.
// CHECK-LABEL: sym_name = "different"
// CHECK-COUNT-3: "builtin.unrealized_conversion_cast"
"func.func"() <{function_type = (i32, i32) -> (f32, f64, f32), sym_name = "different"}> ({
^bb0(%a: i32, %b: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f64
  %2 = "builtin.unrealized_conversion_cast"(%b) : (i32) -> f32
  "func.return"(%0, %1, %2) : (f32, f64, f32) -> ()
}) : () -> ()

// -----

// Ops with unknown side effects (unregistered ops) are never merged.
// CHECK-LABEL: sym_name = "side_effects"
// CHECK-COUNT-2: "unreg.random"()
"func.func"() <{function_type = () -> (i32, i32), sym_name = "side_effects"}> ({
  %0 = "unreg.random"() : () -> i32
  %1 = "unreg.random"() : () -> i32
  "func.return"(%0, %1) : (i32, i32) -> ()
}) : () -> ()

// -----

// An op in a nested region reuses an equal op of the enclosing region.
// CHECK-LABEL: sym_name = "nested"
// CHECK:         %[[A:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK:         "loop.for"()
// CHECK-NEXT:    ^bb0(%{{.*}}: index):
// CHECK-NEXT:      "unreg.use"(%[[A]]) : (f32) -> ()
"func.func"() <{function_type = (i32) -> f32, sym_name = "nested"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  loop.for %i = 0 to 4 {
    %1 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    "unreg.use"(%1) : (f32) -> ()
  }
  "func.return"(%0) : (f32) -> ()
}) : () -> ()

// -----

// An unregistered op might be isolated from above: its regions keep their own copies
// rather than capture the enclosing op's result (as in MLIR).
// CHECK-LABEL: sym_name = "nested_unregistered"
// CHECK:         "unreg.region"() ({
// CHECK-NEXT:      %[[B:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK-NEXT:      "unreg.use"(%[[B]]) : (f32) -> ()
"func.func"() <{function_type = (i32) -> f32, sym_name = "nested_unregistered"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  "unreg.region"() ({
    %1 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    "unreg.use"(%1) : (f32) -> ()
  }) : () -> ()
  "func.return"(%0) : (f32) -> ()
}) : () -> ()

// -----

// A block only reuses ops of blocks that dominate it: bb1 and bb2 keep their own casts,
// bb3 (dominated by bb0 only) reuses bb0's.
// CHECK-LABEL: sym_name = "dominance"
// CHECK:       ^bb0(%arg0: i32):
// CHECK-NEXT:    %[[E:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> i64
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[B1:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[B2:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> f32
// CHECK:       ^bb3:
// CHECK-NEXT:    "unreg.use"(%[[E]]) : (i64) -> ()
"func.func"() <{function_type = (i32) -> (), sym_name = "dominance"}> ({
^bb0(%a: i32):
  %e = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  "unreg.cond_br"()[^bb1, ^bb2] : () -> ()
^bb1:
  %x = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  "unreg.use"(%x) : (f32) -> ()
  "unreg.br"()[^bb3] : () -> ()
^bb2:
  %y = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  "unreg.use"(%y) : (f32) -> ()
  "unreg.br"()[^bb3] : () -> ()
^bb3:
  %z = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  "unreg.use"(%z) : (i64) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A declaration's body region has no blocks: nothing to simplify, nothing to crash on.
// CHECK-LABEL: sym_name = "declaration"
// CHECK-SAME:    sym_visibility = "private"
// CHECK-NEXT:  }) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "declaration", sym_visibility = "private"}> ({
}) : () -> ()

// -----

// Empty regions of nested ops, in a region of several blocks, are left alone; the blocks
// around them are still simplified.
// CHECK-LABEL: sym_name = "empty_nested_regions"
// CHECK:         "unreg.empty"() ({
// CHECK-NEXT:    }, {
// CHECK-NEXT:    }) : () -> ()
// CHECK:       ^bb1:
// CHECK-NEXT:    "unreg.empty"() ({
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    %[[C:.*]] = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> i64
// CHECK-NEXT:    "unreg.use"(%[[C]], %[[C]]) : (i64, i64) -> ()
"func.func"() <{function_type = (i32) -> (), sym_name = "empty_nested_regions"}> ({
^bb0(%a: i32):
  "unreg.empty"() ({}, {}) : () -> ()
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "unreg.empty"() ({}) : () -> ()
  %x = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  %y = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  "unreg.use"(%x, %y) : (i64, i64) -> ()
  "func.return"() : () -> ()
}) : () -> ()
