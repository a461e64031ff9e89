// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// General syntax errors in the generic operation form. Every case must be
// rejected, with the first error on the same line as mlir-opt reports it.

// Missing closing parenthesis of the operand list.
%0 = "unreg.def"() : () -> i32
"unreg.op"(%0 : (i32) -> ()

// -----

// Missing type signature.
"unreg.op"()

// -----

// An unregistered operation in custom (unquoted) form.
unreg.op() : () -> ()

// -----

// Function type without a result part.
"unreg.op"() : ()

// -----

// The operation type must be a function type.
"unreg.op"() : i32

// -----

// Function type inputs must be parenthesized.
%0 = "unreg.op"() : i32 -> i32

// -----

// Missing comma between attribute entries.
"unreg.op"() {a = 1 b = 2} : () -> ()

// -----

// Stray closing brace at the top level.
"unreg.op"() : () -> ()
}

// -----

// The result list names two values but the type has one result.
%0:2 = "unreg.op"() : () -> i32

// -----

// Three results named, two declared.
%a, %b, %c = "unreg.op"() : () -> (i32, i32)

// -----

// One operand but no operand types.
%0 = "unreg.def"() : () -> i32
"unreg.op"(%0) : () -> ()

// -----

// Missing '=' after the result name.
%0 "unreg.op"() : () -> i32

// -----

// Properties must come before regions and the attribute dictionary.
"unreg.op"() {a} <{b}> : () -> ()

// -----

// Unterminated region: the closing "})" is missing.
"unreg.op"() ({
  "unreg.inner"() : () -> ()
: () -> ()

// -----

// Regions must be separated by commas.
"unreg.op"() ({
  "unreg.a"() : () -> ()
} {
  "unreg.b"() : () -> ()
}) : () -> ()

// -----

// An empty operation name.
""() : () -> ()

// -----

// Successor list outside of a region (no enclosing block to branch in).
"unreg.br"()[^bb1] : () -> ()

// -----

// A result name without '%'.
x = "unreg.op"() : () -> i32

// -----

// Trailing garbage after an operation on the same line.
"unreg.op"() : () -> () extra

// -----

// Missing colon before the type, spread over several lines.
"unreg.op"()
  {a = 1}
  () -> ()

// -----

// A dialect type body whose brackets do not match names the innermost open one.
func.func private @unbalanced_body(!unreg.t<(]>)

// -----

// Successors on an op that is not a terminator.
func.func @successors_on_non_terminator(%a: i32) {
  %s = "arith.addi"(%a, %a)[^bb1] : (i32, i32) -> i32
^bb1:
  return
}

// -----

// A block argument list needs value names.
func.func @block_argument_without_name() {
^bb1(i32):
  return
}

// -----

// A result list needs a name after each comma.
func.func @result_list_trailing_comma() {
  %a, = "unreg.op"() : () -> (i32, i32)
  return
}

// -----

// An unprefixed op name at the top level is looked up in `builtin`.
frobnicate

// -----

// A redefined block name: no note, as in MLIR.
func.func @block_redefinition() {
^bb1:
  return
^bb1:
  return
}
