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

// A loop that runs no iteration gives its inits.
// CHECK-LABEL: func.func @zero_trip_iter_args
// CHECK-NEXT:    return %arg1, %arg2 : f32, i32
func.func @zero_trip_iter_args(%m: memref<8xf32>, %x: f32, %y: i32) -> (f32, i32) {
  %r:2 = loop.for %i = 8 to 0 iter_args(%a = %x, %b = %y) -> (f32, i32) {
    %v = loop.load %m[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    %t = arith.addi %b, %b : i32
    loop.yield %s, %t : f32, i32
  }
  return %r#0, %r#1 : f32, i32
}

// An iter_arg yielded unchanged is its init throughout: its uses inside and the loop's
// result become the init, and the loop carries only the others.
// CHECK-LABEL: func.func @unchanged_iter_arg
// CHECK:         %[[R:.*]] = loop.for %[[I:.*]] = 0 to %arg3 iter_args(%[[A:.*]] = %arg1) -> (f32) {
// CHECK-NEXT:      %[[V:.*]] = loop.load %arg0[%[[I]]] : memref<8xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[V]] : f32
// CHECK-NEXT:      loop.store %arg2, %arg0[%[[I]]] : memref<8xf32>
// CHECK-NEXT:      loop.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]], %arg2 : f32, f32
func.func @unchanged_iter_arg(%m: memref<8xf32>, %x: f32, %y: f32, %n: index) -> (f32, f32) {
  %r:2 = loop.for %i = 0 to %n iter_args(%a = %x, %b = %y) -> (f32, f32) {
    %v = loop.load %m[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    loop.store %b, %m[%i] : memref<8xf32>
    loop.yield %s, %b : f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

// When no iter_arg is left and the body does nothing, the loop goes away.
// CHECK-LABEL: func.func @only_unchanged
// CHECK-NEXT:    return %arg0 : f32
func.func @only_unchanged(%x: f32, %n: index) -> f32 {
  %r = loop.for %i = 0 to %n iter_args(%a = %x) -> (f32) {
    loop.yield %a : f32
  }
  return %r : f32
}

// An empty loop that runs at least once and yields values from outside gives them.
// CHECK-LABEL: func.func @empty_yields_outside
// CHECK-NEXT:    return %arg1 : f32
func.func @empty_yields_outside(%x: f32, %y: f32) -> f32 {
  %r = loop.for %i = 0 to 4 iter_args(%a = %x) -> (f32) {
    loop.yield %y : f32
  }
  return %r : f32
}

// ... but not when it may run no iteration: then the result is the init.
// CHECK-LABEL: func.func @empty_maybe_zero_trip
// CHECK:         loop.for %{{.*}} = 0 to %arg2 iter_args
func.func @empty_maybe_zero_trip(%x: f32, %y: f32, %n: index) -> f32 {
  %r = loop.for %i = 0 to %n iter_args(%a = %x) -> (f32) {
    loop.yield %y : f32
  }
  return %r : f32
}

// Empty loops without results go away whatever their bounds.
// CHECK-LABEL: func.func @empty_body
// CHECK-NEXT:    return
func.func @empty_body(%n: index) {
  loop.for %i = 0 to %n {
  }
  loop.parallel (%i, %j) = (0, 0) to (%n, 4) {
  }
  return
}
