// RUN: tb-opt %s --split-input-file --verify-diagnostics

// Shape arithmetic is exact: a size that does not fit in 64 bits is a verifier error at
// the op, never a wrapped, negative or zero dimension.

// Pads of i64::MAX: onnxruntime reports the overflow, where a wrapped size once gave a
// 1x1x4x4 tensor of zeros.
func.func @conv_pads_max(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) {
  // expected-error @+1 {{'graph.conv' op the output size of spatial dimension 0 is 18446744073709551618, which overflows a 64-bit dimension}}
  %0 = graph.conv %x, %w {pads = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @max_pool_pads_max(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{'graph.max_pool' op the output size of spatial dimension 0 is 9223372036854775812, which overflows a 64-bit dimension}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 1>, pads = array<i64: 9223372036854775807, 1>} : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  return
}

// -----

func.func @conv_transpose_strides_max(%x: tensor<1x2x3xf32>, %w: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'graph.conv_transpose' op the output size of spatial dimension 0 is 18446744073709551617, which overflows a 64-bit dimension}}
  %0 = graph.conv_transpose %x, %w {strides = array<i64: 9223372036854775807>} : (tensor<1x2x3xf32>, tensor<2x1x3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

func.func @pad_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'graph.pad' op the padded size of axis 0 is 18446744073709551618, which overflows a 64-bit dimension}}
  %0 = graph.pad %x {pads = array<i64: 9223372036854775807, 9223372036854775807>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tile_dimension(%x: tensor<4611686018427387904xf32>) {
  // expected-error @+1 {{'graph.tile' op axis 0 repeated 4 times is 18446744073709551616, which overflows a 64-bit dimension}}
  %0 = graph.tile %x {repeats = array<i64: 4>} : (tensor<4611686018427387904xf32>) -> tensor<4xf32>
  return
}

// -----

// Each dimension fits, their product does not.
func.func @tile_element_count(%x: tensor<4294967296x1xf32>) {
  // expected-error @+1 {{'graph.tile' op result shape [4294967296, 4294967296] has more than 2^63 - 1 elements}}
  %0 = graph.tile %x {repeats = array<i64: 1, 4294967296>} : (tensor<4294967296x1xf32>) -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<9223372036854775807xf32>, %y: tensor<1xf32>) {
  // expected-error @+1 {{'graph.concat' op the sizes along axis 0 add up to more than 2^63 - 1}}
  %0 = graph.concat %x, %y {axis = 0 : i64} : (tensor<9223372036854775807xf32>, tensor<1xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @expand_element_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'graph.expand' op result shape [4294967296, 4294967296, 4] has more than 2^63 - 1 elements}}
  %0 = graph.expand %x {shape = array<i64: 4294967296, 4294967296, 4>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @constant_of_shape_element_count() {
  // expected-error @+1 {{'graph.constant_of_shape' op result shape [4294967296, 4294967296] has more than 2^63 - 1 elements}}
  %0 = graph.constant_of_shape {shape = array<i64: 4294967296, 4294967296>} : tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @range_int_count() {
  // expected-error @+1 {{'graph.range' op the element count is 18446744073709551615, which overflows a 64-bit dimension}}
  %0 = graph.range {delta = 1 : i64, limit = 9223372036854775807 : i64, start = -9223372036854775808 : i64} : tensor<1xi64>
  return
}

// -----

func.func @range_float_count() {
  // expected-error @+1 {{'graph.range' op start 0.0, limit 1e300 and delta 1.0 make 1e300 elements, which overflows a 64-bit dimension}}
  %0 = graph.range {delta = 1.0 : f64, limit = 1.0e300 : f64, start = 0.0 : f64} : tensor<1xf64>
  return
}

// -----

func.func @depth_to_space_height(%x: tensor<1x4x4611686018427387904x1xf32>) {
  // expected-error @+1 {{'graph.depth_to_space' op the output height is 9223372036854775808, which overflows a 64-bit dimension}}
  %0 = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x4x4611686018427387904x1xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @space_to_depth_channels(%x: tensor<1x4611686018427387904x2x2xf32>) {
  // expected-error @+1 {{'graph.space_to_depth' op the output channel count is 18446744073709551616, which overflows a 64-bit dimension}}
  %0 = graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x4611686018427387904x2x2xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

// Flatten multiplies the dimensions on each side of the axis: a product beyond i64 is an
// error, never a negative dimension.
func.func @flatten_negative(%x: tensor<3037000500x3037000500x2xf32>) {
  // expected-error @+1 {{'graph.flatten' op input [3037000500, 3037000500] has more than 2^63 - 1 elements}}
  %0 = graph.flatten %x {axis = 2 : i64} : (tensor<3037000500x3037000500x2xf32>) -> tensor<1x2xf32>
  return
}
