// RUN: tb-opt %s | FileCheck %s
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// Sizes and `x` are separate tokens, as in MLIR: blanks may stand between them.
// CHECK-LABEL: func.func @vector_spaced(%arg0: vector<42xi32>, %arg1: vector<4x[8]xf32>)
func.func @vector_spaced(%a: vector<42 x i32>, %b: vector<4 x [8] x f32>) {
  return
}

// CHECK-LABEL: func.func @tensor_spaced(%arg0: tensor<2x?xi8>)
func.func @tensor_spaced(%a: tensor<2 x ? x i8>) {
  return
}

// CHECK-LABEL: func.func @memref_spaced(%arg0: memref<3x4xf32>)
func.func @memref_spaced(%a: memref<3 x 4 x f32>) {
  return
}
