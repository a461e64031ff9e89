// `--list-tasks`: each distinct loop nest is a task keyed by its structure and weighted by
// how often it occurs; a matmul is tuned through its micro-kernel's parameters.

// RUN: tb-tune %s --list-tasks | FileCheck %s

// CHECK:      task kernel weight knobs
// CHECK-NEXT: [[MATMUL:[0-9a-f]+]] matmul 1x8x16x32 2 microkernel [7, 4, {{[0-9]+}}, 2, 4, 2]
// CHECK-NEXT: {{[0-9a-f]+}} nest 8x16 1 {{.*}}
// CHECK-NOT:  [[MATMUL]]

"func.func"() <{function_type = (tensor<8x32xf32>, tensor<32x16xf32>, tensor<8x32xf32>) -> tensor<8x16xf32>, sym_name = "twice"}> ({
^bb0(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x32xf32>):
  %0 = "graph.matmul"(%a, %b) : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %1 = "graph.matmul"(%c, %b) : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %2 = "graph.add"(%0, %1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  "func.return"(%2) : (tensor<8x16xf32>) -> ()
}) : () -> ()
