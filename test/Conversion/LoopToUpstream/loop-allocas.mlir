// RUN: tb-opt %s --convert-loop-to-upstream | FileCheck %s

// A fused nest's tile per iteration (a memref.alloca in the loop body) becomes a heap
// buffer allocated in the body and freed before its terminator: in MLIR an alloca in a
// loop body would take new stack space on every iteration until the function returns.
// CHECK-LABEL: func.func @tile_per_iteration
// CHECK:       scf.parallel (%[[I:.*]]) =
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4xf32>
// CHECK:         memref.store %{{.*}}, %[[T]]
// CHECK:         memref.load %[[T]]
// CHECK:         memref.dealloc %[[T]] : memref<1x4xf32>
// CHECK-NEXT:    scf.reduce
// CHECK-NOT:   memref.alloca
func.func @tile_per_iteration(%x: memref<8x4xf32>) -> memref<8x4xf32> {
  %y = loop.alloc() : memref<8x4xf32>
  loop.parallel (%i) = (0) to (8) {
    %t = memref.alloca() {alignment = 64 : i64} : memref<1x4xf32>
    loop.for %j = 0 to 4 {
      %v = loop.load %x[%i, %j] : memref<8x4xf32>
      loop.store %v, %t[(d0, d1) -> (0, d1)](%i, %j) : memref<1x4xf32>
    }
    loop.for %j = 0 to 4 {
      %v = loop.load %t[(d0, d1) -> (0, d1)](%i, %j) : memref<1x4xf32>
      loop.store %v, %y[%i, %j] : memref<8x4xf32>
    }
  }
  return %y : memref<8x4xf32>
}

// A stack buffer in the function body itself is left as it is.
// CHECK-LABEL: func.func @function_scope
// CHECK:       memref.alloca() : memref<4xf32>
// CHECK-NOT:   memref.dealloc
func.func @function_scope(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloca() : memref<4xf32>
  loop.store %v, %t[%c0] : memref<4xf32>
  %w = loop.load %t[%c0] : memref<4xf32>
  return %w : f32
}
