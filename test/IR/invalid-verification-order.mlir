// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// The ops of a block are verified before the block's terminator is checked, as in MLIR:
// the invalid op is reported, not the missing terminator.
func.func @invalid_op_before_missing_terminator(%a: i32) {
  // expected-error@+1 {{'arith.extsi' op operand type 'i32' and result type 'i16' are cast incompatible}}
  %r = arith.extsi %a : i32 to i16
}

// -----

// A block whose ops are valid still needs its terminator.
func.func @valid_op_missing_terminator(%a: f32) {
  // expected-error@+1 {{block with no terminator, has}}
  %r = arith.addf %a, %a : f32
}

// -----

// Dominance is checked once every op is valid: the invalid op is reported, not the use
// that comes before its definition.
func.func @invalid_op_before_dominance(%a: i32) {
  "unreg.use"(%x) : (i16) -> ()
  // expected-error@+1 {{'arith.extsi' op operand type 'i32' and result type 'i16' are cast incompatible}}
  %x = arith.extsi %a : i32 to i16
  return
}

// -----

// A terminator's parent constraint is checked before its place in the block.
func.func @parent_before_terminator_position() {
  "unreg.region"() ({
    // expected-error@+1 {{'func.return' op expects parent op 'func.func'}}
    func.return
    "unreg.op"() : () -> ()
  }) : () -> ()
  return
}
