// RUN: not tb-opt %s --allow-unregistered-dialect --convert-te-to-loop --mlir-print-ir-after-failure 2>&1 | FileCheck %s

// A conversion that fails for some ops changes nothing: the signature that was converted
// first, the te.compute before the failing ones and the tensor constant after them are
// all back as they were (tensors, te ops, no loop op, no global), and every op that
// failed is reported at its own location, in program order.

// CHECK: IR Dump After ConvertTeToLoop Failed (convert-te-to-loop)
// CHECK-NOT: memref
// CHECK-NOT: loop.
// CHECK-LABEL: func.func @partly_lowerable
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<complex<f32>>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = te.compute (%[[A]]) [%{{.*}}] {
// CHECK-NEXT:      te.read %[[A]]
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      te.yield
// CHECK-NEXT:    } : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = te.compute (%[[Z]]) [] reduce
// CHECK:         } : (tensor<4xcomplex<f32>>) -> tensor<complex<f32>>
// CHECK-NEXT:    %[[U:.*]] = "test.use"(%[[E]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    return %[[E]], %[[S]], %[[U]], %[[C]] : tensor<4xf32>, tensor<complex<f32>>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NOT: memref
// CHECK: all-or-nothing.mlir:[[# @LINE + 8]]:8: error: 'te.compute' op reduces with 'sum' over element type 'complex<f32>', which arith cannot accumulate
// CHECK: all-or-nothing.mlir:[[# @LINE + 13]]:8: error: 'test.use' op operates on tensors, which convert-te-to-loop only converts for te.compute, te.extract, tensor arith.constant, scf.if, scf.for, scf.while, func.call and func.return
func.func @partly_lowerable(%a: tensor<4xf32>, %z: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<complex<f32>>, tensor<4xf32>, tensor<4xf32>) {
  %e = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %y = math.exp %x : f32
    te.yield %y : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  %s = te.compute (%z) [] reduce [%k] in [4] combiner = sum {
    %x = te.read %z[(d0) -> (d0)] : tensor<4xcomplex<f32>>
    te.yield %x : complex<f32>
  } : (tensor<4xcomplex<f32>>) -> tensor<complex<f32>>
  // An op the conversion does not know stays illegal even once its operand became a
  // buffer: legality is decided on the input.
  %u = "test.use"(%e) : (tensor<4xf32>) -> tensor<4xf32>
  %c = arith.constant dense<1.0> : tensor<4xf32>
  return %e, %s, %u, %c : tensor<4xf32>, tensor<complex<f32>>, tensor<4xf32>, tensor<4xf32>
}
