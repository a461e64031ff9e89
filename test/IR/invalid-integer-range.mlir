// RUN: %mlir-diff --invalid %s
// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// REQUIRES: mlir-opt

// Integer literals out of range for their type, with mlir-opt's rules: a negated value
// must have its sign bit set, so `-0` is out of range for every signed or signless type,
// and a positive index value must not have it set.

// `-0` without a type (i64).
// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0} : () -> ()

// -----

// `-0` with a type, decimal or hexadecimal.
// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0x0 : i32} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0 : si8} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0 : i1} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0 : i0} : () -> ()

// -----

// Wider than the 128 bits values are kept in.
// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0 : i200} : () -> ()

// -----

// An index is 64 bits wide and signed: 2^64 - 1 does not wrap to -1 as it does for i64.
// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = 0xFFFFFFFFFFFFFFFF : index} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = 9223372036854775808 : index} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"unreg.op"() {a = -0 : index} : () -> ()

// -----

// Elements of a dense literal.
// expected-error@+1 {{integer constant out of range for type}}
"unreg.op"() {a = dense<[1, -0]> : tensor<2xi32>} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for type}}
"unreg.op"() {a = dense<0xFFFFFFFFFFFFFFFF> : tensor<index>} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for type}}
"unreg.op"() {a = dense<(1, -0)> : tensor<complex<i32>>} : () -> ()

// -----

// Elements of a dense array.
// expected-error@+1 {{integer constant out of range}}
"unreg.op"() {a = array<i32: 1, -0>} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range}}
"unreg.op"() {a = array<i8: 256>} : () -> ()

// -----

// An i1 array takes only `true` and `false`.
// expected-error@+1 {{expected 'true' or 'false' values for i1 type}}
"unreg.op"() {a = array<i1: 1>} : () -> ()
