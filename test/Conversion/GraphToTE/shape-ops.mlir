// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// Data movement is a copy whose read map says where each element comes from.

// Flatten splits the merged dimension again.
// CHECK-LABEL: func.func @flatten
// CHECK: te.compute (%{{.*}}) [%{{.*}}, %{{.*}}] {
// CHECK-NEXT: %[[V:.*]] = te.read %{{.*}}[(d0, d1) -> (d0, d1 floordiv 4, d1 mod 4)] : tensor<2x3x4xf32>
// CHECK-NEXT: te.yield %[[V]] : f32
// CHECK-NEXT: } : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = graph.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// Adding a unit dimension is a plain projection.
// CHECK-LABEL: func.func @unsqueeze
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d0, d2)] : tensor<2x3xf32>
func.func @unsqueeze(%x: tensor<2x3xf32>) -> tensor<2x1x3xf32> {
  %0 = graph.unsqueeze %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}

// A reshape that regroups dimensions goes through the linear index.
// CHECK-LABEL: func.func @reshape_regroup
// CHECK: te.read %{{.*}}[(d0, d1) -> ((d0 * 8 + d1) floordiv 6, (d0 * 8 + d1) mod 6)] : tensor<4x6xf32>
func.func @reshape_regroup(%x: tensor<4x6xf32>) -> tensor<3x8xf32> {
  %0 = graph.reshape %x {shape = array<i64: 3, 8>} : (tensor<4x6xf32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d1, d2, d0)] : tensor<2x3x4xf32>
// CHECK: -> tensor<4x2x3xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// Concat selects among padded reads of its inputs by position along the axis.
// CHECK-LABEL: func.func @concat
// CHECK: te.compute (%[[A:.*]], %[[B:.*]]) [%{{.*}}, %[[J:.*]]] {
// CHECK-NEXT: %[[VA:.*]] = te.read %[[A]][(d0, d1) -> (d0, d1)] {padding = 0.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %[[VB:.*]] = te.read %[[B]][(d0, d1) -> (d0, d1 + -3)] {padding = 0.000000e+00 : f32} : tensor<2x1xf32>
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[IN_A:.*]] = arith.cmpi slt, %[[J]], %[[C3]] : index
// CHECK-NEXT: %[[V:.*]] = arith.select %[[IN_A]], %[[VA]], %[[VB]] : f32
// CHECK-NEXT: te.yield %[[V]] : f32
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @slice_negative_step
// CHECK: te.read %{{.*}}[(d0) -> (d0 * -3 + 8)] : tensor<10xf32>
func.func @slice_negative_step(%x: tensor<10xf32>) -> tensor<3xf32> {
  %0 = graph.slice %x {ends = array<i64: 1>, starts = array<i64: 8>, steps = array<i64: -3>} : (tensor<10xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// CHECK-LABEL: func.func @split
// CHECK: %[[P0:.*]] = te.compute
// CHECK-NEXT: te.read %{{.*}}[(d0) -> (d0)] : tensor<6xf32>
// CHECK: -> tensor<2xf32>
// CHECK: %[[P1:.*]] = te.compute
// CHECK-NEXT: te.read %{{.*}}[(d0) -> (d0 + 2)] : tensor<6xf32>
// CHECK: -> tensor<4xf32>
// CHECK: return %[[P0]], %[[P1]]
func.func @split(%x: tensor<6xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %0:2 = graph.split %x {split = array<i64: 2, 4>} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<4xf32>
}

// Gather reads at the index it loads: negative indices wrap, others are clamped.
// CHECK-LABEL: func.func @gather
// CHECK: te.compute (%[[I:.*]], %[[X:.*]]) [%{{.*}}, %[[J:.*]]] {
// CHECK-NEXT: %[[RAW:.*]] = te.read %[[I]][(d0, d1) -> (d0)] : tensor<2xi64>
// CHECK-NEXT: %[[IDX:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: %[[LOW:.*]] = arith.maxsi
// CHECK-NEXT: %[[K:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK-NEXT: %[[V:.*]] = te.read_at %[[X]][%[[K]], %[[J]]] : tensor<5x3xf32>
// CHECK-NEXT: te.yield %[[V]] : f32
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pad_constant
// CHECK: te.read %{{.*}}[(d0) -> (d0 + -1)] {padding = 2.500000e+00 : f32} : tensor<3xf32>
func.func @pad_constant(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = graph.pad %x {constant_value = 2.5 : f32, pads = array<i64: 1, 2>} : (tensor<3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// Reflect mirrors the position with period 2 (n - 1) and reads there.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[R]], %[[C3]] : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[M:.*]] = arith.subi %[[C4]], %[[R]] : index
// CHECK-NEXT: %[[K:.*]] = arith.select %[[IN]], %[[R]], %[[M]] : index
// CHECK-NEXT: te.read_at %{{.*}}[%[[K]]] : tensor<3xf32>
func.func @pad_reflect(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = graph.pad %x {mode = "reflect", pads = array<i64: 1, 2>} : (tensor<3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pad_wrap
// CHECK: te.read %{{.*}}[(d0) -> ((d0 + -1) mod 3)] : tensor<3xf32>
func.func @pad_wrap(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = graph.pad %x {mode = "wrap", pads = array<i64: 1, 2>} : (tensor<3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @tile
// CHECK: te.read %{{.*}}[(d0, d1) -> (d0 mod 2, d1)] : tensor<2x3xf32>
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.tile %x {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @expand
// CHECK: te.read %{{.*}}[(d0, d1, d2) -> (d1, 0)] : tensor<3x1xf32>
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// DCR: output [c, h * 2 + i, w * 2 + j] is input channel (i * 2 + j) * 2 + c at [h, w].
// CHECK-LABEL: func.func @depth_to_space
// CHECK: te.read %{{.*}}[(d0, d1, d2, d3) -> (d0, d1 + d2 mod 2 * 4 + d3 mod 2 * 2, d2 floordiv 2, d3 floordiv 2)] : tensor<1x8x2x3xf32>
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}
