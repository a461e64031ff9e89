// RUN: tb-opt %s --split-input-file --verify-diagnostics

// Every verifier error of the graph dialect, located at the op: element types, broadcasting,
// attributes and result types against the inferred ones.

func.func @float_only(%x: tensor<4xi32>) {
  // expected-error @+1 {{'graph.sigmoid' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = graph.sigmoid %x : tensor<4xi32>
  return
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'graph.relu' op operand #0 must be statically shaped tensor of signed integer or floating-point values, but got 'tensor<?x4xf32>'}}
  %0 = graph.relu %x : tensor<?x4xf32>
  return
}

// -----

func.func @unsigned_neg(%x: tensor<4xui8>) {
  // expected-error @+1 {{'graph.neg' op operand #0 must be statically shaped tensor of signed integer or floating-point values, but got 'tensor<4xui8>'}}
  %0 = graph.neg %x : tensor<4xui8>
  return
}

// -----

func.func @bool_reduce(%x: tensor<4xi1>) {
  // expected-error @+1 {{'graph.reduce_sum' op operand #0 must be statically shaped tensor of integer or floating-point values, but got 'tensor<4xi1>'}}
  %0 = graph.reduce_sum %x : (tensor<4xi1>) -> tensor<1xi1>
  return
}

// -----

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'graph.add' op operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @variadic_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{'graph.max' op operands are not broadcast-compatible: tensor<2x3xf32>, tensor<3xf32> and tensor<2xf32>}}
  %0 = graph.max %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @element_mismatch(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'graph.mul' op operands #0 and #1 must have the same element type, got tensor<3xf32> and tensor<3xf16>}}
  %0 = graph.mul %a, %b : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @add_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.add' op result type tensor<3xf32> does not match inferred tensor<2x3xf32>}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @compare_result(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.less' op result #0 must be statically shaped tensor of i1 values, but got 'tensor<3xf32>'}}
  %0 = graph.less %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @logic_operands(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.and' op operand #0 must be statically shaped tensor of i1 values, but got 'tensor<3xf32>'}}
  %0 = graph.and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @mod_float(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.mod' op requires fmod = true for floating-point operands}}
  %0 = graph.mod %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_condition(%c: tensor<3xi32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.where' op operand #0 must be statically shaped tensor of i1 values, but got 'tensor<3xi32>'}}
  %0 = graph.where %c, %a, %a : (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_values(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'graph.where' op operands #1 and #2 must have the same element type, got tensor<3xf32> and tensor<3xi32>}}
  %0 = graph.where %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @prelu(%a: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'graph.prelu' op slope: shape [2] does not broadcast to [2, 3]}}
  %0 = graph.prelu %a, %s : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @variadic_empty() {
  // expected-error @+1 {{'graph.sum' op requires at least one operand}}
  %0 = "graph.sum"() : () -> tensor<3xf32>
  return
}

// -----

func.func @clip_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.clip' op attribute 'min' has type i64 but the element type is f32}}
  %0 = graph.clip %a {min = 0 : i64} : tensor<3xf32>
  return
}

// -----

func.func @gelu(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.gelu' op attribute 'approximate' is "erf", expected one of "none", "tanh"}}
  %0 = graph.gelu %a {approximate = "erf"} : tensor<3xf32>
  return
}

// -----

func.func @alpha_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %0 = graph.leaky_relu %a {alpha = 0.1 : f64} : tensor<3xf32>
  return
}

// -----

func.func @unary_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.exp' op result type tensor<4xf32> does not match inferred tensor<3xf32>}}
  %0 = "graph.exp"(%a) : (tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @is_nan(%a: tensor<3xi32>) {
  // expected-error @+1 {{'graph.is_nan' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<3xi32>'}}
  %0 = graph.is_nan %a : (tensor<3xi32>) -> tensor<3xi1>
  return
}

// -----

func.func @cast(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.cast' op result type tensor<3xi32> does not match inferred tensor<3xf16>}}
  %0 = graph.cast %a {to = f16} : (tensor<3xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @cast_to(%a: tensor<3xf32>) {
  // expected-error @+1 {{'graph.cast' op cannot cast to index: not an ONNX element type}}
  %0 = graph.cast %a {to = index} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'graph.matmul' op inner dimensions differ: A [2, 3] has K=3 but B [4, 5] has K=4}}
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'graph.gemm' op C: shape [3] does not broadcast to [2, 5]}}
  %0 = graph.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm_trans(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{'graph.gemm' op inner dimensions differ: A' is 3x2 but B' is 3x5 (transA=true, transB=false)}}
  %0 = graph.gemm %a, %b {trans_a = true} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

// Integer convolutions sum in i32 or i64; 8-bit operands are widened first.
func.func @conv_int(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xui8>) {
  // expected-error @+1 {{'graph.conv' op operand #0 must be statically shaped tensor of floating-point, i32 or i64 values, but got 'tensor<1x3x8x8xui8>'}}
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xui8>) -> tensor<1x4x6x6xui8>
  return
}

// -----

func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op result type tensor<1x4x8x8xf32> does not match inferred tensor<1x4x6x6xf32>}}
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op input has 3 channels but weight expects 2 (group=1)}}
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'graph.conv' op bias must be [4], got [3]}}
  %0 = graph.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op attribute 'auto_pad' is "SAME", expected one of "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}}
  %0 = graph.conv %x, %w {auto_pad = "SAME"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op attribute 'group' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = graph.conv %x, %w {group = 1.0 : f32} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op strides has 1 values but there are 2 spatial dimensions}}
  %0 = graph.conv %x, %w {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @conv_kernel_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op kernel_shape [5, 5] does not match the weight's spatial dims [3, 3]}}
  %0 = graph.conv %x, %w {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_transpose(%x: tensor<1x8x5x5xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+1 {{'graph.conv_transpose' op output_shape [10] must list the 2 spatial dimensions}}
  %0 = graph.conv_transpose %x, %w {output_shape = array<i64: 10>} : (tensor<1x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// -----

func.func @max_pool_kernel(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'graph.max_pool' op requires attribute 'kernel_shape'}}
  %0 = graph.max_pool %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @pool_large(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'graph.average_pool' op spatial dimension 0: the (dilated) kernel of size 5 is larger than the padded input of size 4}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 5, 5>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @pool_storage_order(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'graph.max_pool' op storage_order must be 0 or 1, got 2}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @pool_indices(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'graph.max_pool' op result #1 must be statically shaped tensor of i64 values, but got 'tensor<1x1x3x3xi32>'}}
  %0:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi32>)
  return
}

// -----

func.func @global_pool(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.global_average_pool' op input must be [N, C, D1, ...] with at least one spatial dimension, got [2, 3]}}
  %0 = graph.global_average_pool %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'graph.batch_normalization' op input_var must be [3] (one value per channel), got [4]}}
  %0 = graph.batch_normalization %x, %s, %s, %s, %v : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @instance_norm(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'graph.instance_normalization' op B must be [3] (one value per channel), got [2]}}
  %0 = graph.instance_normalization %x, %s, %b : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'graph.layer_normalization' op axis 2 is out of range for rank 2}}
  %0 = graph.layer_normalization %x, %s {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_results(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'graph.layer_normalization' op has 4 results, at most 3 (Y, Mean, InvStdDev)}}
  %0:4 = graph.layer_normalization %x, %s : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_stats(%x: tensor<2x3xf16>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'graph.layer_normalization' op result #1 type tensor<2x1xf16> does not match inferred tensor<2x1xf32>}}
  %0:2 = graph.layer_normalization %x, %s : (tensor<2x3xf16>, tensor<3xf16>) -> (tensor<2x3xf16>, tensor<2x1xf16>)
  return
}

// -----

func.func @softmax(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.softmax' op axis 2 is out of range for rank 2}}
  %0 = graph.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @reshape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot infer -1 in [4, -1]: 6 elements of [2, 3] do not divide by 4}}
  %0 = graph.reshape %x {shape = array<i64: 4, -1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op requires attribute 'shape'}}
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @reshape_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op result type tensor<6xf16> does not match inferred tensor<6xf32>}}
  %0 = graph.reshape %x {shape = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

func.func @flatten(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.flatten' op axis 3 is out of range [-2, 2]}}
  %0 = graph.flatten %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @transpose(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.transpose' op perm [0, 0] is not a permutation of 0..2}}
  %0 = graph.transpose %x {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @squeeze(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'graph.squeeze' op cannot squeeze axis 1 of [1, 3]: its size is 3, not 1}}
  %0 = graph.squeeze %x {axes = array<i64: 1>} : (tensor<1x3xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @unsqueeze(%x: tensor<3xf32>) {
  // expected-error @+1 {{'graph.unsqueeze' op axis 3 is out of range for rank 2}}
  %0 = graph.unsqueeze %x {axes = array<i64: 3>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// -----

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'graph.concat' op input 1 [3, 3] does not match input 0 [2, 3] outside axis 1}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{'graph.concat' op operands #0 and #1 must have the same element type, got tensor<2x3xf32> and tensor<2x3xi32>}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @split_sum(%x: tensor<6xf32>) {
  // expected-error @+1 {{'graph.split' op split [1, 2] must be non-negative and sum to the axis size 6}}
  %0:2 = graph.split %x {split = array<i64: 1, 2>} : (tensor<6xf32>) -> (tensor<1xf32>, tensor<2xf32>)
  return
}

// -----

func.func @split_count(%x: tensor<6xf32>) {
  // expected-error @+1 {{'graph.split' op has 2 results but splits into 3}}
  %0:2 = graph.split %x {num_outputs = 3 : i64} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @slice(%x: tensor<6xf32>) {
  // expected-error @+1 {{'graph.slice' op step for axis 0 is 0}}
  %0 = graph.slice %x {ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 0>} : (tensor<6xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<6xf32>) {
  // expected-error @+1 {{'graph.slice' op result type tensor<4xf32> does not match inferred tensor<3xf32>}}
  %0 = graph.slice %x {ends = array<i64: 4>, starts = array<i64: 1>} : (tensor<6xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_indices(%x: tensor<6xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'graph.gather' op operand #1 must be statically shaped tensor of i32 or i64 values, but got 'tensor<2xf32>'}}
  %0 = graph.gather %x, %i : (tensor<6xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<6xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'graph.gather' op axis 1 is out of range for rank 1}}
  %0 = graph.gather %x, %i {axis = 1 : i64} : (tensor<6xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_elements(%x: tensor<3x3xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+1 {{'graph.gather_elements' op indices [2, 4] exceed data [3, 3] in dimension 1}}
  %0 = graph.gather_elements %x, %i : (tensor<3x3xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @expand(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.expand' op shapes [3, 4], [2, 1] are not broadcastable (dimension 0 of the result: 3 vs 2)}}
  %0 = graph.expand %x {shape = array<i64: 2, 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'mode' is "mirror", expected one of "constant", "reflect", "edge", "wrap"}}
  %0 = graph.pad %x {mode = "mirror", pads = array<i64: 0, 0, 0, 0>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_value(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'constant_value' has type i32 but the element type is f32}}
  %0 = graph.pad %x {constant_value = 0 : i32, pads = array<i64: 0, 0, 0, 0>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_value_mode(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.pad' op constant_value is only allowed with mode "constant", not "edge"}}
  %0 = graph.pad %x {constant_value = 0.0 : f32, mode = "edge", pads = array<i64: 0, 0, 0, 0>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.pad' op pads has 2 values but needs 2 x 2 axes}}
  %0 = graph.pad %x {pads = array<i64: 1, 1>} : (tensor<3x4xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @tile(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'graph.tile' op repeats has 1 values but the input has rank 2}}
  %0 = graph.tile %x {repeats = array<i64: 2>} : (tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @depth_to_space(%x: tensor<1x6x2x3xf32>) {
  // expected-error @+1 {{'graph.depth_to_space' op 6 channels are not divisible by blocksize² = 4}}
  %0 = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x6x2x3xf32>) -> tensor<1x1x4x6xf32>
  return
}

// -----

func.func @depth_to_space_mode(%x: tensor<1x8x2x3xf32>) {
  // expected-error @+1 {{'graph.depth_to_space' op attribute 'mode' is "RDC", expected one of "DCR", "CRD"}}
  %0 = graph.depth_to_space %x {blocksize = 2 : i64, mode = "RDC"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return
}

// -----

func.func @space_to_depth(%x: tensor<1x2x3x6xf32>) {
  // expected-error @+1 {{'graph.space_to_depth' op spatial dims 3x6 are not divisible by blocksize 2}}
  %0 = graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x3x6xf32>) -> tensor<1x8x1x3xf32>
  return
}

// -----

func.func @reduce_axes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reduce_mean' op axis -2 is repeated in [0, -2]}}
  %0 = graph.reduce_mean %x {axes = array<i64: 0, -2>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reduce_sum' op result type tensor<2xf32> does not match inferred tensor<2x1xf32>}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @arg_max_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.arg_max' op result #0 must be statically shaped tensor of i64 values, but got 'tensor<1x3xi32>'}}
  %0 = graph.arg_max %x : (tensor<2x3xf32>) -> tensor<1x3xi32>
  return
}

// -----

func.func @arg_max_empty(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{'graph.arg_min' op cannot take the arg of an empty axis 1}}
  %0 = graph.arg_min %x {axis = 1 : i64} : (tensor<2x0xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @shape_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.shape' op result #0 must be statically shaped tensor of i64 values, but got 'tensor<2xi32>'}}
  %0 = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @shape_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.shape' op result type tensor<2xi64> does not match inferred tensor<1xi64>}}
  %0 = graph.shape %x {start = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @size() {
  // expected-error @+1 {{'graph.size' op requires a single operand}}
  %0 = "graph.size"() : () -> tensor<i64>
  return
}

// -----

func.func @range_types() {
  // expected-error @+1 {{'graph.range' op start, limit and delta must have one type}}
  %0 = graph.range {delta = 1 : i32, limit = 4 : i64, start = 0 : i64} : tensor<4xi64>
  return
}

// -----

func.func @range_delta() {
  // expected-error @+1 {{'graph.range' op delta must be non-zero}}
  %0 = graph.range {delta = 0 : i64, limit = 4 : i64, start = 0 : i64} : tensor<4xi64>
  return
}

// -----

func.func @range_result() {
  // expected-error @+1 {{'graph.range' op result type tensor<4xi64> does not match inferred tensor<2xi64>}}
  %0 = graph.range {delta = 2 : i64, limit = 4 : i64, start = 0 : i64} : tensor<4xi64>
  return
}

// -----

func.func @constant_of_shape() {
  // expected-error @+1 {{'graph.constant_of_shape' op result type tensor<2xi64> does not match inferred tensor<2xi32>}}
  %0 = graph.constant_of_shape {shape = array<i64: 2>, value = 1 : i32} : tensor<2xi64>
  return
}

// -----

func.func @constant_of_shape_dims() {
  // expected-error @+1 {{'graph.constant_of_shape' op shape has a negative dimension: [-2]}}
  %0 = graph.constant_of_shape {shape = array<i64: -2>} : tensor<2xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'graph.constant' op result type tensor<2xi64> does not match inferred tensor<2xi32>}}
  %0 = "graph.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi64>
  return
}

// -----

func.func @constant_value() {
  // expected-error @+1 {{'graph.constant' op attribute 'value' must be a dense or dense_resource elements attribute}}
  %0 = graph.constant 1 : i64
  return
}

// -----

func.func @constant_element() {
  // expected-error @+1 {{'graph.constant' op value type tensor<2xindex> has no ONNX element type}}
  %0 = graph.constant dense<1> : tensor<2xindex>
  return
}

// -----

// Element counts beyond i64 are an error, not a wrapped shape.
func.func @flatten_overflow(%x: tensor<4294967296x4294967296x2xf32>) {
  // expected-error @+1 {{'graph.flatten' op input [4294967296, 4294967296] has more than 2^63 - 1 elements}}
  %0 = graph.flatten %x {axis = 2 : i64} : (tensor<4294967296x4294967296x2xf32>) -> tensor<0x2xf32>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'graph.reshape' op input [4611686018427387904, 4] has more than 2^63 - 1 elements}}
  %0 = graph.reshape %x {shape = array<i64: -1>} : (tensor<4611686018427387904x4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @if_branch_types(%x: tensor<2x3xf32>, %c: tensor<i1>) {
  // expected-error @+1 {{'graph.if' op else region yields (tensor<6xf32>) but the op's results are (tensor<2x3xf32>)}}
  %0 = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    graph.yield %x : tensor<2x3xf32>
  } else {
    %f = graph.reshape %x {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
    graph.yield %f : tensor<6xf32>
  }
  return
}

// -----

func.func @if_condition_elements(%x: tensor<2x3xf32>, %c: tensor<2xi1>) {
  // expected-error @+1 {{'graph.if' op condition must be a statically shaped tensor of one element, not tensor<2xi1>}}
  %0 = graph.if %c : (tensor<2xi1>) -> tensor<2x3xf32> {
    graph.yield %x : tensor<2x3xf32>
  } else {
    graph.yield %x : tensor<2x3xf32>
  }
  return
}

// -----

func.func @yield_outside_if(%x: tensor<2x3xf32>) {
  %0 = scf.execute_region -> tensor<2x3xf32> {
    // expected-error @+1 {{'graph.yield' op expects parent op 'graph.if'}}
    graph.yield %x : tensor<2x3xf32>
  }
  return
}

// -----

func.func @loop_trip_count_type(%m: tensor<1xi64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.loop' op trip count must be a tensor<i64>, not tensor<1xi64>}}
  %0 = graph.loop %m, %c, %x : (tensor<1xi64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    graph.yield %cond, %a : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_body_arguments(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.loop' op the body's block arguments are (tensor<i64>, tensor<2xf32>) but must be (tensor<i64>, tensor<i1>, tensor<2xf32>)}}
  %0 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %a: tensor<2xf32>):
    graph.yield %c, %a : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_carried_shape_changes(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'graph.loop' op the body's yielded condition and loop-carried values are (tensor<i1>, tensor<3xf32>) but must be (tensor<i1>, tensor<2xf32>)}}
  %0 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    graph.yield %cond, %y : tensor<i1>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_scan_output_type(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'graph.loop' op scan output #0 is tensor<5x3xf32> but the body yields tensor<2xf32>: it must be the yielded type with a leading iteration axis}}
  %0:2 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<5x3xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    graph.yield %cond, %a, %a : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_lengths_differ(%x: tensor<3x2xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{'graph.scan' op scan input #1 has 4 slices along its axis but scan input #0 has 3}}
  %0 = graph.scan %x, %y {num_scan_inputs = 2 : i64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    graph.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_input_axis_range(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'graph.scan' op scan input #0's axis 2 is out of range for rank 2}}
  %0 = graph.scan %x {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 2>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2xf32>):
    graph.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_slice_type(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'graph.scan' op the body's argument for scan input #0 is tensor<3xf32> but a slice of tensor<3x2xf32> along axis 0 is not}}
  %0 = graph.scan %x {num_scan_inputs = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x3xf32> {
  ^bb0(%a: tensor<3xf32>):
    graph.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_output_length(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'graph.scan' op scan output #0 is tensor<4x2xf32> but must be the yielded tensor<2xf32> with 3 iterations inserted at axis 0}}
  %0 = graph.scan %x {num_scan_inputs = 1 : i64} : (tensor<3x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<2xf32>):
    graph.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_directions(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'graph.scan' op 'scan_input_directions' entries must be 0 (forward) or 1 (reverse), not 2}}
  %0 = graph.scan %x {num_scan_inputs = 1 : i64, scan_input_directions = array<i64: 2>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2xf32>):
    graph.yield %a : tensor<2xf32>
  }
  return
}
