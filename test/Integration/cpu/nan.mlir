// NaN inputs: compiled code and the interpreter give the same answers, those of
// onnxruntime 1.31 where it is consistent. Activations and clamps keep NaN (Relu,
// HardSigmoid, HardSwish, Celu, Clip); Max and ReduceMax propagate it and ArgMax points at
// the first NaN, as numpy does; MaxPool skips NaNs, and a window of NaNs only gives -inf
// and, as in onnxruntime, the index of its first element.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tb-run --interpret %s --function inputs --output-dir %t/in > /dev/null
// RUN: tb-run %s --function activations --input %t/in/output_0.npy | FileCheck %s --check-prefix=ACT
// RUN: tb-run --interpret %s --function activations --input %t/in/output_0.npy | FileCheck %s --check-prefix=ACT
// RUN: tb-run %s --function reductions --input %t/in/output_1.npy | FileCheck %s --check-prefix=RED
// RUN: tb-run --interpret %s --function reductions --input %t/in/output_1.npy | FileCheck %s --check-prefix=RED
// RUN: tb-run %s --function max_pool --input %t/in/output_2.npy | FileCheck %s --check-prefix=POOL
// RUN: tb-run --interpret %s --function max_pool --input %t/in/output_2.npy | FileCheck %s --check-prefix=POOL
// RUN: tb-run %s --function max_pool_padding --input %t/in/output_2.npy | FileCheck %s --check-prefix=PAD
// RUN: tb-run --interpret %s --function max_pool_padding --input %t/in/output_2.npy | FileCheck %s --check-prefix=PAD
// RUN: tb-run %s --function max_pool_ties --input %t/in/output_3.npy | FileCheck %s --check-prefix=TIES
// RUN: tb-run --interpret %s --function max_pool_ties --input %t/in/output_3.npy | FileCheck %s --check-prefix=TIES

// [NaN, -1, 0.5, 2]; [[NaN, 1, 2], [3, NaN, NaN], [1, 2, 3]];
// [NaN, -inf, NaN, 3, NaN, NaN, -inf]; [[0, 5], [5, 0]].
func.func @inputs() -> (tensor<4xf32>, tensor<3x3xf32>, tensor<1x1x7xf32>, tensor<1x1x2x2xf32>) {
  %a = graph.constant dense<[0x7FC00000, 0xBF800000, 0x3F000000, 0x40000000]> : tensor<4xf32>
  %b = graph.constant dense<[[0x7FC00000, 0x3F800000, 0x40000000], [0x40400000, 0x7FC00000, 0x7FC00000], [0x3F800000, 0x40000000, 0x40400000]]> : tensor<3x3xf32>
  %c = graph.constant dense<[[[0x7FC00000, 0xFF800000, 0x7FC00000, 0x40400000, 0x7FC00000, 0x7FC00000, 0xFF800000]]]> : tensor<1x1x7xf32>
  %d = graph.constant dense<[[[[0x00000000, 0x40A00000], [0x40A00000, 0x00000000]]]]> : tensor<1x1x2x2xf32>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<3x3xf32>, tensor<1x1x7xf32>, tensor<1x1x2x2xf32>
}

// ACT: result #0: {{.*}} = [NaN, 0.0, 0.5, 2.0]
// ACT-NEXT: result #1: {{.*}} = [NaN, -0.63212055, 0.5, 2.0]
// ACT-NEXT: result #2: {{.*}} = [NaN, 0.3, 0.6, 0.9]
// HardSwish: onnxruntime's [NaN, -0.3333333, 0.29166666, 1.6666667], within an ulp.
// ACT-NEXT: result #3: {{.*}} = [NaN, -0.333333{{[34]*}}, 0.29166666, 1.666666{{[67]}}]
// ACT-NEXT: result #4: {{.*}} = [NaN, -0.5, 0.5, 0.5]
// ACT-NEXT: result #5: {{.*}} = [NaN, -1.0, 0.5, 2.0]
func.func @activations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %relu = graph.relu %x : tensor<4xf32>
  %celu = graph.celu %x : tensor<4xf32>
  %hsig = graph.hard_sigmoid %x : tensor<4xf32>
  %hswish = graph.hard_swish %x : tensor<4xf32>
  %clip = graph.clip %x {min = -5.000000e-01 : f32, max = 5.000000e-01 : f32} : tensor<4xf32>
  %min = graph.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %relu, %celu, %hsig, %hswish, %clip, %min : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// RED: result #0: {{.*}} = [NaN, NaN, 3.0]
// RED-NEXT: result #1: {{.*}} = [0, 1, 2]
// RED-NEXT: result #2: {{.*}} = [NaN, NaN, 6.0]
func.func @reductions(%x: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) {
  %max = graph.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<3x3xf32>) -> tensor<3xf32>
  %arg = graph.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<3x3xf32>) -> tensor<3xi64>
  %sum = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<3x3xf32>) -> tensor<3xf32>
  return %max, %arg, %sum : tensor<3xf32>, tensor<3xi64>, tensor<3xf32>
}

// POOL: result #0: {{.*}} = {{\[\[\[}}-inf, -inf, 3.0, -inf]]]
// POOL-NEXT: result #1: {{.*}} = {{\[\[\[}}0, 1, 3, 5]]]
func.func @max_pool(%x: tensor<1x1x7xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>) {
  %y:2 = graph.max_pool %x {kernel_shape = array<i64: 2>, pads = array<i64: 1, 1>, strides = array<i64: 2>} : (tensor<1x1x7xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>)
  return %y#0, %y#1 : tensor<1x1x4xf32>, tensor<1x1x4xi64>
}

// A tie: the first maximum in the scan (row 0, column 1) is the index, in row-major (1) and
// in column-major (2) storage order alike, as onnxruntime gives.
// TIES: result #0: {{.*}} = {{\[\[\[\[}}1]]]]
// TIES-NEXT: result #1: {{.*}} = {{\[\[\[\[}}2]]]]
func.func @max_pool_ties(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) {
  %r:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  %c:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  return %r#1, %c#1 : tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>
}

// Pads as large as the kernel (onnxruntime refuses them): a window wholly in the padding
// gives -inf and index -1.
// PAD: result #0: {{.*}} = {{\[\[\[}}-inf, -inf, -inf, -inf, 3.0, -inf, -inf, -inf, -inf]]]
// PAD-NEXT: result #1: {{.*}} = {{\[\[\[}}-1, 0, 1, 2, 3, 4, 5, 6, -1]]]
func.func @max_pool_padding(%x: tensor<1x1x7xf32>) -> (tensor<1x1x9xf32>, tensor<1x1x9xi64>) {
  %y:2 = graph.max_pool %x {kernel_shape = array<i64: 1>, pads = array<i64: 1, 1>} : (tensor<1x1x7xf32>) -> (tensor<1x1x9xf32>, tensor<1x1x9xi64>)
  return %y#0, %y#1 : tensor<1x1x9xf32>, tensor<1x1x9xi64>
}
