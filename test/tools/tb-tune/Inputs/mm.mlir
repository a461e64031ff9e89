// A matmul and a relu: two tasks, the matmul tuned through the micro-kernel's parameters
// and the relu nest through its loop schedule.
"func.func"() <{function_type = (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>, sym_name = "mm"}> ({
^bb0(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>):
  %0 = "graph.matmul"(%a, %b) : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  %1 = "graph.relu"(%0) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  "func.return"(%1) : (tensor<16x16xf32>) -> ()
}) : () -> ()
