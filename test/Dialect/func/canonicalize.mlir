// RUN: tb-opt %s --canonicalize | FileCheck %s
// RUN: mlir-opt %s --canonicalize | FileCheck %s
// REQUIRES: mlir-opt

// func has no patterns of its own; these pin down how canonicalization treats its ops.

// Calls may have side effects: an unused call stays.
// CHECK-LABEL: func.func @unused_call_kept
// CHECK-NEXT:    call @callee() : () -> i32
// CHECK-NEXT:    return
func.func private @callee() -> i32
func.func @unused_call_kept() {
  %0 = call @callee() : () -> i32
  return
}

// Pure ops whose results are unused are erased from function bodies.
// CHECK-LABEL: func.func @dead_ops_erased
// CHECK-NEXT:    return %arg0 : i32
func.func @dead_ops_erased(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %a : i32
}

// Returned constants are materialized in the function that returns them.
// CHECK-LABEL: func.func @returned_constant
// CHECK-NEXT:    %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    return %[[C]] : i32
func.func @returned_constant() -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %c2, %c3 : i32
  return %0 : i32
}

// Private functions are not erased by canonicalize (that is symbol-dce's job).
// CHECK-LABEL: func.func private @unused_private
func.func private @unused_private() {
  return
}
