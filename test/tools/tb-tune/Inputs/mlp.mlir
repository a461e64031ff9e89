// Two layers of a perceptron: two matmuls of other shapes than mm.mlir's, and a relu that
// occurs twice (one task of weight 2).
"func.func"() <{function_type = (tensor<8x64xf32>, tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>, sym_name = "mlp"}> ({
^bb0(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32>, %w2: tensor<32x32xf32>):
  %0 = "graph.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = "graph.relu"(%0) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = "graph.matmul"(%1, %w2) : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  %3 = "graph.relu"(%2) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  "func.return"(%3) : (tensor<8x32xf32>) -> ()
}) : () -> ()
