// RUN: tb-opt --pass-pipeline='builtin.module(graph-eqsat,func.func(cse))' --mlir-pass-statistics %s -o /dev/null 2>&1 | FileCheck %s
// RUN: tb-opt --pass-pipeline='builtin.module(graph-eqsat{max-iterations=1})' --mlir-pass-statistics %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// --mlir-pass-statistics prints each pass's counters, summed over the ops it ran on,
// nested like the pipeline.
// CHECK:      ... Pass statistics report ...
// CHECK:      GraphEqsat
// CHECK-NEXT:   (S) {{ *}}2 num-functions - Functions with graph ops
// CHECK-NEXT:   (S) {{ *}}1 num-rewritten - Functions replaced by a cheaper graph
// CHECK:        (S) {{ *}}2 stop-saturated - Functions saturated
// CHECK-NEXT:   (S) {{ *}}0 stop-iteration-limit - Functions stopped by the iteration limit
// CHECK:        (S) {{ *}}1 batchnorm-into-conv - Rewrites by this rule that changed the e-graph
// CHECK:      'func.func' Pipeline
// CHECK-NEXT:   CSE

// A budget that stops saturation is reported per function.
// LIMIT:      GraphEqsat
// LIMIT:        (S) {{ *}}2 num-iterations - Saturation iterations
// LIMIT:        (S) {{ *}}0 stop-saturated - Functions saturated
// LIMIT-NEXT:   (S) {{ *}}2 stop-iteration-limit - Functions stopped by the iteration limit
func.func @bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %s = graph.constant dense<2.0> : tensor<2xf32>
  %c = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_normalization %c, %s, %s, %s, %s : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
func.func @sums(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.add %a, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %b, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
