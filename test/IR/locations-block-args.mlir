// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Locations of block arguments.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.block_args"() ({
// CHECK-NEXT:   ^bb0(%arg2: i32 loc("arg.c":1:1), %arg3: f32 loc(unknown), %arg4: index loc("named"("arg.c":2:2))):
// CHECK-NEXT:     "unreg.use"(%arg2, %arg3, %arg4) : (i32, f32, index) -> () loc("use.c":1:1)
// CHECK-NEXT:   }) : () -> () loc("op.c":1:1)
"unreg.block_args"() ({
^bb0(%a: i32 loc("arg.c":1:1), %b: f32 loc(unknown), %c: index loc("named"("arg.c":2:2))):
  "unreg.use"(%a, %b, %c) : (i32, f32, index) -> () loc("use.c":1:1)
}) : () -> () loc("op.c":1:1)

// An argument without a location gets the position of its name in the file.
// CHECK-LABEL: "unreg.block_args_implicit"() ({
// CHECK-NEXT:   ^bb0(%arg0: i32 loc("{{.*}}locations-block-args.mlir":[[@LINE+4]]:6), %arg1: i64 loc("b.c":1:1)):
// CHECK-NEXT:     "unreg.use"(%arg0, %arg1) : (i32, i64) -> () loc("use.c":2:2)
// CHECK-NEXT:   }) : () -> () loc("op.c":2:2)
"unreg.block_args_implicit"() ({
^bb0(%a: i32, %b: i64 loc("b.c":1:1)):
  "unreg.use"(%a, %b) : (i32, i64) -> () loc("use.c":2:2)
}) : () -> () loc("op.c":2:2)

// Non-entry blocks.
// CHECK-LABEL: "unreg.block_args_later"() ({
// CHECK-NEXT:     "unreg.br"()[^bb1] : () -> () loc("br.c":1:1)
// CHECK-NEXT:   ^bb1(%0: i8 loc(fused["x.c":1:1, "y.c":2:2])):  // pred: ^bb0
// CHECK-NEXT:     "unreg.use"(%0) : (i8) -> () loc("use.c":3:3)
// CHECK-NEXT:   }) : () -> () loc("op.c":3:3)
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations-block-args.mlir":0:0)
"unreg.block_args_later"() ({
  "unreg.br"()[^bb1] : () -> () loc("br.c":1:1)
^bb1(%x: i8 loc(fused["x.c":1:1, "y.c":2:2])):
  "unreg.use"(%x) : (i8) -> () loc("use.c":3:3)
}) : () -> () loc("op.c":3:3)
