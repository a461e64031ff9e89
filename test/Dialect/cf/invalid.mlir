// RUN: tb-opt --split-input-file --verify-diagnostics %s

func.func @too_many_operands(%a: i32) {
  // expected-error@+1 {{branch has 1 operands for successor #0, but target block has 0}}
  cf.br ^bb1(%a : i32)
^bb1:
  return
}

// -----

func.func @operand_type_mismatch(%a: i32) {
  // expected-error@+1 {{type mismatch for bb argument #0 of successor #0}}
  cf.br ^bb1(%a : i32)
^bb1(%x: f32):
  return
}

// -----

func.func @br_two_successors() {
  // expected-error@+1 {{'cf.br' op requires 1 successor but found 2}}
  "cf.br"()[^bb1, ^bb1] : () -> ()
^bb1:
  return
}

// -----

func.func @cond_br_one_successor(%c: i1) {
  // expected-error@+1 {{'cf.cond_br' op requires 2 successors but found 1}}
  "cf.cond_br"(%c)[^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  return
}

// -----

func.func @cond_br_condition_not_i1(%a: i32) {
  // expected-error@+1 {{'cf.cond_br' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  "cf.cond_br"(%a)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @cond_br_weights_count(%c: i1) {
  // expected-error@+1 {{expects number of branch weights to match number of successors: 1 vs 2}}
  cf.cond_br %c weights([1]), ^bb1, ^bb1
^bb1:
  return
}

// -----

func.func @cond_br_false_operands(%c: i1, %a: i32) {
  // expected-error@+1 {{branch has 1 operands for successor #1, but target block has 0}}
  cf.cond_br %c, ^bb1, ^bb1(%a : i32)
^bb1:
  return
}

// -----

func.func @switch_no_successor(%a: i32) {
  // expected-error@+1 {{'cf.switch' op requires at least 1 successors but found 0}}
  "cf.switch"(%a) <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
}

// -----

func.func @switch_case_count(%a: i32) {
  // expected-error@+1 {{'cf.switch' op number of case values (1) should match number of case destinations (2)}}
  "cf.switch"(%a)[^bb1, ^bb1, ^bb1] <{case_operand_segments = array<i32: 0, 0>, case_values = dense<[42]> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

// mlir-opt 22 crashes on this one (case destinations without case values).
func.func @switch_cases_without_values(%a: i32) {
  // expected-error@+1 {{'cf.switch' op number of case values (0) should match number of case destinations (1)}}
  "cf.switch"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_value_type(%a: i32) {
  // expected-error@+1 {{'cf.switch' op 'flag' type ('i32') should match case value type ('i64')}}
  "cf.switch"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[42]> : vector<1xi64>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_segment_total(%a: i32) {
  // expected-error@+1 {{'cf.switch' op caseOperands count (0) does not match with the total size (1) specified in attribute 'case_operand_segments'}}
  "cf.switch"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 1>, case_values = dense<[42]> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_index_flag(%a: index) {
  // expected-error@+1 {{'cf.switch' op operand #0 must be integer, but got 'index'}}
  "cf.switch"(%a)[^bb1] <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (index) -> ()
^bb1:
  return
}

// -----

func.func @assert_not_i1(%a: i32) {
  // expected-error@+1 {{'cf.assert' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  "cf.assert"(%a) <{msg = "x"}> : (i32) -> ()
  return
}

// -----

func.func @br_not_last(%c: i1) {
  // expected-error@+1 {{operation with block successors must terminate its parent block}}
  cf.br ^bb1
  cf.br ^bb1
^bb1:
  return
}

// -----

func.func @all_zero_weights(%c: i1) {
  // expected-error@+1 {{branch weights cannot all be zero}}
  cf.cond_br %c weights([0, 0]), ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}

// -----

func.func @switch_case_not_integer(%flag: i32) {
  cf.switch %flag : i32, [
    default: ^bb1,
    // expected-error@+1 {{expected integer value}}
    "seven": ^bb1
  ]
^bb1:
  return
}

// -----

func.func @switch_without_default(%flag: i32) {
  cf.switch %flag : i32, [
    // expected-error@+1 {{expected 'default'}}
    7: ^bb1
  ]
^bb1:
  return
}
