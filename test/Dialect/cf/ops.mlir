// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// CHECK-LABEL: func.func @br(%arg0: i32, %arg1: f32) -> i32 {
// CHECK-NEXT:    cf.br ^bb1(%arg0, %arg1 : i32, f32)
// CHECK-NEXT:  ^bb1(%0: i32, %1: f32):  // pred: ^bb0
// CHECK-NEXT:    return %0 : i32
// GENERIC-LABEL: sym_name = "br"
// GENERIC:         "cf.br"(%arg{{[0-9]+}}, %arg{{[0-9]+}})[^bb1] : (i32, f32) -> ()
func.func @br(%a: i32, %b: f32) -> i32 {
  cf.br ^bb1(%a, %b : i32, f32)
^bb1(%x: i32, %y: f32):
  return %x : i32
}

// A branch without operands prints no parentheses; attributes follow.
// CHECK-LABEL: func.func @br_no_operands() {
// CHECK-NEXT:    cf.br ^bb1 {tag = 1 : i64}
func.func @br_no_operands() {
  cf.br ^bb1 {tag = 1}
^bb1:
  return
}

// CHECK-LABEL: func.func @cond_br(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT:    cf.cond_br %arg0, ^bb1(%arg1 : i32), ^bb2
// GENERIC-LABEL: sym_name = "cond_br"
// GENERIC:         "cf.cond_br"(%arg{{[0-9]+}}, %arg{{[0-9]+}})[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
func.func @cond_br(%c: i1, %a: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  return %x : i32
^bb2:
  return %a : i32
}

// CHECK-LABEL: func.func @cond_br_weights(%arg0: i1) {
// CHECK-NEXT:    cf.cond_br %arg0 weights([3, 5]), ^bb1, ^bb1
// GENERIC-LABEL: sym_name = "cond_br_weights"
// GENERIC:         <{branch_weights = array<i32: 3, 5>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @cond_br_weights(%c: i1) {
  cf.cond_br %c weights([3, 5]), ^bb1, ^bb1
^bb1:
  return
}

// CHECK-LABEL: func.func @switch(%arg0: i32, %arg1: f32) {
// CHECK-NEXT:    cf.switch %arg0 : i32, [
// CHECK-NEXT:      default: ^bb1(%arg1 : f32),
// CHECK-NEXT:      42: ^bb1(%arg1 : f32),
// CHECK-NEXT:      -7: ^bb2
// CHECK-NEXT:    ]
// GENERIC-LABEL: sym_name = "switch"
// GENERIC:         "cf.switch"([[F:%arg[0-9]+]], [[V:%arg[0-9]+]], [[V]])[^bb1, ^bb1, ^bb2] <{case_operand_segments = array<i32: 1, 0>, case_values = dense<[42, -7]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (i32, f32, f32) -> ()
func.func @switch(%flag: i32, %v: f32) {
  cf.switch %flag : i32, [
    default: ^bb1(%v : f32),
    42: ^bb1(%v : f32),
    -7: ^bb2
  ]
^bb1(%x: f32):
  return
^bb2:
  return
}

// A switch with only its default closes the bracket on the same line, as MLIR prints it.
// CHECK-LABEL: func.func @switch_default_only(%arg0: i8) {
// CHECK-NEXT:    cf.switch %arg0 : i8, [
// CHECK-NEXT:      default: ^bb1]
func.func @switch_default_only(%flag: i8) {
  cf.switch %flag : i8, [default: ^bb1]
^bb1:
  return
}

// Equal case values are one splat.
// GENERIC-LABEL: sym_name = "switch_same_values"
// GENERIC:         case_values = dense<5> : vector<2xi64>
func.func @switch_same_values(%flag: i64) {
  cf.switch %flag : i64, [
    default: ^bb1,
    5: ^bb1,
    5: ^bb1
  ]
^bb1:
  return
}

// CHECK-LABEL: func.func @assert(%arg0: i1) {
// CHECK-NEXT:    cf.assert %arg0, "a \22quoted\22 message"
// GENERIC-LABEL: sym_name = "assert"
// GENERIC:         "cf.assert"(%arg{{[0-9]+}}) <{msg = "a \22quoted\22 message"}> : (i1) -> ()
func.func @assert(%c: i1) {
  cf.assert %c, "a \"quoted\" message"
  return
}

// A loop: a block that branches back to itself.
// CHECK-LABEL: func.func @loop(%arg0: index) -> index {
// CHECK:         cf.cond_br %{{.*}}, ^bb1(%{{.*}} : index), ^bb2(%{{.*}} : index)
func.func @loop(%n: index) -> index {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  cf.br ^bb1(%zero : index)
^bb1(%i: index):
  %next = arith.addi %i, %one : index
  %more = arith.cmpi slt, %next, %n : index
  cf.cond_br %more, ^bb1(%next : index), ^bb2(%next : index)
^bb2(%r: index):
  return %r : index
}

// Blocks the entry does not reach are dominated by every block, as in MLIR: a use there
// needs no dominating definition.
// CHECK-LABEL: func.func @unreachable_use(%arg0: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  ^bb1:  // pred: ^bb2
// CHECK-NEXT:    %0 = arith.addi %1, %arg0 : i32
func.func @unreachable_use(%a: i32) -> i32 {
  return %a : i32
^bb1:
  %s = arith.addi %t, %a : i32
  cf.br ^bb2
^bb2:
  %t = arith.addi %a, %a : i32
  cf.br ^bb1
}
