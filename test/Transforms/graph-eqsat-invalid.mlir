// RUN: not tb-opt --pass-pipeline='builtin.module(graph-eqsat{rules=no-such-rule})' %s 2>&1 | FileCheck %s

// An unknown rule name is an error that lists the rules.
// CHECK: error: no rule 'no-such-rule' (rules: add-commute, mul-commute,
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
