// memref.realloc keeps the leading elements; memref.reshape views the same storage with a
// shape read from a memref.
// RUN: tb-run --interpret %s --function grow | FileCheck %s --check-prefix=GROW
// RUN: tb-run --interpret %s --function shrink | FileCheck %s --check-prefix=SHRINK
// RUN: tb-run --interpret %s --function reshape | FileCheck %s --check-prefix=RESHAPE

// GROW: result #0: f32 = 2.0
// GROW-NEXT: result #1: index = 5
func.func @grow() -> (f32, index) {
  %m = memref.alloc() : memref<3xf32>
  %c2 = arith.constant 2 : index
  %v = arith.constant 2.0 : f32
  memref.store %v, %m[%c2] : memref<3xf32>
  %n = arith.constant 5 : index
  %g = memref.realloc %m(%n) : memref<3xf32> to memref<?xf32>
  %x = memref.load %g[%c2] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %d = memref.dim %g, %c0 : memref<?xf32>
  return %x, %d : f32, index
}

// SHRINK: result #0: memref<2xi32> = [7, 8]
func.func @shrink() -> memref<2xi32> {
  %m = memref.alloc() : memref<4xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.constant 7 : i32
  %b = arith.constant 8 : i32
  memref.store %a, %m[%c0] : memref<4xi32>
  memref.store %b, %m[%c1] : memref<4xi32>
  %s = memref.realloc %m : memref<4xi32> to memref<2xi32>
  return %s : memref<2xi32>
}

// RESHAPE: result #0: memref<2x3xf32> = {{\[\[}}0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
func.func @reshape() -> memref<2x3xf32> {
  %m = memref.alloc() : memref<6xf32>
  loop.for %i = 0 to 6 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    loop.store %f, %m[%i] : memref<6xf32>
  }
  %shape = memref.alloc() : memref<2xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2 : index
  %three = arith.constant 3 : index
  memref.store %two, %shape[%c0] : memref<2xindex>
  memref.store %three, %shape[%c1] : memref<2xindex>
  %r = memref.reshape %m(%shape) : (memref<6xf32>, memref<2xindex>) -> memref<2x3xf32>
  return %r : memref<2x3xf32>
}
