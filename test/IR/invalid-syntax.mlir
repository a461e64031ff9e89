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
