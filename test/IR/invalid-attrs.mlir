// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in builtin attributes.

// Empty dictionary key.
"unreg.op"() {"" = 4} : () -> ()

// -----

// Duplicate key in an operation's attribute dictionary.
"unreg.op"() {a = 1, a = 2} : () -> ()

// -----

// Duplicate key in properties.
"unreg.op"() <{p = 1, p = 2}> : () -> ()

// -----

// Duplicate key in a nested dictionary.
"unreg.op"() {d = {k = 1, k = 2}} : () -> ()

// -----

// Integer out of range for its type.
"unreg.op"() {i = 256 : i8} : () -> ()

// -----

// Negative value for an unsigned type.
"unreg.op"() {i = -1 : ui8} : () -> ()

// -----

// Float literal with an integer type.
"unreg.op"() {i = 1.0 : i32} : () -> ()

// -----

// true/false take no type.
"unreg.op"() {b = true : i32} : () -> ()

// -----

// Unterminated array.
"unreg.op"() {a = [1, 2} : () -> ()

// -----

// Nested symbol reference without a name after '::'.
"unreg.op"() {s = @a::} : () -> ()

// -----

// Nested symbol references need '@' after '::'.
"unreg.op"() {s = @a::b} : () -> ()

// -----

// dense_resource needs a type.
"unreg.op"() {r = dense_resource<blob>} : () -> ()

// -----

// A dense array with ':' but no values.
"unreg.op"() {a = array<i64: >} : () -> ()

// -----

// Integer literal in a float dense array.
"unreg.op"() {a = array<f32: 1>} : () -> ()

// -----

// Dense array of a non-scalar type.
"unreg.op"() {a = array<tensor<2xi32>: 1>} : () -> ()

// -----

// Float literal in an integer dense array.
"unreg.op"() {a = array<i64: 1.5>} : () -> ()

// -----

// Out-of-range element in a dense array.
"unreg.op"() {a = array<i8: 1, 300>} : () -> ()

// -----

// unit takes no type.
"unreg.op"() {u = unit : i32} : () -> ()

// -----

// A type is expected after ':'.
"unreg.op"() {s = "str" : 5} : () -> ()

// -----

// distinct needs a numeric id.
"unreg.op"() {d = distinct[x]<1>} : () -> ()

// -----

// distinct needs a payload.
"unreg.op"() {d = distinct[0]} : () -> ()

// -----

// The same distinct id with a different payload.
"unreg.op"() {a = distinct[0]<1>,
              b = distinct[0]<2>} : () -> ()

// -----

// An attribute value is missing after '='.
"unreg.op"() {a = } : () -> ()

// -----

// An attribute name that is not an identifier or string.
"unreg.op"() {1 = 2} : () -> ()

// -----

// Dialect attribute with unbalanced brackets in its body.
"unreg.op"() {a = #foo.attr<[1, 2>} : () -> ()

// -----

// Sparse index outside the shape.
"unreg.op"() {s = sparse<[[5]], [1]> : tensor<4xi32>} : () -> ()

// -----

// Sparse indices and values of different lengths.
"unreg.op"() {s = sparse<[[0]], [1, 2]> : tensor<4xi32>} : () -> ()

// -----

// A dense array of a bit width that is not a whole number of bytes.
"unreg.op"() {a = array<i7: 1>} : () -> ()

// -----

// A dense array type must be followed by `:` or `>`.
"unreg.op"() {a = array<i8)} : () -> ()

// -----

// A distinct ID must fit in 64 bits.
"unreg.op"() {a = distinct[0x1FFFFFFFFFFFFFFFF]<1 : i32>} : () -> ()

// -----

// A distinct ID names one attribute: the error shows the first.
"unreg.op"() {a = distinct[1]<1 : i32>, b = distinct[1]<2 : i32>} : () -> ()

// -----

// A bare word that is not a type is no attribute.
"unreg.op"() {a = frobnicate} : () -> ()

// -----

// A malformed affine map is reported where it goes wrong, not as unclosed.
"unreg.op"() {a = affine_map<(d0) -> (->, d0)} : () -> ()
