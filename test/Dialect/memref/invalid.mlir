// RUN: tb-opt %s --split-input-file --verify-diagnostics
// RUN: %mlir-diff --invalid %s
// The messages are MLIR's own: mlir-opt accepts the same expectations.
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir-opt

// alloc dynamic sizes
func.func @f(%n: index) {
  // expected-error @+1 {{'memref.alloc' op incorrect number of dynamic sizes, has 2, expected 1}}
  %0 = memref.alloc(%n, %n) : memref<4x?xf32>
  return
}

// -----

// alloc symbols
func.func @f(%n: index) {
  // expected-error @+1 {{'memref.alloc' op symbol operand count does not equal memref symbol count: expected 1, got 2}}
  %0 = memref.alloc()[%n, %n] : memref<8x64xf32, affine_map<(d0, d1)[s0] -> ((d0 + s0), d1)>>
  return
}

// -----

// alloc strided symbols
func.func @f(%n: index) {
  // expected-error @+1 {{'memref.alloc' op symbol operand count does not equal memref symbol count: expected 1, got 0}}
  %0 = memref.alloc(%n) : memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// alloc alignment
func.func @f() {
  // expected-error @+1 {{attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
  %0 = memref.alloc() {alignment = 3} : memref<4xf32>
  return
}

// -----

// alloc tensor
func.func @f() {
  // expected-error @+1 {{'memref.alloc' op result #0 must be memref of any type values, but got 'tensor<4xf32>'}}
  %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> tensor<4xf32>
  return
}

// -----

// alloca without scope
// expected-error @+1 {{'memref.alloca' op requires an ancestor op with AutomaticAllocationScope trait}}
%0 = memref.alloca() : memref<4xf32>

// -----

// load indices
func.func @f(%m: memref<4x4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op incorrect number of indices for load, expected 2 but got 1}}
  %0 = memref.load %m[%i] : memref<4x4xf32>
  return
}

// -----

// load result
func.func @f(%m: memref<4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op failed to verify that result type matches element type of 'memref'}}
  %0 = "memref.load"(%m, %i) : (memref<4xf32>, index) -> f64
  return
}

// -----

// load index type
func.func @f(%m: memref<4xf32>, %i: i32) {
  // expected-error @+1 {{'memref.load' op operand #1 must be variadic of index, but got 'i32'}}
  %0 = "memref.load"(%m, %i) : (memref<4xf32>, i32) -> f32
  return
}

// -----

// load unranked
func.func @f(%m: memref<*xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op operand #0 must be memref of any type values, but got 'memref<*xf32>'}}
  %0 = "memref.load"(%m, %i) : (memref<*xf32>, index) -> f32
  return
}

// -----

// store indices
func.func @f(%m: memref<4x4xf32>, %i: index, %v: f32) {
  // expected-error @+1 {{'memref.store' op store index operand count not equal to memref rank}}
  memref.store %v, %m[%i] : memref<4x4xf32>
  return
}

// -----

// store value
func.func @f(%m: memref<4xf32>, %i: index, %v: f64) {
  // expected-error @+1 {{'memref.store' op failed to verify that type of 'value' matches element type of 'memref'}}
  "memref.store"(%v, %m, %i) : (f64, memref<4xf32>, index) -> ()
  return
}

// -----

// cast shape
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4xf32>' and result type 'memref<5xf32>' are cast incompatible}}
  %0 = memref.cast %m : memref<4xf32> to memref<5xf32>
  return
}

// -----

// cast element
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4xf32>' and result type 'memref<?xi32>' are cast incompatible}}
  %0 = memref.cast %m : memref<4xf32> to memref<?xi32>
  return
}

// -----

// cast layout
func.func @f(%m: memref<4x4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4x4xf32>' and result type 'memref<4x4xf32, strided<[8, 1]>>' are cast incompatible}}
  %0 = memref.cast %m : memref<4x4xf32> to memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// cast unranked to unranked
func.func @f(%m: memref<*xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<*xf32>' and result type 'memref<*xf32>' are cast incompatible}}
  %0 = memref.cast %m : memref<*xf32> to memref<*xf32>
  return
}

// -----

// copy element
func.func @f(%a: memref<4xf32>, %b: memref<4xi32>) {
  // expected-error @+1 {{'memref.copy' op requires the same element type for all operands}}
  memref.copy %a, %b : memref<4xf32> to memref<4xi32>
  return
}

// -----

// copy shape
func.func @f(%a: memref<4xf32>, %b: memref<5xf32>) {
  // expected-error @+1 {{'memref.copy' op requires the same shape for all operands}}
  memref.copy %a, %b : memref<4xf32> to memref<5xf32>
  return
}

// -----

// dealloc tensor
func.func @f(%t: tensor<4xf32>) {
  // expected-error @+1 {{'memref.dealloc' op operand #0 must be ranked or unranked memref of any type values, but got 'tensor<4xf32>'}}
  "memref.dealloc"(%t) : (tensor<4xf32>) -> ()
  return
}

// -----

// dim rank 0
func.func @f(%m: memref<f32>, %i: index) {
  // expected-error @+1 {{'memref.dim' op operand #0 must be unranked.memref of any type values or non-0-ranked.memref of any type values, but got 'memref<f32>'}}
  %0 = memref.dim %m, %i : memref<f32>
  return
}

// -----

// rank result
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.rank' op result #0 must be index, but got 'i32'}}
  %0 = "memref.rank"(%m) : (memref<4xf32>) -> i32
  return
}

// -----

// get global missing
func.func @f() {
  // expected-error @+1 {{'memref.get_global' op 'nope' does not reference a valid global memref}}
  %0 = memref.get_global @nope : memref<4xf32>
  return
}

// -----

// get global not global
func.func @g() {
  return
}
func.func @f() {
  // expected-error @+1 {{'memref.get_global' op 'g' does not reference a valid global memref}}
  %0 = memref.get_global @g : memref<4xf32>
  return
}

// -----

// get global type
memref.global @g : memref<4xf32>
func.func @f() {
  // expected-error @+1 {{'memref.get_global' op result type 'memref<5xf32>' does not match type 'memref<4xf32>' of the global memref @g}}
  %0 = memref.get_global @g : memref<5xf32>
  return
}

// -----

// get global dynamic
func.func @f() {
  // expected-error @+1 {{'memref.get_global' op result #0 must be statically shaped memref of any type values, but got 'memref<?xf32>'}}
  %0 = memref.get_global @g : memref<?xf32>
  return
}

// -----

// global dynamic
// expected-error @+1 {{type should be static shaped memref, but got 'memref<?xf32>'}}
memref.global @g : memref<?xf32>

// -----

// global dynamic generic
// expected-error @+1 {{'memref.global' op type should be static shaped memref, but got 'memref<?xf32>'}}
"memref.global"() <{sym_name = "g", type = memref<?xf32>}> : () -> ()

// -----

// global not memref
// expected-error @+1 {{'memref.global' op attribute 'type' failed to satisfy constraint: memref type attribute}}
"memref.global"() <{sym_name = "g", type = i32}> : () -> ()

// -----

// global initial value
// expected-error @+1 {{initial value should be a unit or elements attribute}}
memref.global @g : memref<4xf32> = "foo"

// -----

// global initial value generic
// expected-error @+1 {{'memref.global' op initial value should be a unit or elements attribute, but got 1 : i64}}
"memref.global"() <{sym_name = "g", type = memref<4xf32>, initial_value = 1}> : () -> ()

// -----

// global initial shape
// expected-error @+1 {{'memref.global' op initial value shape expected to be 4 but was 5}}
"memref.global"() <{sym_name = "g", type = memref<4xf32>, initial_value = dense<1.0> : tensor<5xf32>}> : () -> ()

// -----

// global initial element
// expected-error @+1 {{'memref.global' op initial value element expected to be of type 'f32', but was of type 'f64'}}
"memref.global"() <{sym_name = "g", type = memref<4xf32>, initial_value = dense<1.0> : tensor<4xf64>}> : () -> ()

// -----

// global alignment
// expected-error @+1 {{attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
memref.global @g : memref<4xf32> {alignment = 3}

// -----

// global in function
func.func @f() {
  // expected-error @+1 {{'memref.global' op symbol's parent must have the SymbolTable trait}}
  memref.global @g : memref<4xf32>
  return
}

// -----

// reinterpret cast element
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{different element types specified for source type 'memref<8xf32>' and result memref type 'memref<2x4xi32>'}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<8xf32> to memref<2x4xi32>
  return
}

// -----

// reinterpret cast space
func.func @f(%m: memref<8xf32, 1>) {
  // expected-error @+1 {{different memory spaces specified for source type 'memref<8xf32, 1>' and result memref type 'memref<8xf32>'}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [8], strides: [1] : memref<8xf32, 1> to memref<8xf32>
  return
}

// -----

// reinterpret cast offset
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type with offset = 1 instead of 0}}
  %0 = memref.reinterpret_cast %m to offset: [1], sizes: [2, 4], strides: [4, 1] : memref<8xf32> to memref<2x4xf32>
  return
}

// -----

// reinterpret cast size
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type with size = 5 instead of 4 in dim = 1}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [2, 5], strides: [4, 1] : memref<8xf32> to memref<2x4xf32>
  return
}

// -----

// reinterpret cast stride
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type with stride = 5 instead of 4 in dim = 0}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [2, 4], strides: [5, 1] : memref<8xf32> to memref<2x4xf32>
  return
}

// -----

// reinterpret cast ranks
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected mixed sizes rank to match mixed strides rank (3 vs 2) so the rank of the result type is well-formed.}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [2, 4, 1], strides: [4, 1] : memref<8xf32> to memref<2x4xf32>
  return
}

// -----

// reinterpret cast negative offset
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected offsets to be non-negative, but got -1}}
  %0 = memref.reinterpret_cast %m to offset: [-1], sizes: [8], strides: [1] : memref<8xf32> to memref<8xf32, strided<[1], offset: -1>>
  return
}

// -----

// reinterpret cast not strided
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.reinterpret_cast' op result #0 must be strided memref of any type values, but got 'memref<8xf32, affine_map<(d0) -> (d0 floordiv 2)>>'}}
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [8], strides: [1] : memref<8xf32> to memref<8xf32, affine_map<(d0) -> (d0 floordiv 2)>>
  return
}

// -----

// reinterpret cast offsets count
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected mixed offsets rank to match mixed sizes rank (2 vs 1) so the rank of the result type is well-formed.}}
  %0 = "memref.reinterpret_cast"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>}> : (memref<8xf32>) -> memref<8xf32>
  return
}

// -----

// subview layout
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<4xf32, strided<[1], offset: 2>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4xf32>'}}
  %0 = memref.subview %m[2] [4] [1] : memref<8xf32> to memref<4xf32>
  return
}

// -----

// subview element
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result element type to be 'f32', but got 'memref<4xi32, strided<[1], offset: 2>>'}}
  %0 = memref.subview %m[2] [4] [1] : memref<8xf32> to memref<4xi32, strided<[1], offset: 2>>
  return
}

// -----

// subview sizes
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<4xf32, strided<[1], offset: 2>>' or a rank-reduced version. (mismatch of result sizes), but got 'memref<5xf32, strided<[1], offset: 2>>'}}
  %0 = memref.subview %m[2] [4] [1] : memref<8xf32> to memref<5xf32, strided<[1], offset: 2>>
  return
}

// -----

// subview rank
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result rank to be smaller or equal to the source rank, but got 'memref<1x4xf32>'}}
  %0 = memref.subview %m[0] [4] [1] : memref<8xf32> to memref<1x4xf32>
  return
}

// -----

// subview offset
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<4xf32, strided<[1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4xf32, strided<[1], offset: 3>>'}}
  %0 = memref.subview %m[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 3>>
  return
}

// -----

// subview reduced stride
func.func @f(%m: memref<8x4xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<8x1xf32, strided<[4, 1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<8xf32>'}}
  %0 = memref.subview %m[0, 0] [8, 1] [1, 1] : memref<8x4xf32> to memref<8xf32>
  return
}

// -----

// subview ranks
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected mixed offsets rank to match mixed sizes rank (2 vs 1) so the rank of the result type is well-formed.}}
  %0 = memref.subview %m[2, 0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  return
}

// -----

// subview count
func.func @f(%m: memref<8x8xf32>) {
  // expected-error @+1 {{expected 2 offset values, got 1}}
  %0 = memref.subview %m[0] [4] [1] : memref<8x8xf32> to memref<4xf32>
  return
}

// -----

// subview negative size
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected sizes to be non-negative, but got -1}}
  %0 = memref.subview %m[0] [-1] [1] : memref<8xf32> to memref<?xf32, strided<[1]>>
  return
}

// -----

// subview out of bounds
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{slice along dimension 0 runs out-of-bounds: 9 >= 8}}
  %0 = memref.subview %m[6] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 6>>
  return
}

// -----

// subview offset out of bounds
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{offset 0 is out-of-bounds: 8 >= 8}}
  %0 = memref.subview %m[8] [0] [1] : memref<8xf32> to memref<0xf32, strided<[1], offset: 8>>
  return
}

// -----

// subview space
func.func @f(%m: memref<8xf32, 1>) {
  // expected-error @+1 {{different memory spaces specified for base memref type 'memref<8xf32, 1>' and subview memref type 'memref<4xf32>'}}
  %0 = memref.subview %m[0] [4] [1] : memref<8xf32, 1> to memref<4xf32>
  return
}

// -----

// subview not strided
func.func @f(%m: memref<8x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) {
  // expected-error @+1 {{base type 'memref<8x4xf32, affine_map<(d0, d1) -> (d1, d0)>>' is not strided}}
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x4xf32, affine_map<(d0, d1) -> (d1, d0)>> to memref<4x4xf32>
  return
}

// -----

// subview dynamic entries
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{expected the number of 'offsets' to match the number of dynamic entries in 'static_offsets' (0 vs 1)}}
  %0 = "memref.subview"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 4>, static_strides = array<i64: 1>}> : (memref<8xf32>) -> memref<4xf32, strided<[1], offset: ?>>
  return
}

// -----

// expand group size
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op collapsed dim size (8) must equal reassociation group size (10)}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [2, 5] : memref<8xf32> into memref<2x5xf32>
  return
}

// -----

// expand groups
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op invalid number of reassociation groups: found 2, expected 1}}
  %0 = memref.expand_shape %m [[0], [1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  return
}

// -----

// expand type
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op expected expanded type to be 'memref<2x4xf32>' but found 'memref<2x4xf64>'}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf64>
  return
}

// -----

// expand strided type
func.func @f(%m: memref<8xf32, strided<[2]>>) {
  // expected-error @+1 {{'memref.expand_shape' op expected expanded type to be 'memref<2x4xf32, strided<[8, 2]>>' but found 'memref<2x4xf32>'}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [2, 4] : memref<8xf32, strided<[2]>> into memref<2x4xf32>
  return
}

// -----

// expand output shape
func.func @f(%m: memref<8xf32>, %n: index) {
  // expected-error @+1 {{'memref.expand_shape' op invalid output shape provided at pos 1}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [2, %n] : memref<8xf32> into memref<2x4xf32>
  return
}

// -----

// expand rank 0
func.func @f(%m: memref<f32>) {
  // expected-error @+1 {{'memref.expand_shape' op rank 0 memrefs can only be extended/collapsed with/from ones}}
  %0 = memref.expand_shape %m [] output_shape [2] : memref<f32> into memref<2xf32>
  return
}

// -----

// expand not expansion
func.func @f(%m: memref<2x4xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op has source rank 2 and result rank 1. This is not an expansion (2 > 1).}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [8] : memref<2x4xf32> into memref<8xf32>
  return
}

// -----

// expand dynamic group
func.func @f(%m: memref<8xf32>, %n: index) {
  // expected-error @+1 {{'memref.expand_shape' op collapsed dim (0) must be dynamic if and only if reassociation group is dynamic}}
  %0 = memref.expand_shape %m [[0, 1]] output_shape [%n, 4] : memref<8xf32> into memref<?x4xf32>
  return
}

// -----

// expand dynamic count
func.func @f(%m: memref<?xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has 1 dynamic dims while output_shape has 0 values}}
  %0 = "memref.expand_shape"(%m) <{reassociation = [[0, 1]], static_output_shape = array<i64: -9223372036854775808, 4>}> : (memref<?xf32>) -> memref<?x4xf32>
  return
}

// -----

// expand static count
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op expected number of static shape bounds to be equal to the output rank (2) but found 1 inputs instead}}
  %0 = "memref.expand_shape"(%m) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2>}> : (memref<8xf32>) -> memref<2x4xf32>
  return
}

// -----

// expand result tensor
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op result #0 must be strided memref of any type values, but got 'tensor<2x2xf32>'}}
  %0 = "memref.expand_shape"(%m) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 2>}> : (memref<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// collapse group size
func.func @f(%m: memref<2x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op collapsed dim size (9) must equal reassociation group size (8)}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x4xf32> into memref<9xf32>
  return
}

// -----

// collapse groups
func.func @f(%m: memref<2x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op invalid number of reassociation groups: found 2, expected 1}}
  %0 = memref.collapse_shape %m [[0], [1]] : memref<2x4xf32> into memref<8xf32>
  return
}

// -----

// collapse contiguous
func.func @f(%m: memref<2x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op reassociation indices must be contiguous}}
  %0 = memref.collapse_shape %m [[1, 0]] : memref<2x4xf32> into memref<8xf32>
  return
}

// -----

// collapse out of bounds
func.func @f(%m: memref<2x8xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op reassociation index 2 is out of bounds}}
  %0 = memref.collapse_shape %m [[0, 1, 2]] : memref<2x8xf32> into memref<16xf32>
  return
}

// -----

// collapse expanded rank
func.func @f(%m: memref<2x8x1xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op expanded rank (3) inconsistent with number of reassociation indices (2)}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x8x1xf32> into memref<16xf32>
  return
}

// -----

// collapse type
func.func @f(%m: memref<2x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op expected collapsed type to be 'memref<8xf32>' but found 'memref<8xi32>'}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x4xf32> into memref<8xi32>
  return
}

// -----

// collapse non contiguous
func.func @f(%m: memref<8x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{'memref.collapse_shape' op invalid source layout map or collapsing non-contiguous dims}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<8x4xf32, strided<[8, 1]>> into memref<32xf32, strided<[1]>>
  return
}

// -----

// collapse not collapse
func.func @f(%m: memref<8xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op has source rank 1 and result rank 2. This is not a collapse (1 < 2).}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<8xf32> into memref<2x4xf32>
  return
}

// -----

// collapse reassociation
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op attribute 'reassociation' failed to satisfy constraint: Array of 64-bit integer array attributes}}
  %0 = "memref.collapse_shape"(%m) <{reassociation = [0]}> : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// view dynamic sizes
func.func @f(%m: memref<64xi8>, %i: index) {
  // expected-error @+1 {{'memref.view' op incorrect number of dynamic sizes, has 0, expected 1}}
  %0 = memref.view %m[%i][] : memref<64xi8> to memref<?x4xf32>
  return
}

// -----

// view result layout
func.func @f(%m: memref<64xi8>, %i: index) {
  // expected-error @+1 {{unsupported map for result memref type 'memref<4x4xi32, strided<[8, 1]>>'}}
  %0 = memref.view %m[%i][] : memref<64xi8> to memref<4x4xi32, strided<[8, 1]>>
  return
}

// -----

// view base layout
func.func @f(%m: memref<64xi8, strided<[1], offset: 2>>, %i: index) {
  // expected-error @+1 {{unsupported map for base memref type 'memref<64xi8, strided<[1], offset: 2>>'}}
  %0 = memref.view %m[%i][] : memref<64xi8, strided<[1], offset: 2>> to memref<4x4xi32>
  return
}

// -----

// view space
func.func @f(%m: memref<64xi8>, %i: index) {
  // expected-error @+1 {{different memory spaces specified for base memref type 'memref<64xi8>' and view memref type 'memref<4x4xi32, 1>'}}
  %0 = memref.view %m[%i][] : memref<64xi8> to memref<4x4xi32, 1>
  return
}

// -----

// view source
func.func @f(%m: memref<4xi32>, %i: index) {
  // expected-error @+1 {{'memref.view' op operand #0 must be 1D memref of 8-bit signless integer values, but got 'memref<4xi32>'}}
  %0 = "memref.view"(%m, %i) : (memref<4xi32>, index) -> memref<4xi8>
  return
}

// -----

#tiled = affine_map<(d0) -> (d0 floordiv 8, d0 mod 8)>
func.func @realloc_layout(%src: memref<256xf32, #tiled>) -> memref<?xf32> {
  // expected-error@+1 {{unsupported layout for source memref type 'memref<256xf32, affine_map<(d0) -> (d0 floordiv 8, d0 mod 8)>>'}}
  %0 = memref.realloc %src : memref<256xf32, #tiled> to memref<?xf32>
  return %0 : memref<?xf32>
}

// -----

func.func @realloc_missing_size(%src: memref<2xf32>) -> memref<?xf32> {
  // expected-error@+1 {{missing dimension operand for result type 'memref<?xf32>'}}
  %0 = memref.realloc %src : memref<2xf32> to memref<?xf32>
  return %0 : memref<?xf32>
}

// -----

func.func @realloc_unneeded_size(%src: memref<?xf32>, %n: index) -> memref<4xf32> {
  // expected-error@+1 {{unnecessary dimension operand for result type 'memref<4xf32>'}}
  %0 = memref.realloc %src(%n) : memref<?xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

func.func @realloc_element_type(%src: memref<256xf32>) -> memref<?xi32> {
  // expected-error@+1 {{different element types specified for source memref type 'memref<256xf32>' and result memref type 'memref<?xi32>'}}
  %0 = memref.realloc %src : memref<256xf32> to memref<?xi32>
  return %0 : memref<?xi32>
}

// -----

func.func @realloc_memory_space(%src: memref<4xf32, 1>) -> memref<8xf32> {
  // expected-error@+1 {{different memory spaces specified for source memref type 'memref<4xf32, 1>' and result memref type 'memref<8xf32>'}}
  %0 = memref.realloc %src : memref<4xf32, 1> to memref<8xf32>
  return %0 : memref<8xf32>
}

// -----

func.func @realloc_alignment(%src: memref<4xf32>) {
  // expected-error@+1 {{'memref.realloc' op attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
  %0 = memref.realloc %src {alignment = 7} : memref<4xf32> to memref<8xf32>
  return
}

// -----

func.func @reshape_element_type(%buf: memref<*xf32>, %shape: memref<1xi32>) {
  // expected-error@+1 {{'memref.reshape' op element types of source and destination memref types should be the same}}
  %0 = memref.reshape %buf(%shape) : (memref<*xf32>, memref<1xi32>) -> memref<?xi32>
  return
}

// -----

func.func @reshape_dynamic_length_to_ranked(%buf: memref<*xf32>, %shape: memref<?xi32>) {
  // expected-error@+1 {{'memref.reshape' op cannot use shape operand with dynamic length to reshape to statically-ranked memref type}}
  %0 = memref.reshape %buf(%shape) : (memref<*xf32>, memref<?xi32>) -> memref<?xf32>
  return
}

// -----

func.func @reshape_rank_mismatch(%buf: memref<*xf32>, %shape: memref<1xi32>) {
  // expected-error@+1 {{'memref.reshape' op length of shape operand differs from the result's memref rank}}
  %0 = memref.reshape %buf(%shape) : (memref<*xf32>, memref<1xi32>) -> memref<?x?xf32>
  return
}

// -----

func.func @reshape_source_layout(%buf: memref<4x4xf32, strided<[3, 2]>>, %shape: memref<1xi32>) {
  // expected-error@+1 {{'memref.reshape' op source memref type should have identity affine map}}
  %0 = memref.reshape %buf(%shape) : (memref<4x4xf32, strided<[3, 2]>>, memref<1xi32>) -> memref<8xf32>
  return
}

// -----

func.func @reshape_result_layout(%buf: memref<4x4xf32>, %shape: memref<1xi32>) {
  // expected-error@+1 {{'memref.reshape' op result memref type should have identity affine map}}
  %0 = memref.reshape %buf(%shape) : (memref<4x4xf32>, memref<1xi32>) -> memref<8xf32, strided<[2]>>
  return
}

// -----

// memory_space_cast may change only the memory space
func.func @f(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.memory_space_cast' op operand type 'memref<4xf32>' and result type 'memref<8xf32, 1>' are cast incompatible}}
  %0 = memref.memory_space_cast %m : memref<4xf32> to memref<8xf32, 1>
  return
}

// -----

// transpose result type
func.func @f(%m: memref<2x3xf32>) {
  // expected-error @+1 {{'memref.transpose' op result type 'memref<3x2xf32>' is not equivalent to the canonical transposed input type 'memref<3x2xf32, affine_map<(d0, d1) -> (d0 + d1 * 3)>>'}}
  %0 = memref.transpose %m (d0, d1) -> (d1, d0) : memref<2x3xf32> to memref<3x2xf32>
  return
}

// -----

// atomic_rmw element kinds
func.func @f(%m: memref<4xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'memref.atomic_rmw' op with kind 'mulf' expects a floating-point type}}
  %0 = memref.atomic_rmw mulf %v, %m[%i] : (i32, memref<4xi32>) -> i32
  return
}

// -----

// dma_wait tag indices
func.func @f(%tag: memref<1xi32>, %n: index) {
  // expected-error @+1 {{'memref.dma_wait' op expected tagIndices to have the same number of elements as the tagMemRef rank, expected 1, but got 0}}
  memref.dma_wait %tag[], %n : memref<1xi32>
  return
}

// -----

// dma_start stride operands come in pairs
func.func @f(%src: memref<4xf32>, %dst: memref<4xf32>, %tag: memref<i32>, %i: index) {
  // expected-error @+1 {{expected two stride related operands}}
  memref.dma_start %src[%i], %dst[%i], %i, %tag[], %i : memref<4xf32>, memref<4xf32>, memref<i32>
  return
}

// -----

// prefetch indices
func.func @f(%m: memref<4x4xf32>, %i: index) {
  // expected-error @+1 {{'memref.prefetch' op too few indices}}
  "memref.prefetch"(%m, %i) <{isDataCache = true, isWrite = false, localityHint = 1 : i32}> : (memref<4x4xf32>, index) -> ()
  return
}

// -----

// generic_atomic_rmw: its body takes exactly the current value
func.func @f(%m: memref<4xi32>, %i: index) {
  // expected-error @+1 {{'memref.generic_atomic_rmw' op expected single number of entry block arguments}}
  %x = memref.generic_atomic_rmw %m[%i] : memref<4xi32> {
  ^bb0:
    %c = arith.constant 0 : i32
    memref.atomic_yield %c : i32
  }
  return
}

// -----

// generic_atomic_rmw: the current value has the element type
func.func @f(%m: memref<4xi32>, %i: index) {
  // expected-error @+1 {{'memref.generic_atomic_rmw' op expected block argument of the same type result type}}
  %x = memref.generic_atomic_rmw %m[%i] : memref<4xi32> {
  ^bb0(%cur: i64):
    %c = arith.constant 0 : i32
    memref.atomic_yield %c : i32
  }
  return
}

// -----

// generic_atomic_rmw: the result has the element type
func.func @f(%m: memref<4xi32>, %i: index) {
  // expected-error @+1 {{'memref.generic_atomic_rmw' op failed to verify that result type matches element type of memref}}
  %x = "memref.generic_atomic_rmw"(%m, %i) ({
  ^bb0(%cur: i64):
    "memref.atomic_yield"(%cur) : (i64) -> ()
  }) : (memref<4xi32>, index) -> i64
  return
}

// -----

// generic_atomic_rmw: a load in the body is a side effect, reported where it stands
func.func @f(%m: memref<4xi32>, %i: index) {
  %x = memref.generic_atomic_rmw %m[%i] : memref<4xi32> {
  ^bb0(%cur: i32):
    // expected-error @+1 {{body of 'memref.generic_atomic_rmw' should contain only operations with no side effects}}
    %v = memref.load %m[%i] : memref<4xi32>
    memref.atomic_yield %v : i32
  }
  return
}

// -----

// generic_atomic_rmw: the yielded value has the result type
func.func @f(%m: memref<4xi32>, %i: index) {
  %x = memref.generic_atomic_rmw %m[%i] : memref<4xi32> {
  ^bb0(%cur: i32):
    %c = arith.constant 0 : i64
    // expected-error @+1 {{'memref.atomic_yield' op types mismatch between yield op: 'i64' and its parent: 'i32'}}
    memref.atomic_yield %c : i64
  }
  return
}

// -----

// atomic_yield outside a generic_atomic_rmw
func.func @f(%v: i32) {
  // expected-error @+1 {{'memref.atomic_yield' op expects parent op 'memref.generic_atomic_rmw'}}
  memref.atomic_yield %v : i32
}

// -----

// The layout of a memref type must have the type's rank; the error points at the type.
func.func @f() {
  // expected-error @+1 {{memref layout mismatch between rank and affine map: 2 != 1}}
  %0 = memref.alloc() : memref<4x4xf32,
    affine_map<(d0) -> (d0)>>
  return
}
