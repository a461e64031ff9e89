// RUN: tb-opt --split-input-file --verify-diagnostics %s
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
