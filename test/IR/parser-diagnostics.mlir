// RUN: tb-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics
// REQUIRES: mlir-opt

// Parser and verifier diagnostics with MLIR's messages, where the input is read the same
// way by both parsers.

// An array attribute's elements are separated by commas.
// expected-error @+1 {{expected ',' or ']'}}
"unreg.op"() {a = [1 2]} : () -> ()

// -----

// A memref type's trailing list needs an element after its comma.
// expected-error @+1 {{expected list element}}
func.func private @f(memref<2x4xi8, >)

// -----

// expected-error @+1 {{expected ',' or '>' in memref type}}
func.func private @f(memref<2x4xi8 1>)

// -----

// expected-error @+1 {{expected ',' or '>'}}
func.func private @f(memref<2x4xi8, 1 2>)

// -----

// The elements of a dense attribute of a non-numeric element type are strings.
// expected-error @+1 {{expected string token, got 23}}
"unreg.op"() {a = dense<[-23]> : tensor<1x!unreg.t>} : () -> ()

// -----

// Sparse values are a 1-d list.
// expected-error @+1 {{expected 1-d tensor for sparse element values}}
"unreg.op"() {a = sparse<[[0, 0, 0]], [[-2.0]]> : vector<1x1x1xf16>} : () -> ()

// -----

// One value per index.
// expected-error @+1 {{expected shape ([2, 2]); inferred shape of indices literal ([1, 2]); inferred shape of values literal ([2])}}
"unreg.op"() {a = sparse<[[0, 1]], [1, 2]> : tensor<2x2xi32>} : () -> ()

// -----

// Indices of a type of rank 2 are pairs.
// expected-error @+1 {{expected shape ([2, 2]); inferred shape of indices literal ([2]); inferred shape of values literal ([2])}}
"unreg.op"() {a = sparse<[0, 1], [1, 2]> : tensor<2x2xi32>} : () -> ()

// -----

// func.constant's value is a symbol reference, checked as it is read.
func.func @f() {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = func.constant "g" : () -> ()
  return
}

// -----

// An affine.for bound is an index attribute.
func.func @f() {
  // expected-error @+1 {{integer constant out of range for attribute}}
  affine.for %i = 0 to 9223372036854775808 {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{integer constant out of range for attribute}}
  affine.for %i = -9223372036854775809 to 0 {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{expected constant integer or floating point value}}
  affine.for %i = 0 to 10 step -x {
  }
  return
}

// -----

// Each function is verified on its own: the first error of each is reported.
func.func @f1() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %0 = "arith.constant"() {value = 1 : ui8} : () -> ui8
  // Not reported: verification of this function stops at its first error.
  %1 = "arith.constant"() {value = 1 : si8} : () -> si8
  return
}

func.func @f2() {
  return
}

func.func @f3() {
  %0 = arith.constant 0 : index
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %1 = "arith.addi"(%0, %0) : (index, index) -> i32
  return
}
