// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Convolutions reduce over (input channel, kernel positions). The input is read at
// o * stride + k * dilation - pad, with zero padding only where the window leaves it.

// CHECK-LABEL: func.func @conv_pads_strides_bias
// CHECK: %[[S:.*]] = te.compute (%{{.*}}, %{{.*}}) [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] reduce [%{{.*}}, %{{.*}}, %{{.*}}] in [3, 3, 3] combiner = sum {
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5 + -1, d3 * 2 + d6 + -1)] {padding = 0.000000e+00 : f32} : tensor<1x3x7x7xf32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)] : tensor<4x3x3x3xf32>
// CHECK-NEXT: arith.mulf
// CHECK: te.compute (%[[S]], %{{.*}})
// CHECK-NEXT: te.read %[[S]][(d0, d1, d2, d3) -> (d0, d1, d2, d3)]
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3) -> (d1)] : tensor<4xf32>
// CHECK-NEXT: arith.addf
func.func @conv_pads_strides_bias(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// A window that stays inside the input needs no padding.
// CHECK-LABEL: func.func @conv_valid
// CHECK: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)] : tensor<1x3x8x8xf32>
func.func @conv_valid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// Groups: output channel m reads input channel (m floordiv M/group) * C/group + c; with
// one channel per group (depthwise) that is m + c, c in [0, 1).
// CHECK-LABEL: func.func @depthwise_same
// CHECK: reduce [%{{.*}}, %{{.*}}, %{{.*}}] in [1, 3, 3] combiner = sum
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5 + -1, d3 + d6 + -1)] {padding = 0.000000e+00 : f32}
func.func @depthwise_same(%x: tensor<1x3x5x5xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = graph.conv %x, %w {auto_pad = "SAME_UPPER", group = 3 : i64} : (tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// CHECK-LABEL: func.func @grouped
// CHECK: te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4 + d1 floordiv 3 * 2, d2 * 2 + d5 * 2, d3 * 2 + d6 * 2)] : tensor<1x4x6x6xf32>
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x2x2xf32>) -> tensor<1x6x2x2xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 2, 2>, group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>, tensor<6x2x2x2xf32>) -> tensor<1x6x2x2xf32>
  return %0 : tensor<1x6x2x2xf32>
}

// A strided ConvTranspose is computed per output phase: with o + pad = q * stride + r,
// only taps k = r + j * stride reach o, from input q - j. The phases are computed into
// [n, r0, r1, m, q0, q1] (a 3x3 kernel at stride 2: two taps per phase, the last one read
// as zero past the kernel's end) and interleaved into the output.
// CHECK-LABEL: func.func @conv_transpose(
// CHECK: %[[PH:.*]] = te.compute (%{{.*}}, %{{.*}}) [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] reduce [%{{.*}}, %{{.*}}, %{{.*}}] in [2, 2, 2] combiner = sum
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d6, d4 - d7, d5 - d8)] {padding = 0.000000e+00 : f32}
// CHECK-NEXT: %[[W:.*]] = te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d6, d3, d1 + d7 * 2, d2 + d8 * 2)] {padding = 0.000000e+00 : f32}
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT: te.yield %[[P]] : f32
// CHECK-NEXT: } : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x3x3x3xf32>
// CHECK: te.read %[[PH]][(d0, d1, d2, d3) -> (d0, (d2 + 1) mod 2, (d3 + 1) mod 2, d1, (d2 + 1) floordiv 2, (d3 + 1) floordiv 2)]
// CHECK-NOT: arith.remsi
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = graph.conv_transpose %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// With a dilation, ConvTranspose reads input position (o + pad - k * dilation) / stride
// and keeps only the taps the stride divides exactly.
// CHECK-LABEL: func.func @conv_transpose_dilated
// CHECK: reduce [%{{.*}}, %{{.*}}, %{{.*}}] in [2, 3, 3] combiner = sum
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, -d5 + (d2 + 1) floordiv 2, -d6 + (d3 + 1) floordiv 2)] {padding = 0.000000e+00 : f32}
// CHECK-NEXT: %[[W:.*]] = te.read %{{.*}}[(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)] : tensor<2x3x3x3xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK: %[[R0:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK: %[[D0:.*]] = arith.cmpi eq, %[[R0]], %{{.*}} : index
// CHECK: %[[R1:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK: %[[D1:.*]] = arith.cmpi eq, %[[R1]], %{{.*}} : index
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[D0]], %[[D1]] : i1
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = arith.select %[[E]], %[[P]], %[[Z]] : f32
// CHECK-NEXT: te.yield %[[V]] : f32
func.func @conv_transpose_dilated(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = graph.conv_transpose %x, %w {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}

// An unpadded, ungrouped integer conv (ConvInteger's, after the import padded its input)
// is a window product: rows are output positions, columns output channels, the reduction
// runs over channels and taps (k = c * 9 + kh * 3 + kw), both operands read through one
// affine map; a second compute lays the [positions, channels] result out as NCHW.
// CHECK-LABEL: func.func @conv_integer
// CHECK: %[[P:.*]] = te.compute (%{{.*}}, %{{.*}}) [%{{.*}}, %{{.*}}] reduce [%{{.*}}] in [27] combiner = sum
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (0, d2 floordiv 9, d0 floordiv 4 + d2 floordiv 3 mod 3, d0 mod 4 + d2 mod 3)] : tensor<1x3x6x6xi32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (d1, d2 floordiv 9, d2 floordiv 3 mod 3, d2 mod 3)] : tensor<8x3x3x3xi32>
// CHECK-NEXT: arith.muli
// CHECK: -> tensor<16x8xi32>
// CHECK: te.read %[[P]][(d0, d1, d2, d3) -> (d0 * 16 + d2 * 4 + d3, d1)] : tensor<16x8xi32>
// CHECK: -> tensor<1x8x4x4xi32>
func.func @conv_integer(%x: tensor<1x3x6x6xi32>, %w: tensor<8x3x3x3xi32>) -> tensor<1x8x4x4xi32> {
  %0 = graph.conv %x, %w : (tensor<1x3x6x6xi32>, tensor<8x3x3x3xi32>) -> tensor<1x8x4x4xi32>
  return %0 : tensor<1x8x4x4xi32>
}

// Batches, strides, dilations and 1x1 taps: the image is row floordiv positions, a
// kernel extent of 1 reads tap 0.
// CHECK-LABEL: func.func @conv_integer_batched
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d0 floordiv 6, d2 floordiv 2, d0 floordiv 3 mod 2 * 2, d0 mod 3 + d2 mod 2 * 2)] : tensor<2x4x4x5xi32>
// CHECK-NEXT: te.read %{{.*}}[(d0, d1, d2) -> (d1, d2 floordiv 2, 0, d2 mod 2)] : tensor<3x4x1x2xi32>
// CHECK: -> tensor<12x3xi32>
// CHECK: te.read %{{.*}}[(d0, d1, d2, d3) -> (d0 * 6 + d2 * 3 + d3, d1)] : tensor<12x3xi32>
func.func @conv_integer_batched(%x: tensor<2x4x4x5xi32>, %w: tensor<3x4x1x2xi32>) -> tensor<2x3x2x3xi32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 2>, strides = array<i64: 2, 1>} : (tensor<2x4x4x5xi32>, tensor<3x4x1x2xi32>) -> tensor<2x3x2x3xi32>
  return %0 : tensor<2x3x2x3xi32>
}
