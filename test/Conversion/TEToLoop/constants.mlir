// RUN: tb-opt %s --convert-te-to-loop | FileCheck %s
// RUN: tb-opt %s --convert-te-to-loop | tb-opt --verify-roundtrip > /dev/null

// Tensor constants become private constant globals at the top of the module, named as
// MLIR's bufferization names them (with a suffix when the name is taken); equal
// constants share a global, and dense_resource initializers keep their blob.
// CHECK:      memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_2x2xi32 : memref<2x2xi32> = dense<7> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense_resource<weights> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_f32 : memref<f32> = dense<5.000000e-01> {alignment = 64 : i64}
// CHECK-NEXT: func.func private @__constant_2xf32()

func.func private @__constant_2xf32()

// CHECK-LABEL: func.func @dense
// CHECK-NEXT:    %[[C:.*]] = memref.get_global @__constant_2xf32_0 : memref<2xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.get_global @__constant_2x2xi32 : memref<2x2xi32>
// CHECK-NEXT:    %[[SAME:.*]] = memref.get_global @__constant_2xf32_0 : memref<2xf32>
// CHECK:           loop.load %[[C]]
// CHECK:           loop.load %[[S]]
// CHECK:           loop.load %[[SAME]]
func.func @dense() -> tensor<2x2xi32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = arith.constant dense<7> : tensor<2x2xi32>
  %same = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = te.compute (%c, %s, %same) [%i, %j] {
    %x = te.read %c[(d0, d1) -> (d1)] : tensor<2xf32>
    %y = te.read %s[(d0, d1) -> (d0, d1)] : tensor<2x2xi32>
    %z = te.read %same[(d0, d1) -> (d0)] : tensor<2xf32>
    %f = arith.addf %x, %z : f32
    %n = arith.fptosi %f : f32 to i32
    %p = arith.addi %n, %y : i32
    te.yield %p : i32
  } : (tensor<2xf32>, tensor<2x2xi32>, tensor<2xf32>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @resource
// CHECK-NEXT:    %[[W:.*]] = memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK-NEXT:    %[[H:.*]] = memref.get_global @__constant_f32 : memref<f32>
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<4xf32>
// CHECK:           loop.load %[[W]][%{{.*}}] : memref<4xf32>
// CHECK:           loop.load %[[H]][(d0) -> ()](%{{.*}}) : memref<f32>
// A returned global is copied: the caller must own the result.
// CHECK:         %[[COPY:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[W]], %[[COPY]]
// CHECK-NEXT:    return %[[OUT]], %[[COPY]]
func.func @resource(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %r = te.compute (%a, %w, %half) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %y = te.read %w[(d0) -> (d0)] : tensor<4xf32>
    %h = te.read %half[(d0) -> ()] : tensor<f32>
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %h : f32
    te.yield %q : f32
  } : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %r, %w : tensor<4xf32>, tensor<4xf32>
}

// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       weights: "0x040000000000803F000000400000404000008040"
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
