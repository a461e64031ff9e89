// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in tensor, memref and vector types.

// A tensor of tensors.
"unreg.op"() {t = tensor<2xtensor<2xi8>>} : () -> ()

// -----

// Negative dimension.
"unreg.op"() {t = tensor<-1xf32>} : () -> ()

// -----

// Encodings are only allowed on ranked tensors.
"unreg.op"() {t = tensor<*xf32, "enc">} : () -> ()

// -----

// Two encodings.
"unreg.op"() {t = tensor<4xf32, "a", "b">} : () -> ()

// -----

// Scalable dimensions only exist in vectors.
"unreg.op"() {t = tensor<[4]xf32>} : () -> ()

// -----

// Vectors cannot have dynamic dimensions.
"unreg.op"() {t = vector<?xf32>} : () -> ()

// -----

// Vectors cannot have zero-sized dimensions.
"unreg.op"() {t = vector<0xf32>} : () -> ()

// -----

// Vectors cannot be unranked.
"unreg.op"() {t = vector<*xf32>} : () -> ()

// -----

// Missing element type.
"unreg.op"() {t = memref<4x>} : () -> ()

// -----

// A memref of a dialect type.
"unreg.op"() {t = memref<4x!foo.t>} : () -> ()

// -----

// Array attributes are not memory spaces.
"unreg.op"() {t = memref<4xf32, [1]>} : () -> ()

// -----

// Attributes of unregistered dialects are not memory spaces.
"unreg.op"() {t = memref<4xf32, #foo.space>} : () -> ()

// -----

// Float attributes are not memory spaces.
"unreg.op"() {t = memref<4xf32, 1.0 : f32>} : () -> ()

// -----

// Layout map with the wrong number of dimensions.
"unreg.op"() {t = memref<4x4xf32, affine_map<(d0) -> (d0)>>} : () -> ()

// -----

// Strided layout with the wrong number of strides.
"unreg.op"() {t = memref<4x4xf32, strided<[1]>>} : () -> ()

// -----

// Unranked memrefs have no layout.
"unreg.op"() {t = memref<*xf32, strided<[1]>>} : () -> ()

// -----

// Unterminated tensor type.
"unreg.op"() {t = tensor<4xf32} : () -> ()

// -----

// Missing 'x' between the last dimension and the element type.
"unreg.op"() {t = vector<4 f32>} : () -> ()

// -----

// A bad strided layout keyword.
"unreg.op"() {t = memref<4xf32, strided<[1], offs: 2>>} : () -> ()

// -----

// A size must still be followed by `x`, blanks or not.
"unreg.op"() {t = vector<4 i32>} : () -> ()
