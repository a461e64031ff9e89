// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in dense elements attributes.

// Element count does not match the type.
"unreg.op"() {d = dense<[1, 2]> : tensor<3xi32>} : () -> ()

// -----

// Ragged nested literal.
"unreg.op"() {d = dense<[[1, 2], [3]]> : tensor<2x2xi32>} : () -> ()

// -----

// Nesting does not match the rank.
"unreg.op"() {d = dense<[1, 2, 3, 4]> : tensor<2x2xi32>} : () -> ()

// -----

// Dynamic shapes are not allowed.
"unreg.op"() {d = dense<1> : tensor<?xi32>} : () -> ()

// -----

// Unranked types are not allowed.
"unreg.op"() {d = dense<1> : tensor<*xi32>} : () -> ()

// -----

// The type must be shaped.
"unreg.op"() {d = dense<1> : i32} : () -> ()

// -----

// The type is required.
"unreg.op"() {d = dense<1>} : () -> ()

// -----

// Integer literals are not floats.
"unreg.op"() {d = dense<[1, 2]> : tensor<2xf32>} : () -> ()

// -----

// Float literals are not integers.
"unreg.op"() {d = dense<1.5> : tensor<2xi32>} : () -> ()

// -----

// Element out of range.
"unreg.op"() {d = dense<[1, 300]> : tensor<2xi8>} : () -> ()

// -----

// Negative element for an unsigned type.
"unreg.op"() {d = dense<[-1]> : tensor<1xui8>} : () -> ()

// -----

// Hex data of the wrong size.
"unreg.op"() {d = dense<"0x0102"> : tensor<4xi32>} : () -> ()

// -----

// Hex data with a non-hex digit.
"unreg.op"() {d = dense<"0xZZ"> : tensor<1xi8>} : () -> ()

// -----

// i1 hex data holds bits, not one byte per element.
"unreg.op"() {d = dense<"0x01000101"> : tensor<4xi1>} : () -> ()

// -----

// A complex literal with three parts.
"unreg.op"() {d = dense<(1.0, 2.0, 3.0)> : tensor<2xcomplex<f32>>} : () -> ()

// -----

// A complex literal with one part.
"unreg.op"() {d = dense<(1.0)> : tensor<2xcomplex<f32>>} : () -> ()

// -----

// A float part in an integer complex literal.
"unreg.op"() {d = dense<(1.5, 2)> : tensor<2xcomplex<i32>>} : () -> ()

// -----

// A scalar literal for a complex type.
"unreg.op"() {d = dense<1.0> : tensor<2xcomplex<f32>>} : () -> ()

// -----

// Boolean literal for a non-i1 type.
"unreg.op"() {d = dense<[true, false]> : tensor<2xi32>} : () -> ()

// -----

// Integer other than 0 or 1 for i1.
"unreg.op"() {d = dense<[2]> : tensor<1xi1>} : () -> ()

// -----

// String elements with a non-string element type.
"unreg.op"() {d = dense<["ab", "cd"]> : tensor<2xi32>} : () -> ()

// -----

// Vector types cannot be empty.
"unreg.op"() {d = dense<> : vector<0xf32>} : () -> ()

// -----

// Empty literal for a non-empty type.
"unreg.op"() {d = dense<> : tensor<2xi32>} : () -> ()

// -----

// A mistake on a later line of a multi-line literal.
"unreg.op"() {d = dense<[[1, 2],
                         [3, 4],
                         [5, 6.5]]> : tensor<3x2xi32>} : () -> ()

// -----

// A decimal integer where a float element is expected: MLIR suggests a trailing dot.
"unreg.op"() {a = dense<[1, 2.0]> : tensor<2xf32>} : () -> ()

// -----

// A boolean element of a wider integer type.
"unreg.op"() {a = dense<true> : tensor<2xi8>} : () -> ()

// -----

// A negative element of an unsigned type.
"unreg.op"() {a = dense<[1, -1]> : tensor<2xui8>} : () -> ()

// -----

// A complex element missing its comma.
"unreg.op"() {a = dense<[(1)]> : tensor<1xcomplex<i32>>} : () -> ()

// -----

// A sparse index outside the shape: the error names the index and the type.
"unreg.op"() {a = sparse<[[2, 0]], [1]> : tensor<2x2xi32>} : () -> ()

// -----

// An elements literal typed with a non-shaped type is reported at the attribute.
"unreg.op"() {a = dense<1> : i32} : () -> ()
