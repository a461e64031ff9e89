// RUN: tb-translate --emit=mlir-upstream %s | FileCheck %s
// RUN: tb-translate --emit=mlir-upstream %s | mlir-opt --verify-each | FileCheck %s --check-prefix=MLIR
// REQUIRES: mlir-opt

// CHECK-DAG: #[[$SHIFT:.*]] = affine_map<(d0, d1) -> (d1 + 1)>
// CHECK-DAG: #[[$TILE:.*]] = affine_map<(d0) -> (d0 + 16, 40)>

// A reduction loop carrying its accumulator becomes scf.for with iter_args; loads and
// stores become memref ops, a shifted index one affine.apply.
// CHECK-LABEL: func.func @row_sums
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:           %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:        %[[J:.*]] = affine.apply #[[$SHIFT]](%[[I]], %[[K]])
// CHECK-NEXT:        %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]] : memref<4x9xf32>
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]] : f32
// CHECK:           memref.store %[[SUM]], %[[BUF]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:      scf.reduce
// MLIR-LABEL: func.func @row_sums
// MLIR:         scf.parallel
// MLIR:           scf.for {{.*}} iter_args
func.func @row_sums(%a: memref<4x9xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<4xf32>
  loop.parallel (%i) = (0) to (4) {
    %s = loop.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[(d0, d1) -> (d0, d1 + 1)](%i, %k) : memref<4x9xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %out[%i] : memref<4xf32>
  }
  return %out : memref<4xf32>
}

// Vector ops become vector.load/store/broadcast/fma; a bound with several results becomes
// affine.min of them; schedule annotations are dropped.
// CHECK-LABEL: func.func @axpy
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[UB:.*]] = affine.min #[[$TILE]](%[[B]])
// CHECK:           scf.for %[[I:.*]] = %[[B]] to %[[UB]] step %{{.*}} {
// CHECK-NEXT:        %[[S:.*]] = "vector.broadcast"(%{{.*}}) : (f32) -> vector<8xf32>
// CHECK-NEXT:        %[[V:.*]] = "vector.load"(%arg0, %[[I]]) : (memref<40xf32>, index) -> vector<8xf32>
// CHECK-NEXT:        %[[W:.*]] = "vector.load"(%arg1, %[[I]]) : (memref<40xf32>, index) -> vector<8xf32>
// CHECK-NEXT:        %[[R:.*]] = "vector.fma"(%[[S]], %[[V]], %[[W]]) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:        "vector.store"(%[[R]], %arg1, %[[I]]) : (vector<8xf32>, memref<40xf32>, index) -> ()
// CHECK-NOT:     vectorize
// MLIR-LABEL: func.func @axpy
// MLIR:         affine.min
// MLIR:         vector.fma
func.func @axpy(%x: memref<40xf32>, %y: memref<40xf32>, %a: f32) {
  loop.for %b = 0 to 40 step 16 {
    loop.for %i = (d0) -> (d0)(%b) to min (d0) -> (d0 + 16, 40)(%b) step 8 vectorize = 8 {
      %s = loop.broadcast %a : f32 to vector<8xf32>
      %v = loop.vector_load %x[%i] : memref<40xf32>, vector<8xf32>
      %w = loop.vector_load %y[%i] : memref<40xf32>, vector<8xf32>
      %r = loop.fma %s, %v, %w : vector<8xf32>
      loop.vector_store %r, %y[%i] : memref<40xf32>, vector<8xf32>
    }
  }
  return
}
