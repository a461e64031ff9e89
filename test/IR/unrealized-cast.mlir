// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// builtin.unrealized_conversion_cast: any number of operands, at least one
// result, any types.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: %0 = "unreg.src"() : () -> i64
// CHECK-NEXT:   %1 = "builtin.unrealized_conversion_cast"(%0) : (i64) -> !foo.t
// CHECK-NEXT:   %2:2 = "builtin.unrealized_conversion_cast"(%1) : (!foo.t) -> (i32, i32)
// CHECK-NEXT:   %3 = "builtin.unrealized_conversion_cast"(%2#0, %2#1) : (i32, i32) -> i64
// CHECK-NEXT:   %4 = "builtin.unrealized_conversion_cast"() : () -> tensor<4xf32>
// CHECK-NEXT:   %5 = "builtin.unrealized_conversion_cast"(%4) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %6 = "builtin.unrealized_conversion_cast"(%3) {foo.note = "x"} : (i64) -> index
%0 = "unreg.src"() : () -> i64
%1 = "builtin.unrealized_conversion_cast"(%0) : (i64) -> !foo.t
%2:2 = "builtin.unrealized_conversion_cast"(%1) : (!foo.t) -> (i32, i32)
%3 = "builtin.unrealized_conversion_cast"(%2#0, %2#1) : (i32, i32) -> i64

// No operands: materializes a value from nothing.
%4 = "builtin.unrealized_conversion_cast"() : () -> tensor<4xf32>

// Same type in and out.
%5 = "builtin.unrealized_conversion_cast"(%4) : (tensor<4xf32>) -> tensor<4xf32>

// With discardable attributes.
%6 = "builtin.unrealized_conversion_cast"(%3) {foo.note = "x"} : (i64) -> index

// Inside a function.
// CHECK-LABEL: "func.func"() <{function_type = (memref<4xf32>) -> tensor<4xf32>, sym_name = "cast_in_func"}> ({
// CHECK-NEXT:   ^bb0(%arg0: memref<4xf32>):
// CHECK-NEXT:     %7 = "builtin.unrealized_conversion_cast"(%arg0) : (memref<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:     "func.return"(%7) : (tensor<4xf32>) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"func.func"() <{function_type = (memref<4xf32>) -> tensor<4xf32>, sym_name = "cast_in_func"}> ({
^bb0(%m: memref<4xf32>):
  %t = "builtin.unrealized_conversion_cast"(%m) : (memref<4xf32>) -> tensor<4xf32>
  "func.return"(%t) : (tensor<4xf32>) -> ()
}) : () -> ()
