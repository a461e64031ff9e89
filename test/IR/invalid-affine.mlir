// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in affine maps and integer sets.

// Product of two dimensions.
"unreg.op"() {m = affine_map<(d0) -> (d0 * d0)>} : () -> ()

// -----

// floordiv by a dimension.
"unreg.op"() {m = affine_map<(d0, d1) -> (d0 floordiv d1)>} : () -> ()

// -----

// mod by a dimension.
"unreg.op"() {m = affine_map<(d0, d1) -> (d0 mod d1)>} : () -> ()

// -----

// ceildiv by an expression involving a dimension.
"unreg.op"() {m = affine_map<(d0)[s0] -> (d0 ceildiv (s0 + d0))>} : () -> ()

// -----

// A constant mod a dimension.
"unreg.op"() {m = affine_map<(d0) -> (2 mod d0)>} : () -> ()

// -----

// Undeclared identifier.
"unreg.op"() {m = affine_map<(d0) -> (d1)>} : () -> ()

// -----

// Duplicate dimension name.
"unreg.op"() {m = affine_map<(i, i) -> (i)>} : () -> ()

// -----

// A name used both as dimension and symbol.
"unreg.op"() {m = affine_map<(n)[n] -> (n)>} : () -> ()

// -----

// Missing '->'.
"unreg.op"() {m = affine_map<(d0) (d0)>} : () -> ()

// -----

// Missing right operand.
"unreg.op"() {m = affine_map<(d0) -> (d0 + )>} : () -> ()

// -----

// Unbalanced parentheses.
"unreg.op"() {m = affine_map<(d0) -> ((d0 + 1)>} : () -> ()

// -----

// Constraint without a comparison.
"unreg.op"() {s = affine_set<(d0) : (d0)>} : () -> ()

// -----

// Strict comparisons are not allowed.
"unreg.op"() {s = affine_set<(d0) : (d0 > 0)>} : () -> ()

// -----

// An affine_set needs ':' after the dimension list.
"unreg.op"() {s = affine_set<(d0) -> (d0 >= 0)>} : () -> ()

// -----

// A non-affine constraint.
"unreg.op"() {s = affine_set<(d0, d1) : (d0 * d1 >= 0)>} : () -> ()

// -----

// An error inside a memref layout map.
"unreg.op"() {t = memref<4xf32, affine_map<(d0) -> (d0 * d0)>>} : () -> ()
