// RUN: tb-opt %s --canonicalize | FileCheck %s

// Loops with a dimension of zero trip count run nothing.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT:    return
func.func @empty(%m: memref<8xf32>, %x: f32) {
  loop.for %i = 8 to 8 {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  loop.for %i = 4 to 0 step 2 {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  loop.parallel (%i, %j) = (0, 0) to (8, 0) {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  return
}

// Loops that run at least once, or whose bounds are not constant, stay.
// CHECK-LABEL: func.func @kept
// CHECK:         loop.for %{{.*}} = 0 to 1 {
// CHECK:         loop.for %{{.*}} = 0 to %arg2 {
// CHECK:         loop.parallel
func.func @kept(%m: memref<8xf32>, %x: f32, %n: index) {
  loop.for %i = 0 to 1 {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  loop.for %i = 0 to %n {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  loop.parallel (%i) = (0) to (8) step (8) {
    loop.store %x, %m[%i] : memref<8xf32>
  }
  return
}
