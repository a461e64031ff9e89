// RUN: tb-opt --split-input-file --graph-eqsat --mlir-print-debuginfo %s | FileCheck %s
// RUN: tb-opt --split-input-file --pass-pipeline='builtin.module(graph-eqsat{max-iterations=4 max-nodes=1000})' %s | FileCheck %s --check-prefix=PIPE

// An inference batch norm after a conv folds into the conv's weights and bias; the conv
// is located at both input ops.
// CHECK-LABEL: func.func @batchnorm_into_conv
// CHECK-NOT:     graph.batch_normalization
// CHECK:         %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}0.999994993]], {{\[\[}}1.999990e+00]]], {{\[\[\[}}2.99999642]], {{\[\[}}3.99999523]]]]> : tensor<2x2x1x1xf32>
// CHECK:         %[[B:.*]] = graph.constant dense<[0.400000513, 0.0500002354]> : tensor<2xf32>
// CHECK:         %[[C:.*]] = graph.conv %arg0, %[[W]], %[[B]] : {{.*}} loc(fused["bn", "conv"])
// CHECK-NEXT:    return %[[C]]
// PIPE-LABEL: func.func @batchnorm_into_conv
// PIPE-NOT:     graph.batch_normalization
func.func @batchnorm_into_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %s = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %m = graph.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %v = graph.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %c = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %y = graph.batch_normalization %c, %s, %b, %m, %v : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("bn")
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Matmuls sharing their input and constant weights (attention's Q/K/V projections)
// become one matmul on the concatenated weights and a slice per projection.
// CHECK-LABEL: func.func @qkv_batched
// CHECK:         %[[W:.*]] = graph.constant dense_resource<eqsat_folded_{{[0-9]+}}> : tensor<8x24xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<4x8xf32>, tensor<8x24xf32>) -> tensor<4x24xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.slice %[[P]] {axes = array<i64: 1>, ends = array<i64: 8>, starts = array<i64: 0>, steps = array<i64: 1>}
// CHECK-NEXT:    %[[K:.*]] = graph.slice %[[P]] {axes = array<i64: 1>, ends = array<i64: 16>, starts = array<i64: 8>, steps = array<i64: 1>}
// CHECK-NEXT:    %[[V:.*]] = graph.slice %[[P]] {axes = array<i64: 1>, ends = array<i64: 24>, starts = array<i64: 16>, steps = array<i64: 1>}
// CHECK-NEXT:    return %[[Q]], %[[K]], %[[V]]
func.func @qkv_batched(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = graph.constant dense<1.0> : tensor<8x8xf32>
  %b = graph.constant dense<2.0> : tensor<8x8xf32>
  %c = graph.constant dense<3.0> : tensor<8x8xf32>
  %q = graph.matmul %x, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %k = graph.matmul %x, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %v = graph.matmul %x, %c : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %q, %k, %v : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A transpose and its inverse around an elementwise op cancel once the first transpose
// moves past the op: the extracted graph needs no transpose.
// CHECK-LABEL: func.func @transposes_cancel
// CHECK-NEXT:    %[[R:.*]] = graph.relu %arg0 : tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @transposes_cancel(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %t = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %r = graph.relu %t : tensor<4x2x3xf32>
  %u = graph.transpose %r {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %u : tensor<2x3x4xf32>
}

// -----

// x @ a + x @ b with constant a and b is one matmul by the folded sum of the weights.
// CHECK-LABEL: func.func @matmul_factored
// CHECK:         %[[W:.*]] = graph.constant dense<3.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %arg0, %[[W]]
// CHECK-NEXT:    return %[[P]]
func.func @matmul_factored(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %a = graph.constant dense<1.0> : tensor<8x4xf32>
  %b = graph.constant dense<2.0> : tensor<8x4xf32>
  %p = graph.matmul %x, %a : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %q = graph.matmul %x, %b : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = graph.add %p, %q : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// A graph no rule makes cheaper is left exactly as it was.
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT:    %[[A:.*]] = graph.add %arg0, %arg1 : {{.*}} loc("add")
// CHECK-NEXT:    %[[B:.*]] = graph.relu %[[A]] : tensor<4xf32> loc("relu")
// CHECK-NEXT:    return %[[B]]
func.func @unchanged(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
  %b = graph.relu %a : tensor<4xf32> loc("relu")
  return %b : tensor<4xf32>
}

// -----

// Ops the e-graph does not model (here a multi-result split) stay in place as opaque
// leaves; the graph around them is still optimized.
// CHECK-LABEL: func.func @opaque_split
// CHECK:         %[[S:.*]]:2 = graph.split %arg0
// CHECK-NOT:     graph.transpose
// CHECK:         %[[R:.*]] = graph.add %[[S]]#0, %[[S]]#1
// CHECK-NEXT:    return %[[R]]
func.func @opaque_split(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %s:2 = graph.split %x {num_outputs = 2 : i64} : (tensor<4x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %t = graph.transpose %s#0 {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = graph.transpose %t {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = graph.add %u, %s#1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Convs sharing their input, attributes and kernel size become one conv on the
// concatenated weights and biases, and a channel slice per conv.
// CHECK-LABEL: func.func @convs_batched
// CHECK-DAG:     %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<5x2x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = graph.constant dense<{{.*}}> : tensor<5xf32>
// CHECK:         %[[C:.*]] = graph.conv %arg0, %[[W]], %[[B]] {pads = array<i64: 0, 0, 0, 0>} : {{.*}} -> tensor<1x5x4x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.slice %[[C]] {axes = array<i64: 1>, ends = array<i64: 2>, starts = array<i64: 0>, steps = array<i64: 1>}
// CHECK-NEXT:    %[[D:.*]] = graph.slice %[[C]] {axes = array<i64: 1>, ends = array<i64: 5>, starts = array<i64: 2>, steps = array<i64: 1>}
// CHECK-NEXT:    return %[[A]], %[[D]]
func.func @convs_batched(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) {
  %w1 = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b1 = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %w2 = graph.constant dense<[[[[-1.0]], [[0.5]]], [[[0.0]], [[1.0]]], [[[2.0]], [[-2.0]]]]> : tensor<3x2x1x1xf32>
  %b2 = graph.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %a = graph.conv %x, %w1, %b1 {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c = graph.conv %x, %w2, %b2 {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %a, %c : tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// A slice of a matmul's columns is a smaller matmul by the sliced (folded) weights: the
// columns nobody uses are not computed.
// CHECK-LABEL: func.func @matmul_split_by_slice
// CHECK:         %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<2x1xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    return %[[P]]
func.func @matmul_split_by_slice(%x: tensor<3x2xf32>) -> tensor<3x1xf32> {
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %p = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %s = graph.slice %p {axes = array<i64: 1>, ends = array<i64: 2>, starts = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  return %s : tensor<3x1xf32>
}

// -----

// A function holding a graph.if is left as it is: the regions use the function's values
// directly, which rebuilding the e-graph's choice would not rewire (the transposes that
// cancel in @transposes_cancel stay).
// CHECK-LABEL: func.func @if_left_alone
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %arg0
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[T]]
// CHECK-NEXT:    %[[U:.*]] = graph.transpose %[[R]]
// CHECK-NEXT:    %[[Y:.*]] = graph.if %arg1
// CHECK-NEXT:      %[[N:.*]] = graph.neg %[[U]]
// CHECK-NEXT:      graph.yield %[[N]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      graph.yield %[[U]]
// CHECK:         return %[[Y]]
func.func @if_left_alone(%x: tensor<2x3x4xf32>, %c: tensor<i1>) -> tensor<2x3x4xf32> {
  %t = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %r = graph.relu %t : tensor<4x2x3xf32>
  %u = graph.transpose %r {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %0 = graph.if %c : (tensor<i1>) -> tensor<2x3x4xf32> {
    %n = graph.neg %u : tensor<2x3x4xf32>
    graph.yield %n : tensor<2x3x4xf32>
  } else {
    graph.yield %u : tensor<2x3x4xf32>
  }
  return %0 : tensor<2x3x4xf32>
}
