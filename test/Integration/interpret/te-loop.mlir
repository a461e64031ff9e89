// The same matrix product at the te and loop levels: both print the same result, and the
// loop version's output file feeds a second run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tb-run --interpret %s --function inputs --output-dir %t/in | FileCheck %s --check-prefix=IN
// RUN: tb-run --interpret %s --function te_matmul --input %t/in/output_0.npy --input %t/in/output_1.npy | FileCheck %s --check-prefix=MM
// RUN: tb-run --interpret %s --function loop_matmul --input %t/in/output_0.npy --input %t/in/output_1.npy --output-dir %t/out | FileCheck %s --check-prefix=MM
// RUN: not tb-run --interpret %s --function te_matmul --input %t/out/output_0.npy --input %t/in/output_1.npy 2>&1 | FileCheck %s --check-prefix=SHAPE

// IN: result #0: tensor<2x3xf32> = {{\[\[}}1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
// IN: result #1: tensor<3x2xf32> = {{\[\[}}1.0, -1.0], [0.5, 0.0], [2.0, 1.0]]
func.func @inputs() -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[1.0, -1.0], [0.5, 0.0], [2.0, 1.0]]> : tensor<3x2xf32>
  return %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
}

// MM: result #0: {{.*}} = {{\[\[}}8.0, 2.0], [18.5, 2.0]]
func.func @te_matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [3] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<2x3xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<3x2xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  } : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

func.func @loop_matmul(%a: memref<2x3xf32>, %b: memref<3x2xf32>) -> memref<2x2xf32> {
  %c = loop.alloc() : memref<2x2xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (2, 2) step (1, 1) {
    loop.store %zero, %c[%i, %j] : memref<2x2xf32>
    loop.for %k = 0 to 3 {
      %x = loop.load %a[%i, %k] : memref<2x3xf32>
      %y = loop.load %b[%k, %j] : memref<3x2xf32>
      %acc = loop.load %c[%i, %j] : memref<2x2xf32>
      %r = loop.fma %x, %y, %acc : f32
      loop.store %r, %c[%i, %j] : memref<2x2xf32>
    }
  }
  return %c : memref<2x2xf32>
}

// SHAPE: error: argument #0 of 'te_matmul': expected shape [2, 3] for tensor<2x3xf32>, got [2, 2]
