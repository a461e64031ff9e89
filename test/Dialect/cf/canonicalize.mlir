// RUN: tb-opt --canonicalize --split-input-file %s | FileCheck %s

// A branch on a constant condition always takes one side.
// CHECK-LABEL: func.func @cond_br_true(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[A]] : i32
func.func @cond_br_true(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// CHECK-LABEL: func.func @cond_br_false(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[B]] : i32
func.func @cond_br_false(%a: i32, %b: i32) -> i32 {
  %false = arith.constant false
  cf.cond_br %false, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// Both sides go to one block with the same values.
// CHECK-LABEL: func.func @cond_br_same_successor(
// CHECK-SAME:    %{{.*}}: i1, %[[A:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[A]] : i32
func.func @cond_br_same_successor(%c: i1, %a: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// A block reached by one branch only is merged into its predecessor.
// CHECK-LABEL: func.func @merge_single_predecessor(
// CHECK-SAME:    %[[A:.*]]: i32) -> i32 {
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT:    return %[[S]] : i32
// CHECK-NEXT:  }
func.func @merge_single_predecessor(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  %s = arith.addi %x, %x : i32
  return %s : i32
}

// -----

// A block that only forwards to another one is skipped.
// CHECK-LABEL: func.func @skip_forwarding_block(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb2(%[[A]] : i32), ^bb1
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    return %[[B]] : i32
// CHECK-NEXT:  ^bb2(%[[X:.*]]: i32):
// CHECK-NEXT:    return %[[X]] : i32
func.func @skip_forwarding_block(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : i32)
^bb2:
  return %b : i32
^bb3(%x: i32):
  return %x : i32
}

// -----

// Both sides reach one block with different values: a select chooses the value.
// CHECK-LABEL: func.func @same_successor_select(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : i32
// CHECK-NEXT:    return %[[S]] : i32
func.func @same_successor_select(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// -----

// A switch on a constant goes to the matching case.
// CHECK-LABEL: func.func @switch_constant(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[B]] : i32
func.func @switch_constant(%a: i32, %b: i32) -> i32 {
  %flag = arith.constant 7 : i8
  cf.switch %flag : i8, [
    default: ^bb1(%a : i32),
    7: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return %x : i32
}

// -----

// A constant that matches no case takes the default.
// CHECK-LABEL: func.func @switch_constant_default(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    return %[[A]] : i32
func.func @switch_constant_default(%a: i32, %b: i32) -> i32 {
  %flag = arith.constant -1 : i8
  cf.switch %flag : i8, [
    default: ^bb1(%a : i32),
    7: ^bb1(%b : i32)
  ]
^bb1(%x: i32):
  return %x : i32
}

// -----

// A switch with only a default is a branch.
// CHECK-LABEL: func.func @switch_only_default(
// CHECK-SAME:    %{{.*}}: i32, %[[A:.*]]: f32) -> f32 {
// CHECK-NEXT:    return %[[A]] : f32
func.func @switch_only_default(%flag: i32, %a: f32) -> f32 {
  cf.switch %flag : i32, [default: ^bb1(%a : f32)]
^bb1(%x: f32):
  return %x : f32
}

// -----

// Cases that go where the default goes are dropped.
// CHECK-LABEL: func.func @switch_drop_cases_like_default(
// CHECK-SAME:    %[[F:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32) -> f32 {
// CHECK-NEXT:    cf.switch %[[F]] : i32, [
// CHECK-NEXT:      default: ^bb1(%[[A]] : f32),
// CHECK-NEXT:      2: ^bb1(%[[B]] : f32)
// CHECK-NEXT:    ]
func.func @switch_drop_cases_like_default(%flag: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb1(%a : f32),
    1: ^bb1(%a : f32),
    2: ^bb1(%b : f32)
  ]
^bb1(%x: f32):
  return %x : f32
}

// -----

// An assertion of true checks nothing; others stay.
// CHECK-LABEL: func.func @assert_true(
// CHECK-SAME:    %[[C:.*]]: i1) {
// CHECK-NEXT:    cf.assert %[[C]], "kept"
// CHECK-NEXT:    return
func.func @assert_true(%c: i1) {
  %true = arith.constant true
  cf.assert %true, "always holds"
  cf.assert %c, "kept"
  return
}

// -----

// A branch on the condition that led to its block (from its only predecessor) is known.
// CHECK-LABEL: func.func @cond_br_same_condition(
// CHECK-SAME:    %[[C:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    return %[[A]] : i32
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    return %[[B]] : i32
func.func @cond_br_same_condition(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^t, ^f
^t:
  cf.cond_br %c, ^ra, ^rb
^f:
  return %b : i32
^ra:
  return %a : i32
^rb:
  return %b : i32
}

// -----

// A switch on the flag of the switch case that led here knows the flag's value; after
// the default, the cases the first switch took elsewhere are impossible.
// CHECK-LABEL: func.func @switch_same_flag(
// CHECK-SAME:    %[[F:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32) -> f32 {
// CHECK-NEXT:    cf.switch %[[F]] : i32, [
// CHECK-NEXT:      default: ^bb1,
// CHECK-NEXT:      7: ^bb2(%[[B]] : f32)
// CHECK-NEXT:    ]
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    cf.switch %[[F]] : i32, [
// CHECK-NEXT:      default: ^bb2(%[[A]] : f32),
// CHECK-NEXT:      8: ^bb2(%[[C]] : f32)
// CHECK-NEXT:    ]
func.func @switch_same_flag(%f: i32, %a: f32, %b: f32, %c: f32) -> f32 {
  cf.switch %f : i32, [
    default: ^dflt,
    7: ^seven
  ]
^seven:
  cf.switch %f : i32, [
    default: ^out(%a : f32),
    7: ^out(%b : f32)
  ]
^dflt:
  cf.switch %f : i32, [
    default: ^out(%a : f32),
    7: ^out(%c : f32),
    8: ^out(%c : f32)
  ]
^out(%r: f32):
  return %r : f32
}
