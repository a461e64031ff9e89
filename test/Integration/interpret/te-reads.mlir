// Padded reads yield their padding outside the input; `te.read_at` reads at computed
// indices, and an index outside its input is a located error.
// RUN: tb-run --interpret %s --function window | FileCheck %s --check-prefix=WINDOW
// RUN: tb-run --interpret %s --function gather | FileCheck %s --check-prefix=GATHER
// RUN: not tb-run --interpret %s --function gather_oob 2>&1 | FileCheck %s --check-prefix=OOB

// WINDOW: result #0: tensor<4xf32> = [3.0, 6.0, 9.0, 7.0]
func.func @window() -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w = te.compute (%a) [%i] reduce [%k] in [3] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0 + d1 - 1)] {padding = 0.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %w : tensor<4xf32>
}

// GATHER: result #0: tensor<2x2xf32> = {{\[\[}}5.0, 6.0], [1.0, 2.0]]
func.func @gather() -> tensor<2x2xf32> {
  %t = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %ids = arith.constant dense<[2, 0]> : tensor<2xi64>
  %g = te.compute (%t, %ids) [%i, %j] {
    %id = te.read %ids[(d0, d1) -> (d0)] : tensor<2xi64>
    %row = arith.index_cast %id : i64 to index
    %x = te.read_at %t[%row, %j] : tensor<3x2xf32>
    te.yield %x : f32
  } : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}

// OOB: te-reads.mlir:[[@LINE+6]]:{{[0-9]+}}: error: 'te.read_at' op reads index 3 of dimension 0 of size 3
func.func @gather_oob() -> tensor<1x2xf32> {
  %t = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %g = te.compute (%t) [%i, %j] {
    %c3 = arith.constant 3 : index
    %row = arith.addi %i, %c3 : index
    %x = te.read_at %t[%row, %j] : tensor<3x2xf32>
    te.yield %x : f32
  } : (tensor<3x2xf32>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}
