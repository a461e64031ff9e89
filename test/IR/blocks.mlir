// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Multi-block regions, block arguments and block naming. Blocks are
// renumbered ^bb0, ^bb1, ... per region; each label shows its predecessors.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.cfg"() ({
// CHECK-NEXT:   ^bb0(%arg6: i32, %arg7: i32):
// CHECK-NEXT:     %0 = "unreg.cmp"(%arg6, %arg7) : (i32, i32) -> i1
// CHECK-NEXT:     "unreg.cond_br"(%0, %arg6, %arg7)[^bb1, ^bb2] : (i1, i32, i32) -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"(%arg6)[^bb3] : (i32) -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"(%arg7)[^bb3] : (i32) -> ()
// CHECK-NEXT:   ^bb3(%1: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT:     "unreg.ret"(%1) : (i32) -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.cfg"() ({
^entry(%x: i32, %y: i32):
  %c = "unreg.cmp"(%x, %y) : (i32, i32) -> i1
  "unreg.cond_br"(%c, %x, %y)[^then, ^else] : (i1, i32, i32) -> ()
^then:
  "unreg.br"(%x)[^exit] : (i32) -> ()
^else:
  "unreg.br"(%y)[^exit] : (i32) -> ()
^exit(%r: i32):
  "unreg.ret"(%r) : (i32) -> ()
}) : () -> ()

// Blocks may be referenced before they are defined, appear in any order,
// and may have no predecessors.
// CHECK-LABEL: "unreg.unreachable"() ({
// CHECK-NEXT:     "unreg.ret"() : () -> ()
// CHECK-NEXT:   ^bb1:  // no predecessors
// CHECK-NEXT:     "unreg.br"()[^bb2] : () -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb1
// CHECK-NEXT:     "unreg.ret"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.unreachable"() ({
  "unreg.ret"() : () -> ()
^dead:
  "unreg.br"()[^dead2] : () -> ()
^dead2:
  "unreg.ret"() : () -> ()
}) : () -> ()

// Block arguments of many types, including multiple of the same type.
// CHECK-LABEL: "unreg.block_arg_types"() ({
// CHECK-NEXT:   ^bb0(%arg1: tensor<?xf32>, %arg2: !foo.t, %arg3: index, %arg4: index, %arg5: (i32) -> ()):
// CHECK-NEXT:     "unreg.use"(%arg1, %arg2, %arg3, %arg4, %arg5) : (tensor<?xf32>, !foo.t, index, index, (i32) -> ()) -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.block_arg_types"() ({
^bb0(%a: tensor<?xf32>, %b: !foo.t, %c: index, %d: index, %e: (i32) -> ()):
  "unreg.use"(%a, %b, %c, %d, %e) : (tensor<?xf32>, !foo.t, index, index, (i32) -> ()) -> ()
}) : () -> ()

// Only a region's single (entry) block may be empty; such a block keeps its
// label, with or without arguments. (An empty block in a multi-block region is
// an error: see invalid-blocks.mlir.)
// CHECK-LABEL: "unreg.empty_blocks"() ({
// CHECK-NEXT:   ^bb0(%arg0: i8):
// CHECK-NEXT:   }, {
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
"unreg.empty_blocks"() ({
^bb0(%z: i8):
}, {
^bb0:
}) : () -> ()

// A self loop: a block is its own predecessor.
// CHECK-LABEL: "unreg.self_loop"() ({
// CHECK-NEXT:     "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:   ^bb1:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT:     "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:   }) : () -> ()
"unreg.self_loop"() ({
  "unreg.br"()[^loop] : () -> ()
^loop:
  "unreg.br"()[^loop] : () -> ()
}) : () -> ()

// Numeric and named block labels.
// CHECK-LABEL: "unreg.labels"() ({
// CHECK-NEXT:     "unreg.br"()[^bb1] : () -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "unreg.br"()[^bb2] : () -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb1
// CHECK-NEXT:     "unreg.ret"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.labels"() ({
  "unreg.br"()[^42] : () -> ()
^42:
  "unreg.br"()[^a.b_c$d] : () -> ()
^a.b_c$d:
  "unreg.ret"() : () -> ()
}) : () -> ()
