// --emit compiles the loop level: a module above it is an error that says how to lower it,
// and --lower runs the CPU pipeline first.
// RUN: not tb-translate %s --emit=llvm-ir 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: graph-level.mlir:[[# @LINE + 10]]:{{[0-9]+}}: error: 'graph.relu' is above the loop level, which --emit compiles: lower the module first (add --lower, or run tb-opt --pass-pipeline='builtin.module(

// For --emit=ptx the hint names the GPU pipeline.
// RUN: not tb-translate %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: error: 'graph.relu' is above the loop level, which --emit compiles: lower the module first (add --lower, or run tb-opt --pass-pipeline='builtin.module({{.*}}loop-gpu-mma, loop-gpu-shared-tile, loop-gpu-register-tile, plan-buffers, convert-loop-to-gpu)')

// RUN: tb-translate %s --lower --emit=llvm-ir | FileCheck %s --check-prefix=LOWERED
// LOWERED: define {{.*}}i32 @tb_relu(ptr

func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
