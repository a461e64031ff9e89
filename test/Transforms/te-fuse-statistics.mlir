// RUN: tb-opt %s --te-fuse --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// Three kernels of 128-byte tensors (plus a 32-byte bias) become one: the statistics give
// the kernels and the estimated bytes moved before and after.
// CHECK-LABEL: Pass statistics report
// CHECK:       TeFuse
// CHECK-DAG:   (S) 3 kernels-before
// CHECK-DAG:   (S) 1 kernels-after
// CHECK-DAG:   (S) 800 bytes-before
// CHECK-DAG:   (S) 288 bytes-after
// CHECK-DAG:   (S) 2 num-inlined
// CHECK-DAG:   (S) 1 refused-other
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x4xf32> {
  %a = te.compute (%x, %b) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %w = te.read %b[(d0, d1) -> (d1)] : tensor<8xf32>
    %s = arith.addf %v, %w : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = te.compute (%a) [%i, %j] {
    %v = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = te.compute (%r) [%i, %j] {
    %v = te.read %r[(d0, d1) -> (d1, d0)] : tensor<4x8xf32>
    %e = math.tanh %v : f32
    te.yield %e : f32
  } : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
