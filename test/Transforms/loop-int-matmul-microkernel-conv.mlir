// RUN: tb-opt %s --pass-pipeline='builtin.module(canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-int-matmul-microkernel{mr=4 nr=8 vector=4 group=2})' | FileCheck %s

// ConvInteger as the import writes it (uint8 input padded with its zero point 131 and
// widened; int8 weights whose widening canonicalize folds into an i32 constant): the conv
// becomes a window product whose A, the 36 output positions by 27 window taps, is packed
// from the padded 8-bit input (the pad stays a uint8 buffer; te-fuse inlines only the
// widening) through the window map, and whose B, the weights, is packed at compile time.
// The products are loop.dots.
// CHECK-LABEL: func.func @conv_integer
// CHECK:         %[[PAD:.*]] = loop.alloc() : memref<1x3x8x8xui8>
// CHECK:         loop.load %{{.*}} : memref<1x3x6x6xui8>
// CHECK:         %[[B:.*]] = memref.get_global @{{.*}}_packed : memref<2x14x16xi16>
// CHECK:         %[[A:.*]] = loop.alloc() : memref<36x14x2xi16>
// CHECK:           %[[X:.*]] = loop.load %[[PAD]][(d0, d1, d2) -> (0, d2 floordiv 9, d0 floordiv 6 + d2 floordiv 3 mod 3, d0 mod 6 + d2 mod 3)]
// CHECK-NEXT:      %[[XW:.*]] = arith.extui %[[X]] : i8 to i16
// CHECK-NEXT:      loop.store %[[XW]], %[[A]]
// CHECK:         loop.parallel
// CHECK-COUNT-8:     loop.dot {{.*}} : vector<4xi32>, vector<2xi16>, vector<8xi16>
func.func @conv_integer(%x: tensor<1x3x6x6xui8>) -> tensor<1x16x6x6xi32> {
  %w8 = graph.constant dense<[[[[1, -2, 3], [-4, 5, -6], [7, -8, 9]], [[-10, 11, -12], [13, -14, 15], [-16, 17, -18]], [[19, -20, 21], [-22, 23, -24], [25, -26, 27]]]]> : tensor<1x3x3x3xi8>
  %w16 = graph.concat %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8, %w8 {axis = 0 : i64} : (tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>, tensor<1x3x3x3xi8>) -> tensor<16x3x3x3xi8>
  %w = graph.cast %w16 {to = i32} : (tensor<16x3x3x3xi8>) -> tensor<16x3x3x3xi32>
  %p = graph.pad %x {constant_value = 131 : ui8, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x6x6xui8>) -> tensor<1x3x8x8xui8>
  %xw = graph.cast %p {to = i32} : (tensor<1x3x8x8xui8>) -> tensor<1x3x8x8xi32>
  %y = graph.conv %xw, %w : (tensor<1x3x8x8xi32>, tensor<16x3x3x3xi32>) -> tensor<1x16x6x6xi32>
  return %y : tensor<1x16x6x6xi32>
}
