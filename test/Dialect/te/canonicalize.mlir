// RUN: tb-opt --allow-unregistered-dialect %s --canonicalize | FileCheck %s

// A copy through the identity map is its input.
// CHECK-LABEL: func.func @copy
// CHECK-NEXT:    return %arg0 : tensor<4x8xf32>
func.func @copy(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// A transpose, a reduction and a type change are not copies.
// CHECK-LABEL: func.func @not_copies
// CHECK-COUNT-3: te.compute
func.func @not_copies(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf64>) {
  %0 = te.compute (%a) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d1, d0)] : tensor<4x4xf32>
    te.yield %x : f32
  } : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = te.compute (%a) [%i] reduce [%j] in [4] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x4xf32>
    te.yield %x : f32
  } : (tensor<4x4xf32>) -> tensor<4xf32>
  %2 = te.compute (%a) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x4xf32>
    %y = "arith.extf"(%x) : (f32) -> f64
    te.yield %y : f64
  } : (tensor<4x4xf32>) -> tensor<4x4xf64>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf64>
}

// An unused te.compute is pure and goes away.
// CHECK-LABEL: func.func @dead
// CHECK-NOT:     te.compute
func.func @dead(%a: tensor<4xf32>) {
  %0 = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return
}
