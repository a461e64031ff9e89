// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Lexical errors: bad strings, numbers and characters.

// Unknown escape sequence in a string.
"unreg.op"() {s = "\q"} : () -> ()

// -----

// A hex escape needs two hex digits.
"unreg.op"() {s = "\4g"} : () -> ()

// -----

// A string may not span lines.
"unreg.op"() {s = "first line
second line"} : () -> ()

// -----

// Unterminated string at the end of the file.
"unreg.op"() {s = "never closed

// -----

// An exponent without a decimal point is not a float literal.
"unreg.op"() {f = 1e10} : () -> ()

// -----

// A decimal integer literal is not a float.
"unreg.op"() {f = 3 : f32} : () -> ()

// -----

// Non-ASCII characters outside of strings.
"unreg.op"() {a = 1} : () -> () é

// -----

// There are no block comments.
/* comment */
"unreg.op"() : () -> ()

// -----

// A hexadecimal float with more bits than the type has.
"unreg.op"() {f = 0x7FC000000 : f32} : () -> ()

// -----

// Hex digits are not allowed in decimal literals.
"unreg.op"() {i = 12ab : i32} : () -> ()

// -----

// A bare '%' without a name.
% = "unreg.op"() : () -> i32

// -----

// A character that starts no token.
"unreg.op"() {a = 1} : () -> () `

// -----

// A lone dot is an ellipsis missing its other two dots.
func.func private @one_dot(.)

// -----

// A symbol name must start with a letter or an underscore.
func.func private @$sym()

// -----

// A `!` must be followed by a type name.
func.func private @bang(!)

// -----

// A `%` must be followed by a value name.
"unreg.op"(%) : () -> ()

// -----

// A `#` must be followed by an attribute name.
"unreg.op"() {a = #} : () -> ()
