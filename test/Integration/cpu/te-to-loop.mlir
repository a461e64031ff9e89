// Tensor expressions lowered by convert-te-to-loop and compiled for the host CPU compute
// what the interpreter computes for the te-level functions on the same random inputs
// (results print as memrefs once lowered, as tensors before).
// RUN: tb-opt --convert-te-to-loop %s > %t.mlir
// RUN: tb-run %t.mlir --function matmul --random-inputs 1 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function matmul --random-inputs 1 | diff %t.compiled -
// RUN: tb-run %t.mlir --function conv_relu --random-inputs 1 --threads 2 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function conv_relu --random-inputs 1 | diff %t.compiled -
// RUN: tb-run %t.mlir --function max_pool --random-inputs 1 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function max_pool --random-inputs 1 | diff %t.compiled -
// RUN: tb-run %t.mlir --function normalize_rows --random-inputs 1 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function normalize_rows --random-inputs 1 | diff %t.compiled -
// RUN: tb-run %t.mlir --function gather --random-inputs 1 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function gather --random-inputs 1 | diff %t.compiled -
// RUN: tb-run %t.mlir --function weights_and_calls --random-inputs 1 | sed 's/memref</tensor</' > %t.compiled
// RUN: tb-run --interpret %s --function weights_and_calls --random-inputs 1 | diff %t.compiled -
// tb-run also reads the lowered module from a pipe.
// RUN: tb-opt --convert-te-to-loop %s | tb-run - --function matmul --random-inputs 1 | FileCheck %s
// CHECK: result #0: memref<3x4xf32> = {{\[\[}}

func.func @matmul(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [5] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<3x5xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<5x4xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  } : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}

// A zero-padded 3x3 convolution with stride 2 along rows, then bias and relu.
func.func @conv_relu(%x: tensor<1x2x5x4xf32>, %w: tensor<3x2x3x3xf32>, %bias: tensor<3xf32>) -> tensor<1x3x3x4xf32> {
  %y = te.compute (%x, %w) [%n, %f, %h, %v] reduce [%c, %kh, %kw] in [2, 3, 3] combiner = sum {
    %a = te.read %x[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5 - 1, d3 + d6 - 1)] {padding = 0.0 : f32} : tensor<1x2x5x4xf32>
    %b = te.read %w[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)] : tensor<3x2x3x3xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  } : (tensor<1x2x5x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x4xf32>
  %r = te.compute (%y, %bias) [%n, %f, %h, %v] {
    %a = te.read %y[(d0, d1, d2, d3) -> (d0, d1, d2, d3)] : tensor<1x3x3x4xf32>
    %b = te.read %bias[(d0, d1, d2, d3) -> (d1)] : tensor<3xf32>
    %s = arith.addf %a, %b : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %s, %zero : f32
    te.yield %relu : f32
  } : (tensor<1x3x3x4xf32>, tensor<3xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// A -inf-padded 3-wide max pool with stride 2.
func.func @max_pool(%x: tensor<2x7xf32>) -> tensor<2x4xf32> {
  %y = te.compute (%x) [%n, %o] reduce [%k] in [3] combiner = max {
    %a = te.read %x[(d0, d1, d2) -> (d0, d1 * 2 + d2 - 1)] {padding = 0xFF800000 : f32} : tensor<2x7xf32>
    te.yield %a : f32
  } : (tensor<2x7xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// Three computes in a chain, softmax-like: row max, shifted values, their row sum, and the
// shifted values divided by it.
func.func @normalize_rows(%a: tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<f32>) {
  %max = te.compute (%a) [%i] reduce [%j] in [6] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    te.yield %x : f32
  } : (tensor<3x6xf32>) -> tensor<3xf32>
  %shifted = te.compute (%a, %max) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    %m = te.read %max[(d0, d1) -> (d0)] : tensor<3xf32>
    %d = arith.subf %x, %m : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %d, %one : f32
    te.yield %p : f32
  } : (tensor<3x6xf32>, tensor<3xf32>) -> tensor<3x6xf32>
  %sum = te.compute (%shifted) [%i] reduce [%j] in [6] combiner = sum {
    %x = te.read %shifted[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    te.yield %x : f32
  } : (tensor<3x6xf32>) -> tensor<3xf32>
  %out = te.compute (%shifted, %sum) [%i, %j] {
    %x = te.read %shifted[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    %s = te.read %sum[(d0, d1) -> (d0)] : tensor<3xf32>
    %q = arith.divf %x, %s : f32
    te.yield %q : f32
  } : (tensor<3x6xf32>, tensor<3xf32>) -> tensor<3x6xf32>
  %total = te.compute (%sum) [] reduce [%i] in [3] combiner = prod {
    %x = te.read %sum[(d0) -> (d0)] : tensor<3xf32>
    te.yield %x : f32
  } : (tensor<3xf32>) -> tensor<f32>
  return %out, %total : tensor<3x6xf32>, tensor<f32>
}

// Rows picked by index values (negative ones wrap, as ONNX's Gather does).
func.func @gather(%table: tensor<5x3xf32>, %ids: tensor<4xi64>) -> tensor<4x3xf32> {
  %g = te.compute (%table, %ids) [%i, %j] {
    %id = te.read %ids[(d0, d1) -> (d0)] : tensor<4xi64>
    %raw = arith.index_cast %id : i64 to index
    %c5 = arith.constant 5 : index
    %c0 = arith.constant 0 : index
    %r = arith.remsi %raw, %c5 : index
    %neg = arith.cmpi slt, %r, %c0 : index
    %up = arith.addi %r, %c5 : index
    %row = arith.select %neg, %up, %r : index
    %x = te.read_at %table[%row, %j] : tensor<5x3xf32>
    te.yield %x : f32
  } : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

func.func private @scale(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  %y = te.compute (%a, %w) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %s = te.read %w[(d0) -> (d0)] : tensor<4xf32>
    %p = arith.mulf %x, %s : f32
    te.yield %p : f32
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// Weights from a dense_resource, a dense constant, a call, and an argument returned.
func.func @weights_and_calls(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y = func.call @scale(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %b = arith.constant dense<[1.0, -2.0, 0.5, 4.0]> : tensor<4xf32>
  %z = te.compute (%y, %b) [%i] {
    %x = te.read %y[(d0) -> (d0)] : tensor<4xf32>
    %c = te.read %b[(d0) -> (d0)] : tensor<4xf32>
    %s = arith.addf %x, %c : f32
    te.yield %s : f32
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z, %a, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
