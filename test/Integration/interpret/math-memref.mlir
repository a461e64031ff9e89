// math ops round to their format; memref views share storage.
// RUN: tb-run --interpret %s --function math | FileCheck %s --check-prefix=MATH
// RUN: tb-run --interpret %s --function views | FileCheck %s --check-prefix=VIEWS

// MATH: result #0: f32 = 0.84147096
// MATH-NEXT: result #1: f32 = 0.5403023
// MATH-NEXT: result #2: tensor<3xf32> = [-1.0, 0.25, 1.0]
// MATH-NEXT: result #3: i32 = 29
// MATH-NEXT: result #4: f16 = 2.71875
func.func @math() -> (f32, f32, tensor<3xf32>, i32, f16) {
  %one = arith.constant 1.0 : f32
  %s, %c = math.sincos %one : f32
  %v = arith.constant dense<[-3.0, 0.25, 5.0]> : tensor<3xf32>
  %lo = arith.constant dense<-1.0> : tensor<3xf32>
  %hi = arith.constant dense<1.0> : tensor<3xf32>
  %k = math.clampf %v to [%lo, %hi] : tensor<3xf32>
  %b = arith.constant 4 : i32
  %z = math.ctlz %b : i32
  %h = arith.constant 1.0 : f16
  %e = math.exp %h : f16
  return %s, %c, %k, %z, %e : f32, f32, tensor<3xf32>, i32, f16
}

// VIEWS: result #0: memref<2x3xf32> = {{\[\[}}0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
// VIEWS-NEXT: result #1: memref<3xf32> = [3.0, 4.0, 5.0]
func.func @views() -> (memref<2x3xf32>, memref<3xf32>) {
  %m = memref.alloc() : memref<6xf32>
  %e = memref.expand_shape %m [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  loop.for %i = 0 to 6 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    loop.store %f, %m[%i] : memref<6xf32>
  }
  %row = memref.subview %e[1, 0] [1, 3] [1, 1] : memref<2x3xf32> to memref<3xf32, strided<[1], offset: 3>>
  %copy = memref.alloc() : memref<3xf32>
  memref.copy %row, %copy : memref<3xf32, strided<[1], offset: 3>> to memref<3xf32>
  return %e, %copy : memref<2x3xf32>, memref<3xf32>
}
