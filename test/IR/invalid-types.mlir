// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in non-shaped builtin types and dialect types.

// Unknown type keyword.
%0 = "unreg.op"() : () -> f31

// -----

// Integer width above the maximum of 2^24 - 1.
"unreg.op"() {t = i16777216} : () -> ()

// -----

// 'si' and 'ui' need a width.
%0 = "unreg.op"() : () -> si

// -----

// complex of complex is not allowed.
"unreg.op"() {t = complex<complex<f32>>} : () -> ()

// -----

// complex of index is not allowed.
"unreg.op"() {t = complex<index>} : () -> ()

// -----

// complex of a dialect type is not allowed.
"unreg.op"() {t = complex<!foo.t>} : () -> ()

// -----

// Unterminated tuple.
"unreg.op"() {t = tuple<i32, f32} : () -> ()

// -----

// Multiple function results need parentheses.
%0:2 = "unreg.op"() : () -> i32, i32

// -----

// Unbalanced '<' in a dialect type body ('<=' opens a bracket).
"unreg.op"() {t = !foo.t<a<=b>} : () -> ()

// -----

// Dialect type body with an unterminated string.
"unreg.op"() {t = !foo.t<"abc>} : () -> ()

// -----

// Builtin types take no parameters.
"unreg.op"() {t = index<1>} : () -> ()

// -----

// A vector of complex is not allowed.
"unreg.op"() {t = vector<2xcomplex<f32>>} : () -> ()

// -----

// A vector of a dialect type is not allowed.
"unreg.op"() {t = vector<2x!foo.t>} : () -> ()

// -----

// A type where an attribute value is expected: 'none' followed by junk.
"unreg.op"() {t = none<1>} : () -> ()

// -----

// The function type of an operation, broken over lines, with a bad result.
"unreg.op"()
  : ()
  -> (i32,
      badtype)
