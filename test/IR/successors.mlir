// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Successor lists and successor operands in the generic form.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.successors"() ({
// CHECK-NEXT:   ^bb0(%arg3: i32, %arg4: f32):
// CHECK-NEXT:     "unreg.switch"(%arg3)[^bb1, ^bb2, ^bb3, ^bb1] : (i32) -> ()
// CHECK-NEXT:   ^bb1:  // 2 preds: ^bb0, ^bb0
// CHECK-NEXT:     "unreg.br"()[^bb4] : () -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"()[^bb4] : () -> ()
// CHECK-NEXT:   ^bb3:  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"()[^bb4] : () -> ()
// CHECK-NEXT:   ^bb4:  // 3 preds: ^bb1, ^bb2, ^bb3
// CHECK-NEXT:     "unreg.ret"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.successors"() ({
^bb0(%v: i32, %w: f32):
  "unreg.switch"(%v)[^a, ^b, ^c, ^a] : (i32) -> ()
^a:
  "unreg.br"()[^d] : () -> ()
^b:
  "unreg.br"()[^d] : () -> ()
^c:
  "unreg.br"()[^d] : () -> ()
^d:
  "unreg.ret"() : () -> ()
}) : () -> ()

// In the generic form successor operands are ordinary operands; the block
// arguments are not checked against them for unregistered operations.
// CHECK-LABEL: "unreg.successor_operands"() ({
// CHECK-NEXT:   ^bb0(%arg1: i32, %arg2: f32):
// CHECK-NEXT:     "unreg.br"(%arg1, %arg2)[^bb1] : (i32, f32) -> ()
// CHECK-NEXT:   ^bb1(%1: i32, %2: f32):  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"(%2)[^bb2] : (f32) -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb1
// CHECK-NEXT:     "unreg.ret"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.successor_operands"() ({
^bb0(%v: i32, %w: f32):
  "unreg.br"(%v, %w)[^next] : (i32, f32) -> ()
^next(%a: i32, %b: f32):
  "unreg.br"(%b)[^last] : (f32) -> ()
^last:
  "unreg.ret"() : () -> ()
}) : () -> ()

// A successor with properties, regions and attributes.
// CHECK-LABEL: "unreg.successor_everything"() ({
// CHECK-NEXT:   ^bb0(%arg0: i32):
// CHECK-NEXT:     %0 = "unreg.term"(%arg0)[^bb1] <{p = 1 : i64}> ({
// CHECK-NEXT:       "unreg.inner"() : () -> ()
// CHECK-NEXT:     }) {a = 2 : i64} : (i32) -> i64
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "unreg.ret"(%0) : (i64) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.successor_everything"() ({
^bb0(%v: i32):
  %r = "unreg.term"(%v)[^next] <{p = 1}> ({
    "unreg.inner"() : () -> ()
  }) {a = 2} : (i32) -> i64
^next:
  "unreg.ret"(%r) : (i64) -> ()
}) : () -> ()
