// RUN: tb-opt %s --canonicalize | FileCheck %s

// Identity forwards its operand.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT:    return %arg0
func.func @identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.identity %arg0 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A reshape to its operand's type is no reshape.
// CHECK-LABEL: func.func @reshape_same_type
// CHECK-NEXT:    return %arg0
func.func @reshape_same_type(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %arg0 {shape = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A reshape of reshape-like ops (flatten, unsqueeze, ...) reshapes their input directly,
// to the dimensions spelled out.
// CHECK-LABEL: func.func @reshape_of_reshapes
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %arg0 {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_reshapes(%arg0: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = graph.flatten %arg0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = graph.unsqueeze %0 {axes = array<i64: 0>} : (tensor<2x12xf32>) -> tensor<1x2x12xf32>
  %2 = graph.reshape %1 {shape = array<i64: 4, -1>} : (tensor<1x2x12xf32>) -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// With a zero-sized dimension in the target, the composed reshape sets allowzero so that
// 0 means 0, not "copy the input dimension".
// CHECK-LABEL: func.func @reshape_of_reshape_zero
// CHECK-NEXT:    graph.reshape %arg0 {allowzero = true, shape = array<i64: 0, 4>} : (tensor<2x0xf32>) -> tensor<0x4xf32>
func.func @reshape_of_reshape_zero(%arg0: tensor<2x0xf32>) -> tensor<0x4xf32> {
  %0 = graph.reshape %arg0 {allowzero = true, shape = array<i64: 0>} : (tensor<2x0xf32>) -> tensor<0xf32>
  %1 = graph.reshape %0 {shape = array<i64: 0, 4>} : (tensor<0xf32>) -> tensor<0x4xf32>
  return %1 : tensor<0x4xf32>
}

// Two transposes compose into one.
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT:    return %[[T]]
func.func @transpose_of_transpose(%arg0: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 2, 1, 0>} : (tensor<2x4x3xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// Two transposes that undo each other (default perms: reversals) disappear.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-NEXT:    return %arg0
func.func @transpose_inverse(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %arg0 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = graph.transpose %0 : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// A transpose by the identity permutation is no transpose.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-NEXT:    return %arg0
func.func @transpose_identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.transpose %arg0 {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A squeeze that removes the axis an unsqueeze added gives the input back.
// CHECK-LABEL: func.func @squeeze_of_unsqueeze
// CHECK-NEXT:    return %arg0
func.func @squeeze_of_unsqueeze(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.unsqueeze %arg0 {axes = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  %1 = graph.squeeze %0 {axes = array<i64: 1>} : (tensor<3x1x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// So does an unsqueeze that restores what a squeeze removed.
// CHECK-LABEL: func.func @unsqueeze_of_squeeze
// CHECK-NEXT:    return %arg0
func.func @unsqueeze_of_squeeze(%arg0: tensor<1x3x1xf32>) -> tensor<1x3x1xf32> {
  %0 = graph.squeeze %arg0 : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %1 = graph.unsqueeze %0 {axes = array<i64: 0, 2>} : (tensor<3xf32>) -> tensor<1x3x1xf32>
  return %1 : tensor<1x3x1xf32>
}

// An unsqueeze to another shape than the squeeze's input stays.
// CHECK-LABEL: func.func @unsqueeze_of_squeeze_elsewhere
// CHECK-NEXT:    %[[S:.*]] = graph.squeeze %arg0
// CHECK-NEXT:    %[[U:.*]] = graph.unsqueeze %[[S]] {axes = array<i64: 1>}
// CHECK-NEXT:    return %[[U]]
func.func @unsqueeze_of_squeeze_elsewhere(%arg0: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  %0 = graph.squeeze %arg0 : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %1 = graph.unsqueeze %0 {axes = array<i64: 1>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return %1 : tensor<3x1xf32>
}

// Shape of a static tensor is a constant, start and end included.
// CHECK-LABEL: func.func @shape
// CHECK-DAG:     %[[A:.*]] = graph.constant dense<[2, 3, 4]> : tensor<3xi64>
// CHECK-DAG:     %[[B:.*]] = graph.constant dense<3> : tensor<1xi64>
// CHECK:         return %[[A]], %[[B]]
func.func @shape(%arg0: tensor<2x3x4xf32>) -> (tensor<3xi64>, tensor<1xi64>) {
  %0 = graph.shape %arg0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = graph.shape %arg0 {end = -1 : i64, start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<1xi64>
  return %0, %1 : tensor<3xi64>, tensor<1xi64>
}

// Size of a static tensor is a constant.
// CHECK-LABEL: func.func @size
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<24> : tensor<i64>
// CHECK-NEXT:    return %[[C]]
func.func @size(%arg0: tensor<2x3x4xf32>) -> tensor<i64> {
  %0 = graph.size %arg0 : (tensor<2x3x4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// A size beyond i64 (here 2^96 elements) is not folded: it would wrap.
// CHECK-LABEL: func.func @size_overflow
// CHECK-NEXT:    %[[S:.*]] = graph.size %arg0
// CHECK-NEXT:    return %[[S]]
func.func @size_overflow(%arg0: tensor<4294967296x4294967296x4294967296xf32>) -> tensor<i64> {
  %0 = graph.size %arg0 : (tensor<4294967296x4294967296x4294967296xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// The subgraph PyTorch exports for `x.view(x.size(0), -1)`: Shape, Gather, Unsqueeze and
// Concat fold to the constant the importer turns into Reshape's shape attribute.
// CHECK-LABEL: func.func @shape_subgraph
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[2, -1]> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @shape_subgraph(%arg0: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = graph.shape %arg0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = graph.constant dense<0> : tensor<i64>
  %2 = graph.gather %0, %1 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %3 = graph.unsqueeze %2 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %4 = graph.constant dense<-1> : tensor<1xi64>
  %5 = graph.concat %3, %4 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %5 : tensor<2xi64>
}

// The Expand-shape subgraph of exporters: ConstantOfShape, Mul, Equal and Where fold.
// CHECK-LABEL: func.func @expand_shape_subgraph
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @expand_shape_subgraph(%arg0: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = graph.shape %arg0 : (tensor<2x3xf32>) -> tensor<2xi64>
  %1 = graph.constant_of_shape {shape = array<i64: 2>, value = 1 : i64} : tensor<2xi64>
  %2 = graph.constant dense<-1> : tensor<i64>
  %3 = graph.mul %1, %2 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %4 = graph.equal %0, %3 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %5 = graph.where %4, %1, %0 : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %5 : tensor<2xi64>
}

// Range folds, for integers and floats.
// CHECK-LABEL: func.func @range
// CHECK-DAG:     graph.constant dense<[6, 4, 2, 0]> : tensor<4xi64>
// CHECK-DAG:     graph.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00]> : tensor<3xf32>
func.func @range() -> (tensor<4xi64>, tensor<3xf32>) {
  %0 = graph.range {delta = -2 : i64, limit = -1 : i64, start = 6 : i64} : tensor<4xi64>
  %1 = graph.range {delta = 5.000000e-01 : f32, limit = 1.500000e+00 : f32, start = 0.000000e+00 : f32} : tensor<3xf32>
  return %0, %1 : tensor<4xi64>, tensor<3xf32>
}

// ConstantOfShape folds to a splat, whatever its size (ONNX's default value: f32 zero).
// CHECK-LABEL: func.func @constant_of_shape
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<0.000000e+00> : tensor<1x3x224x224xf32>
// CHECK-NEXT:    return %[[C]]
func.func @constant_of_shape() -> tensor<1x3x224x224xf32> {
  %0 = graph.constant_of_shape {shape = array<i64: 1, 3, 224, 224>} : tensor<1x3x224x224xf32>
  return %0 : tensor<1x3x224x224xf32>
}

// Cast of constants: integers to floats, integers wrapping into narrower ones, anything
// non-zero to true, floats truncating toward zero.
// CHECK-LABEL: func.func @cast_constants
// CHECK-DAG:     graph.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+02]> : tensor<3xf32>
// CHECK-DAG:     graph.constant dense<[1, -2, 44]> : tensor<3xi8>
// CHECK-DAG:     graph.constant dense<true> : tensor<3xi1>
// CHECK-DAG:     graph.constant dense<[2, -2]> : tensor<2xi32>
// CHECK-NOT:     graph.cast
func.func @cast_constants() -> (tensor<3xf32>, tensor<3xi8>, tensor<3xi1>, tensor<2xi32>) {
  %0 = graph.constant dense<[1, -2, 300]> : tensor<3xi64>
  %1 = graph.cast %0 {to = f32} : (tensor<3xi64>) -> tensor<3xf32>
  %2 = graph.cast %0 {to = i8} : (tensor<3xi64>) -> tensor<3xi8>
  %3 = graph.cast %0 {to = i1} : (tensor<3xi64>) -> tensor<3xi1>
  %4 = graph.constant dense<[2.7, -2.7]> : tensor<2xf32>
  %5 = graph.cast %4 {to = i32} : (tensor<2xf32>) -> tensor<2xi32>
  return %1, %2, %3, %5 : tensor<3xf32>, tensor<3xi8>, tensor<3xi1>, tensor<2xi32>
}

// A cast to the operand's own type is no cast.
// CHECK-LABEL: func.func @cast_same_type
// CHECK-NEXT:    return %arg0
func.func @cast_same_type(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.cast %arg0 {to = f32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Arithmetic on constants broadcasts; integer division truncates and Mod takes the
// divisor's sign; float results round to the element type.
// CHECK-LABEL: func.func @arithmetic
// CHECK-DAG:     graph.constant dense<{{\[}}[11, 12], [21, 22]]> : tensor<2x2xi64>
// CHECK-DAG:     graph.constant dense<[-3, 3]> : tensor<2xi64>
// CHECK-DAG:     graph.constant dense<1> : tensor<2xi64>
// CHECK-DAG:     graph.constant dense<[0.333333343, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     graph.constant dense<[2, 7]> : tensor<2xi64>
// CHECK-NOT:     graph.add
// CHECK-NOT:     graph.div
func.func @arithmetic() -> (tensor<2x2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xf32>, tensor<2xi64>) {
  %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
  %1 = graph.constant dense<[[10], [20]]> : tensor<2x1xi64>
  %2 = graph.add %0, %1 : (tensor<2xi64>, tensor<2x1xi64>) -> tensor<2x2xi64>
  %3 = graph.constant dense<[-7, 7]> : tensor<2xi64>
  %4 = graph.constant dense<2> : tensor<2xi64>
  %5 = graph.div %3, %4 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %6 = graph.mod %3, %4 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %7 = graph.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %8 = graph.constant dense<3.0> : tensor<2xf32>
  %9 = graph.div %7, %8 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %10 = graph.max %0, %3, %4 : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %2, %5, %6, %9, %10 : tensor<2x2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xf32>, tensor<2xi64>
}

// Integer division by zero is left for the runtime to report.
// CHECK-LABEL: func.func @division_by_zero
// CHECK:         graph.div
func.func @division_by_zero() -> tensor<2xi64> {
  %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
  %1 = graph.constant dense<0> : tensor<2xi64>
  %2 = graph.div %0, %1 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %2 : tensor<2xi64>
}

// x + 0 (integers), x * 1 and x - 0 forward x when that keeps the type; a float x + 0.0
// stays (it turns -0.0 into +0.0).
// CHECK-LABEL: func.func @neutral_elements
// CHECK:         %[[ADD:.*]] = graph.add %arg1, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %arg0, %arg1, %[[ADD]], %arg1
func.func @neutral_elements(%arg0: tensor<2x3xi64>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = graph.constant dense<0> : tensor<3xi64>
  %1 = graph.add %0, %arg0 : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %2 = graph.constant dense<1.0> : tensor<f32>
  %3 = graph.mul %arg1, %2 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = graph.constant dense<0.0> : tensor<f32>
  %5 = graph.add %arg1, %4 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = graph.sub %arg1, %4 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %1, %3, %5, %6 : tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// A multiplication by one that broadcasts changes the shape and stays.
// CHECK-LABEL: func.func @broadcasting_neutral_element
// CHECK:         graph.mul
func.func @broadcasting_neutral_element(%arg0: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.constant dense<1.0> : tensor<2x3xf32>
  %1 = graph.mul %arg0, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Transpose of a constant.
// CHECK-LABEL: func.func @transpose_constant
// CHECK-NEXT:    graph.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
func.func @transpose_constant() -> tensor<3x2xi64> {
  %0 = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = graph.transpose %0 : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %1 : tensor<3x2xi64>
}

// Slice of a constant with a negative step, then a reshape.
// CHECK-LABEL: func.func @slice_constant
// CHECK-NEXT:    graph.constant dense<[3, 1, 6, 4]> : tensor<4xi64>
func.func @slice_constant() -> tensor<4xi64> {
  %0 = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = graph.slice %0 {axes = array<i64: 1>, ends = array<i64: -4>, starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<2x3xi64>) -> tensor<2x2xi64>
  %2 = graph.reshape %1 {shape = array<i64: 4>} : (tensor<2x2xi64>) -> tensor<4xi64>
  return %2 : tensor<4xi64>
}

// Gather of constants, with negative indices.
// CHECK-LABEL: func.func @gather_constant
// CHECK-NEXT:    graph.constant dense<{{\[}}[3, 1], [6, 4]]> : tensor<2x2xi64>
func.func @gather_constant() -> tensor<2x2xi64> {
  %0 = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = graph.constant dense<[-1, 0]> : tensor<2xi64>
  %2 = graph.gather %0, %1 {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  return %2 : tensor<2x2xi64>
}

// Gather with an out-of-range index is left for the runtime to report.
// CHECK-LABEL: func.func @gather_out_of_range
// CHECK:         graph.gather
func.func @gather_out_of_range() -> tensor<1xi64> {
  %0 = graph.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = graph.constant dense<3> : tensor<1xi64>
  %2 = graph.gather %0, %1 : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %2 : tensor<1xi64>
}

// Expand, Tile and Concat of constants.
// CHECK-LABEL: func.func @expand_tile_concat
// CHECK-NEXT:    graph.constant dense<{{\[}}[7, 8, 7, 8], [7, 8, 7, 8]]> : tensor<2x4xi64>
func.func @expand_tile_concat() -> tensor<2x4xi64> {
  %0 = graph.constant dense<[7, 8]> : tensor<2xi64>
  %1 = graph.expand %0 {shape = array<i64: 2, 1>} : (tensor<2xi64>) -> tensor<2x2xi64>
  %2 = graph.tile %0 {repeats = array<i64: 2>} : (tensor<2xi64>) -> tensor<4xi64>
  %3 = graph.unsqueeze %2 {axes = array<i64: 0>} : (tensor<4xi64>) -> tensor<1x4xi64>
  %4 = graph.slice %1 {ends = array<i64: 1>, starts = array<i64: 0>} : (tensor<2x2xi64>) -> tensor<1x2xi64>
  %5 = graph.concat %4, %4 {axis = 1 : i64} : (tensor<1x2xi64>, tensor<1x2xi64>) -> tensor<1x4xi64>
  %6 = graph.concat %3, %5 {axis = 0 : i64} : (tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  return %6 : tensor<2x4xi64>
}

// Reductions of constants (the element count of a shape, a sum), with Squeeze.
// CHECK-LABEL: func.func @reduce_constants
// CHECK-DAG:     graph.constant dense<[4, 10, 18]> : tensor<3xi64>
// CHECK-DAG:     graph.constant dense<15> : tensor<i64>
func.func @reduce_constants() -> (tensor<3xi64>, tensor<i64>) {
  %0 = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = graph.reduce_prod %0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi64>) -> tensor<3xi64>
  %2 = graph.constant dense<[7, 8]> : tensor<2xi64>
  %3 = graph.reduce_sum %2 : (tensor<2xi64>) -> tensor<1xi64>
  %4 = graph.squeeze %3 : (tensor<1xi64>) -> tensor<i64>
  return %1, %4 : tensor<3xi64>, tensor<i64>
}

// Logic and sign ops on constants.
// CHECK-LABEL: func.func @logic_constants
// CHECK-DAG:     graph.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG:     graph.constant dense<[-3, 0, 5]> : tensor<3xi64>
func.func @logic_constants() -> (tensor<3xi1>, tensor<3xi64>) {
  %0 = graph.constant dense<[true, false, true]> : tensor<3xi1>
  %1 = graph.constant dense<[false, false, true]> : tensor<3xi1>
  %2 = graph.xor %0, %1 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = graph.not %2 : tensor<3xi1>
  %4 = graph.constant dense<[-3, 0, 5]> : tensor<3xi64>
  %5 = graph.neg %4 : tensor<3xi64>
  %6 = graph.abs %5 : tensor<3xi64>
  %7 = graph.sign %4 : tensor<3xi64>
  %8 = graph.mul %6, %7 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %3, %8 : tensor<3xi1>, tensor<3xi64>
}

// Weights stored as dense_resource are not folded.
// CHECK-LABEL: func.func @resource_not_folded
// CHECK:         graph.reshape
func.func @resource_not_folded() -> tensor<2x2xf32> {
  %0 = graph.constant dense_resource<blob> : tensor<4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// Non-splat results beyond the fold budget (2^20 elements) are not folded.
// CHECK-LABEL: func.func @large_range
// CHECK:         graph.range
func.func @large_range() -> tensor<1048577xi64> {
  %0 = graph.range {delta = 1 : i64, limit = 1048577 : i64, start = 0 : i64} : tensor<1048577xi64>
  return %0 : tensor<1048577xi64>
}

// Results within the budget fold, beyond the old limit of 4096 elements too.
// CHECK-LABEL: func.func @range_within_budget
// CHECK-NEXT:    graph.constant dense<"0x
// CHECK-NOT:     graph.range
func.func @range_within_budget() -> tensor<5000xi64> {
  %0 = graph.range {delta = 1 : i64, limit = 5000 : i64, start = 0 : i64} : tensor<5000xi64>
  return %0 : tensor<5000xi64>
}

// Splat indices are never expanded: a gather of 2^40 elements from dense data stays
// (expanding the indices once took 16 TiB).
// CHECK-LABEL: func.func @gather_splat_indices_beyond_budget
// CHECK:         graph.gather
func.func @gather_splat_indices_beyond_budget() -> tensor<1099511627776xi64> {
  %0 = graph.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = graph.constant dense<1> : tensor<1099511627776xi64>
  %2 = graph.gather %0, %1 : (tensor<3xi64>, tensor<1099511627776xi64>) -> tensor<1099511627776xi64>
  return %2 : tensor<1099511627776xi64>
}

// From splat data, a gather whose splat index is in range is the splat, whatever its size.
// CHECK-LABEL: func.func @gather_splat_data
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<7> : tensor<1099511627776xi64>
// CHECK-NEXT:    return %[[C]]
func.func @gather_splat_data() -> tensor<1099511627776xi64> {
  %0 = graph.constant dense<7> : tensor<3xi64>
  %1 = graph.constant dense<-1> : tensor<1099511627776xi64>
  %2 = graph.gather %0, %1 : (tensor<3xi64>, tensor<1099511627776xi64>) -> tensor<1099511627776xi64>
  return %2 : tensor<1099511627776xi64>
}

// An out-of-range index into splat data is left for the runtime to report.
// CHECK-LABEL: func.func @gather_splat_data_out_of_range
// CHECK:         graph.gather
func.func @gather_splat_data_out_of_range() -> tensor<2xi64> {
  %0 = graph.constant dense<7> : tensor<3xi64>
  %1 = graph.constant dense<[0, 5]> : tensor<2xi64>
  %2 = graph.gather %0, %1 : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %2 : tensor<2xi64>
}

// A reduction of a splat beyond the budget is not folded: it would expand the splat.
// CHECK-LABEL: func.func @reduce_splat_beyond_budget
// CHECK:         graph.reduce_sum
func.func @reduce_splat_beyond_budget() -> tensor<i64> {
  %0 = graph.constant dense<1> : tensor<1099511627776xi64>
  %1 = graph.reduce_sum %0 {keepdims = false} : (tensor<1099511627776xi64>) -> tensor<i64>
  return %1 : tensor<i64>
}

// Elementwise ops on splats fold to a splat without expanding it.
// CHECK-LABEL: func.func @splat_arithmetic
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<5> : tensor<1099511627776xi64>
// CHECK-NEXT:    return %[[C]]
func.func @splat_arithmetic() -> tensor<1099511627776xi64> {
  %0 = graph.constant dense<2> : tensor<1099511627776xi64>
  %1 = graph.constant dense<3> : tensor<i64>
  %2 = graph.add %0, %1 : (tensor<1099511627776xi64>, tensor<i64>) -> tensor<1099511627776xi64>
  return %2 : tensor<1099511627776xi64>
}

// Concat of splats of one value is that splat; of a splat and dense data beyond the budget
// it stays.
// CHECK-LABEL: func.func @concat_splats
// CHECK-DAG:     graph.constant dense<4> : tensor<2199023255552xi64>
// CHECK-DAG:     graph.concat
func.func @concat_splats() -> (tensor<2199023255552xi64>, tensor<1099511627779xi64>) {
  %0 = graph.constant dense<4> : tensor<1099511627776xi64>
  %1 = graph.concat %0, %0 {axis = 0 : i64} : (tensor<1099511627776xi64>, tensor<1099511627776xi64>) -> tensor<2199023255552xi64>
  %2 = graph.constant dense<[1, 2, 3]> : tensor<3xi64>
  %3 = graph.concat %0, %2 {axis = 0 : i64} : (tensor<1099511627776xi64>, tensor<3xi64>) -> tensor<1099511627779xi64>
  return %1, %3 : tensor<2199023255552xi64>, tensor<1099511627779xi64>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// A graph.if on a constant condition is the region it selects.
// CHECK-LABEL: func.func @if_constant_condition
// CHECK-NEXT:    %[[E:.*]] = graph.neg %arg0
// CHECK-NEXT:    return %[[E]]
func.func @if_constant_condition(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = graph.constant dense<false> : tensor<i1>
  %0 = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %t = graph.relu %x : tensor<2x3xf32>
    graph.yield %t : tensor<2x3xf32>
  } else {
    %e = graph.neg %x : tensor<2x3xf32>
    graph.yield %e : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// A graph.if on a run-time condition stays.
// CHECK-LABEL: func.func @if_run_time_condition
// CHECK-NEXT:    graph.if %arg1
func.func @if_run_time_condition(%x: tensor<2x3xf32>, %c: tensor<i1>) -> tensor<2x3xf32> {
  %0 = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %t = graph.relu %x : tensor<2x3xf32>
    graph.yield %t : tensor<2x3xf32>
  } else {
    graph.yield %x : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// The sums of widened constant weights (a quantized matmul's zero-point correction) are
// computed at compile time, from a dense_resource too, without keeping the widened copy.
// CHECK-LABEL: func.func @sum_of_widened_resource
// CHECK-NEXT:    %[[S:.*]] = graph.constant dense<{{\[\[}}5, 3, -3]]> : tensor<1x3xi32>
// CHECK-NEXT:    return %[[S]]
func.func @sum_of_widened_resource() -> tensor<1x3xi32> {
  %0 = graph.constant dense_resource<weights_i8> : tensor<2x3xi8>
  %1 = graph.cast %0 {to = i32} : (tensor<2x3xi8>) -> tensor<2x3xi32>
  %2 = graph.reduce_sum %1 {axes = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<1x3xi32>
  return %2 : tensor<1x3xi32>
}

// The maximum over a constant from a dense_resource.
// CHECK-LABEL: func.func @max_of_resource
// CHECK-NEXT:    %[[M:.*]] = graph.constant dense<[5, 4]> : tensor<2xi8>
// CHECK-NEXT:    return %[[M]]
func.func @max_of_resource() -> tensor<2xi8> {
  %0 = graph.constant dense_resource<weights_i8> : tensor<3x2xi8>
  %1 = graph.reduce_max %0 {axes = array<i64: 0>, keepdims = false} : (tensor<3x2xi8>) -> tensor<2xi8>
  return %1 : tensor<2xi8>
}

{-#
  dialect_resources: {
    builtin: {
      weights_i8: "0x0100000001FE030405FA"
    }
  }
#-}

// A graph.loop whose trip count is a constant 0 runs no iteration: its results are its
// initial values.
// CHECK-LABEL: func.func @loop_zero_trip_count
// CHECK-NEXT:    return %arg1
func.func @loop_zero_trip_count(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %m = graph.constant dense<0> : tensor<i64>
  %0 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    %n = graph.neg %a : tensor<2xf32>
    graph.yield %cond, %n : tensor<i1>, tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// A graph.loop whose condition is a constant false runs no iteration either.
// CHECK-LABEL: func.func @loop_false_condition
// CHECK-NEXT:    return %arg1
func.func @loop_false_condition(%m: tensor<i64>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %c = graph.constant dense<false> : tensor<i1>
  %0 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    %n = graph.neg %a : tensor<2xf32>
    graph.yield %cond, %n : tensor<i1>, tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// A graph.loop with a run-time trip count stays.
// CHECK-LABEL: func.func @loop_run_time_trip_count
// CHECK-NEXT:    graph.loop %arg0
func.func @loop_run_time_trip_count(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    %n = graph.neg %a : tensor<2xf32>
    graph.yield %cond, %n : tensor<i1>, tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
