// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s | FileCheck %s
// RUN: tb-opt --split-input-file --pass-pipeline="builtin.module(convert-loop-to-gpu{block-size=4 max-blocks=2})" %s | FileCheck %s --check-prefix=KNOBS

// A parallel loop becomes a grid of blocks whose threads walk the flattened iterations
// grid-stride; the indices come back by division and remainder.
// CHECK-LABEL: func.func @parallel(
// CHECK:         %[[GRID:.*]] = arith.constant 1 : index
// CHECK:         %[[BLOCK:.*]] = arith.constant 24 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}}, %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BS:.*]] = %[[BLOCK]], %{{.*}}, %{{.*}}) {
// CHECK-NEXT:      %[[SCALED:.*]] = arith.muli %[[BX]], %[[BS]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.addi %[[SCALED]], %[[TX]] : index
// CHECK-NEXT:      loop.for %[[FLAT:.*]] = #{{.*}}(%[[FIRST]]) to 24 step 24 {
// CHECK:             arith.remui %[[FLAT]]
// CHECK:             arith.divui %[[FLAT]]
// CHECK:             loop.load
// CHECK:             loop.store
// CHECK:           gpu.terminator
// CHECK-NOT:     loop.parallel
// KNOBS-LABEL: func.func @parallel(
// KNOBS:         %[[GRID:.*]] = arith.constant 2 : index
// KNOBS:         %[[BLOCK:.*]] = arith.constant 4 : index
// KNOBS:         loop.for %{{.*}} = #{{.*}}(%{{.*}}) to 24 step 8 {
func.func @parallel(%a: memref<4x6xf32>) -> memref<4x6xf32> {
  %out = loop.alloc() : memref<4x6xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 6) {
    %x = loop.load %a[%i, %j] : memref<4x6xf32>
    %y = arith.addf %x, %x : f32
    loop.store %y, %out[%i, %j] : memref<4x6xf32>
  }
  return %out : memref<4x6xf32>
}

// -----

// A sequential loop runs in a kernel of one thread; allocations stay outside.
// CHECK-LABEL: func.func @sequential(
// CHECK:         %[[OUT:.*]] = loop.alloc() : memref<8xf32>
// CHECK:         gpu.launch
// CHECK-NEXT:      loop.for
// CHECK:         return %[[OUT]]
func.func @sequential(%a: memref<8xf32>) -> memref<8xf32> {
  %out = loop.alloc() : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  %sum = loop.for %i = 0 to 8 iter_args(%acc = %zero) -> (f32) {
    %x = loop.load %a[%i] : memref<8xf32>
    %next = arith.addf %acc, %x : f32
    loop.store %next, %out[%i] : memref<8xf32>
    loop.yield %next : f32
  }
  return %out : memref<8xf32>
}

// -----

// A scalar computed before a parallel loop reaches it through a 0-d buffer.
// CHECK-LABEL: func.func @scalar_across_kernels(
// CHECK:         %[[SLOT:.*]] = loop.alloc() : memref<f32>
// CHECK:         gpu.launch
// CHECK:           %[[S:.*]] = loop.load %arg0[%{{.*}}] : memref<4xf32>
// CHECK:           loop.store %[[S]], %[[SLOT]][] : memref<f32>
// CHECK:         gpu.launch
// CHECK:           %[[RELOAD:.*]] = loop.load %[[SLOT]][] : memref<f32>
// CHECK:           arith.addf %{{.*}}, %[[RELOAD]] : f32
func.func @scalar_across_kernels(%a: memref<4xf32>) -> memref<4xf32> {
  %out = loop.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %s = loop.load %a[%c0] : memref<4xf32>
  loop.parallel (%i) = (0) to (4) {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %s : f32
    loop.store %y, %out[%i] : memref<4xf32>
  }
  return %out : memref<4xf32>
}

// -----

// A returned view is copied into a buffer of its own, by a mapped parallel loop.
// CHECK-LABEL: func.func @returned_view(
// CHECK:         %[[VIEW:.*]] = memref.view
// CHECK:         %[[OWN:.*]] = loop.alloc() : memref<2x2xf32>
// CHECK:         gpu.launch
// CHECK:           loop.load %[[VIEW]]
// CHECK:           loop.store %{{.*}}, %[[OWN]]
// CHECK:         return %[[OWN]] : memref<2x2xf32>
func.func @returned_view(%arena: memref<64xi8>) -> memref<2x2xf32> {
  %c16 = arith.constant 16 : index
  %view = memref.view %arena[%c16][] : memref<64xi8> to memref<2x2xf32>
  return %view : memref<2x2xf32>
}

// -----

// Launches already there are kept; an empty loop needs no kernel.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT:     gpu.launch
func.func @kept(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  loop.parallel (%i) = (0) to (0) {
    %x = loop.load %a[%i] : memref<4xf32>
    loop.store %x, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// A scalar used after a host op (a deallocation) is reloaded inside the kernel that uses it.
// CHECK-LABEL: func.func @reload_after_host_op(
// CHECK:         %[[SLOT:.*]] = loop.alloc() : memref<f32>
// CHECK:         gpu.launch
// CHECK:           loop.store %{{.*}}, %[[SLOT]][] : memref<f32>
// CHECK:         loop.dealloc
// CHECK-NEXT:    arith.constant
// CHECK:         gpu.launch
// CHECK-NEXT:      %[[RELOAD:.*]] = loop.load %[[SLOT]][] : memref<f32>
// CHECK-NEXT:      arith.mulf %[[RELOAD]], %[[RELOAD]] : f32
func.func @reload_after_host_op(%a: memref<1xf32>) -> memref<1xf32> {
  %tmp = loop.alloc() : memref<1xf32>
  %out = loop.alloc() : memref<1xf32>
  %c0 = arith.constant 0 : index
  %s = loop.load %a[%c0] : memref<1xf32>
  loop.dealloc %tmp : memref<1xf32>
  %t = arith.mulf %s, %s : f32
  loop.store %t, %out[%c0] : memref<1xf32>
  return %out : memref<1xf32>
}
