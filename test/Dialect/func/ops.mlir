// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// CHECK-LABEL: "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
// CHECK-NEXT:  ^bb0(%arg0: i32, %arg1: i32):
// CHECK-NEXT:    "func.return"(%arg0) : (i32) -> ()
"func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
^bb0(%a: i32, %b: i32):
  "func.return"(%a) : (i32) -> ()
}) : () -> ()

// CHECK-LABEL: sym_name = "caller"
// CHECK:         %0 = "func.call"(%arg0, %arg0) <{callee = @add}> : (i32, i32) -> i32
// CHECK-NEXT:    "func.return"(%0) : (i32) -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "caller"}> ({
^bb0(%x: i32):
  %r = "func.call"(%x, %x) <{callee = @add}> : (i32, i32) -> i32
  "func.return"(%r) : (i32) -> ()
}) : () -> ()

// A declaration has no body; inherent attributes written as discardable ones move
// into the properties.
// CHECK-LABEL: "func.func"() <{function_type = (f32) -> f32, sym_name = "decl", sym_visibility = "private"}> ({
// CHECK-NEXT:  }) : () -> ()
"func.func"() ({
}) {function_type = (f32) -> f32, sym_name = "decl", sym_visibility = "private"} : () -> ()

// Branches between blocks of a function body: values must dominate their uses.
// CHECK-LABEL: sym_name = "branches"
// CHECK:       ^bb1(%0: i32):  // pred: ^bb0
"func.func"() <{function_type = (i32) -> i32, sym_name = "branches"}> ({
^bb0(%x: i32):
  "unreg.br"(%x)[^bb1] : (i32) -> ()
^bb1(%y: i32):
  "func.return"(%y) : (i32) -> ()
}) {"unreg.tag"} : () -> ()
