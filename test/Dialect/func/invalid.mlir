// RUN: tb-opt --split-input-file --verify-diagnostics %s

// expected-error@+1 {{entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (i32) -> (), sym_name = "missing_arg"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
"func.func"() <{function_type = (i32) -> (), sym_name = "wrong_arg"}> ({
^bb0(%a: f32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = () -> i32, sym_name = "missing_result"}> ({
  // expected-error@+1 {{has 0 operands, but enclosing function (@missing_result) returns 1}}
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (f32) -> i32, sym_name = "wrong_result"}> ({
^bb0(%a: f32):
  // expected-error@+1 {{type of return operand 0 ('f32') doesn't match function result type ('i32') in function @wrong_result}}
  "func.return"(%a) : (f32) -> ()
}) : () -> ()

// -----

// expected-error@+1 {{empty block: expect at least a terminator}}
"func.func"() <{function_type = () -> (), sym_name = "empty"}> ({
^bb0:
}) : () -> ()

// -----

"func.func"() <{function_type = () -> (), sym_name = "caller"}> ({
  // expected-error@+1 {{'nowhere' does not reference a valid function}}
  "func.call"() <{callee = @nowhere}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (i32) -> (), sym_name = "callee"}> ({
^bb0(%a: i32):
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = (f32) -> (), sym_name = "bad_call"}> ({
^bb0(%a: f32):
  // expected-error@+1 {{operand type mismatch: expected operand type 'i32', but provided 'f32' for operand number 0}}
  "func.call"(%a) <{callee = @callee}> : (f32) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = () -> (), sym_name = "dominance"}> ({
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "func.call"(%late) <{callee = @dominance}> : (i32) -> ()
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %late = "builtin.unrealized_conversion_cast"() : () -> i32
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{unregistered operation 'func.nope' found in dialect ('func') that does not allow unknown operations}}
"func.nope"() : () -> ()

// -----

// expected-note@+1 {{see existing symbol definition here}}
"func.func"() <{function_type = () -> (), sym_name = "twice"}> ({
  "func.return"() : () -> ()
}) : () -> ()
// expected-error@+1 {{redefinition of symbol named 'twice'}}
"func.func"() <{function_type = () -> (), sym_name = "twice"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A function body is isolated: names from outside are not visible in it.
%outside = "builtin.unrealized_conversion_cast"() : () -> i32
"func.func"() <{function_type = () -> (), sym_name = "isolated"}> ({
  // expected-error@+1 {{use of undeclared SSA value name}}
  "func.call"(%outside) <{callee = @isolated}> : (i32) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// The entry block spelled under a signature of bare types must match it.
// expected-error@+1 {{'func.func' op type of entry block argument #0('i32') must match the type of the corresponding argument in function signature('f32')}}
func.func @bare_types_entry_block_type(f32) {
^bb0(%a: i32):
  return
}

// -----

// expected-error@+1 {{'func.func' op entry block must have 2 arguments to match function signature}}
func.func @bare_types_entry_block_count(f32, f32) {
^bb0(%a: f32):
  return
}

// -----

// The signature spells the visibility, name and type: the dictionary may not.
// expected-error@+1 {{'sym_visibility' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func @visibility_in_dictionary() attributes { sym_visibility = "private" }

// -----

// expected-error@+1 {{'sym_name' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @name_in_dictionary() attributes { sym_name = "x" }

// -----

// expected-error@+1 {{'function_type' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @type_in_dictionary() attributes { function_type = "x" }

// -----

// expected-error@+1 {{'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 1, but expected 0}}
func.func private @arg_attrs_count() attributes { arg_attrs = [{}] }

// -----

// expected-error@+1 {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 0}}
func.func private @res_attrs_count() attributes { res_attrs = [{}] }

// -----

// expected-error@+1 {{'func.func' op arguments may only have dialect attributes}}
func.func private @arg_attr_without_dialect(i1 {non_dialect_attr = 10})

// -----

// expected-error@+1 {{'func.func' op results may only have dialect attributes}}
func.func private @result_attr_without_dialect() -> (i1 {non_dialect_attr = 10})

// -----

func.func @outer() {
  // expected-error @+1 {{'func.func' op symbol's parent must have the SymbolTable trait}}
  func.func @inner(f32) {
  ^entry:
    return
  }
  return
}

// -----

func.func @takes_i32(%a: i32) {
  return
}

func.func @constant_wrong_type() {
  // expected-error@+1 {{'func.constant' op reference to function with mismatched type}}
  %f = func.constant @takes_i32 : (i64) -> ()
  return
}

// -----

func.func @constant_undefined() {
  // expected-error@+1 {{'func.constant' op reference to undefined function 'nowhere'}}
  %f = func.constant @nowhere : () -> ()
  return
}

// -----

// An unprefixed name in a function body is a `func` op: unknown ones name both spellings.
func.func @unknown_unprefixed() {
  // expected-error@+1 {{custom op 'frobnicate' is unknown (tried 'func.frobnicate' as well)}}
  frobnicate
}

// -----

func.func private @call_result_types() -> (i32, f32)

func.func @call_mismatch() {
  // expected-error@+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note@+2 {{      op result types: 'f32', 'i32'}}
  // expected-note@+1 {{function result types: 'i32', 'f32'}}
  %r:2 = call @call_result_types() : () -> (f32, i32)
  return
}

// -----

// expected-error@+1 {{expected non-empty function body}}
func.func @empty_body() {}

// -----

// expected-note@+1 {{previously referenced here}}
func.func @duplicate_argument(%a: i32,
    // expected-error@+1 {{region entry argument '%a' is already in use}}
    %a: i32) {
  return
}
