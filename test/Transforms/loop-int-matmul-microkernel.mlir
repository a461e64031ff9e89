// RUN: tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-int-matmul-microkernel{mr=4 nr=8 vector=4 group=2})' | FileCheck %s
// RUN: not tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-int-matmul-microkernel{mr=4 nr=8 vector=4 group=4})' 2>%t.err | FileCheck %s --check-prefix=QUADS
// RUN: FileCheck %s --check-prefix=QERR < %t.err
// RUN: not tb-opt %s --split-input-file --pass-pipeline='builtin.module(loop-int-matmul-microkernel{nr=6 vector=4})' 2>&1 | FileCheck %s --check-prefix=BAD

// A uint8 5x7 by int8 7x10 matmul as convert-te-to-loop writes MatMulInteger's after
// te-fuse: A and B's first 8 columns are packed as i16 in pairs of k (the last pair
// padded with a zero), columns blocks of 8 run on threads, rows 0..4 in a 4x8 register
// block and row 4 in a 1x8 one, and the last two columns keep the scalar nest.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[A:.*]] = loop.alloc() : memref<5x4x2xi16>
// CHECK:         %[[B:.*]] = loop.alloc() : memref<1x4x16xi16>
// CHECK:           %[[X:.*]] = loop.load %arg1[%{{.*}}, %{{.*}}] : memref<7x10xi8>
// CHECK-NEXT:      %[[W:.*]] = arith.extsi %[[X]] : i8 to i16
// CHECK-NEXT:      loop.store %[[W]], %[[B]][(d0, d1) -> (d0 floordiv 8, d1 floordiv 2, d0 mod 8 * 2 + d1 mod 2)]
// CHECK:           loop.store %{{.*}}, %[[A]][(d0, d1) -> (d0, 3, d1)]
// CHECK:           arith.extui %{{.*}} : i8 to i16
// CHECK:         loop.parallel (%[[J:.*]]) = (0) to (8) step (8) {
// CHECK-NEXT:      loop.for %[[I:.*]] = 0 to 4 step 4 {
// CHECK-NEXT:        %[[INIT:.*]] = loop.broadcast %{{.*}} : i32 to vector<4xi32>
// CHECK-NEXT:        %{{.*}}:8 = loop.for %[[K:.*]] = 0 to 4 iter_args(%{{.*}} = %[[INIT]]
// CHECK-COUNT-4:       loop.vector_load %[[A]]{{.*}} : memref<5x4x2xi16>, vector<2xi16>
// CHECK-COUNT-2:       loop.vector_load %[[B]]{{.*}} : memref<1x4x16xi16>, vector<8xi16>
// CHECK-COUNT-8:       loop.dot {{.*}} : vector<4xi32>, vector<2xi16>, vector<8xi16>
// CHECK:             }
// CHECK-COUNT-8:     loop.vector_store
// CHECK:           loop.for %{{.*}} = 4 to 5 {
// CHECK:             loop.for {{.*}} -> (vector<4xi32>, vector<4xi32>) {
// CHECK-COUNT-2:       loop.dot
// CHECK:         loop.dealloc %[[A]]
// CHECK:         loop.dealloc %[[B]]
// CHECK:         loop.parallel (%{{.*}}, %{{.*}}) = (0, 8) to (5, 10) {
// CHECK:           arith.muli
// With groups of four, the panels keep the bytes and each dot zero-extends A's.
// QUADS-LABEL: func.func @matmul
// QUADS:         %[[A:.*]] = loop.alloc() : memref<5x2x4xi8>
// QUADS:         %[[B:.*]] = loop.alloc() : memref<1x2x32xi8>
// QUADS-NOT:     arith.extui
// QUADS:         loop.dot {{.*}} {unsigned_lhs} : vector<4xi32>, vector<4xi8>, vector<16xi8>
// BAD: loop-int-matmul-microkernel: needs mr and vector >= 1, nr a positive multiple of the vector width 4
func.func @matmul(%a: memref<5x7xui8>, %b: memref<7x10xi8>) -> memref<5x10xi32> {
  %init = arith.constant 7 : i32
  %c = loop.alloc() : memref<5x10xi32>
  loop.parallel (%i, %j) = (0, 0) to (5, 10) {
    %s = loop.for %k = 0 to 7 iter_args(%acc = %init) -> (i32) {
      %x = loop.load %a[%i, %k] : memref<5x7xui8>
      %xw = arith.extui %x : i8 to i32
      %y = loop.load %b[%k, %j] : memref<7x10xi8>
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %acc, %p : i32
      loop.yield %t : i32
    }
    loop.store %s, %c[%i, %j] : memref<5x10xi32>
  }
  return %c : memref<5x10xi32>
}

// -----

// Signed bytes by signed bytes cannot be vpdpbusd's operands: group=4 refuses them.
// QERR: error: loop-int-matmul-microkernel: group=4 needs A of uint8 and B of int8 values
// CHECK-LABEL: func.func @signed_by_signed
// CHECK:         loop.dot {{.*}} : vector<4xi32>, vector<2xi16>, vector<8xi16>
func.func @signed_by_signed(%a: memref<4x4xi8>, %b: memref<4x8xi8>) -> memref<4x8xi32> {
  %zero = arith.constant 0 : i32
  %c = loop.alloc() : memref<4x8xi32>
  loop.parallel (%i, %j) = (0, 0) to (4, 8) {
    %s = loop.for %k = 0 to 4 iter_args(%acc = %zero) -> (i32) {
      %x = loop.load %a[%i, %k] : memref<4x4xi8>
      %xw = arith.extsi %x : i8 to i32
      %y = loop.load %b[%k, %j] : memref<4x8xi8>
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %acc, %p : i32
      loop.yield %t : i32
    }
    loop.store %s, %c[%i, %j] : memref<4x8xi32>
  }
  return %c : memref<4x8xi32>
}

// -----

// f32 matmuls are the f32 micro-kernel's: left unchanged.
// CHECK-LABEL: func.func @float
// CHECK-NOT:     loop.dot
// CHECK:         arith.mulf
func.func @float(%a: memref<4x4xf32>, %b: memref<4x8xf32>) -> memref<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = loop.alloc() : memref<4x8xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 8) {
    %s = loop.for %k = 0 to 4 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<4x4xf32>
      %y = loop.load %b[%k, %j] : memref<4x8xf32>
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %acc, %p : f32
      loop.yield %t : f32
    }
    loop.store %s, %c[%i, %j] : memref<4x8xf32>
  }
  return %c : memref<4x8xf32>
}
