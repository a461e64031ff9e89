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

// Buffers of unsigned (and signed) integers become signless, as MLIR keeps them: the
// scalars loaded from them already are, and the arith ops carry the signedness. A global's
// initializer is re-canonicalized for the signless type (200 as i8 is -56).
// CHECK-LABEL: memref.global "private" constant @bias : memref<2xi8> = dense<[-56, 7]>
// CHECK-LABEL: func.func @unsigned_mean(%arg0: memref<4xi8>) -> memref<1xi8>
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1xi8>
// CHECK:         %[[BIAS:.*]] = memref.get_global @bias : memref<2xi8>
// CHECK:         memref.load %[[BIAS]][%{{.*}}] : memref<2xi8>
// CHECK:         memref.load %arg0[%{{.*}}] : memref<4xi8>
// CHECK:         arith.extui %{{.*}} : i8 to i32
// CHECK:         arith.divui
// CHECK:         memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<1xi8>
// CHECK-NOT:     ui8
// MLIR-LABEL: func.func @unsigned_mean
// MLIR:         arith.divui
memref.global "private" constant @bias : memref<2xui8> = dense<[200, 7]>
func.func @unsigned_mean(%a: memref<4xui8>) -> memref<1xui8> {
  %zero = arith.constant 0 : i32
  %four = arith.constant 4 : i32
  %c0 = arith.constant 0 : index
  %out = loop.alloc() : memref<1xui8>
  %bias = memref.get_global @bias : memref<2xui8>
  %b = loop.load %bias[%c0] : memref<2xui8>
  %bw = arith.extui %b : i8 to i32
  %s = loop.for %k = 0 to 4 iter_args(%acc = %bw) -> (i32) {
    %x = loop.load %a[%k] : memref<4xui8>
    %w = arith.extui %x : i8 to i32
    %n = arith.addi %acc, %w : i32
    loop.yield %n : i32
  }
  %m = arith.divui %s, %four : i32
  %t = arith.trunci %m : i32 to i8
  loop.store %t, %out[%c0] : memref<1xui8>
  return %out : memref<1xui8>
}

// loop.dot (the integer micro-kernels' step) is spelled out: a and b extended to i32, a
// repeated per lane, multiplied with b, and each group position's products added to the
// accumulators.
// CHECK-LABEL: func.func @dot
// CHECK:         %[[A:.*]] = arith.extui %arg1 : vector<2xi8> to vector<2xi32>
// CHECK-NEXT:    %[[B:.*]] = arith.extsi %arg2 : vector<8xi8> to vector<8xi32>
// CHECK-NEXT:    %[[REP:.*]] = "vector.shuffle"(%[[A]], %[[A]]) <{mask = array<i64: 0, 1, 0, 1, 0, 1, 0, 1>}> : (vector<2xi32>, vector<2xi32>) -> vector<8xi32>
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[REP]], %[[B]] : vector<8xi32>
// CHECK-NEXT:    %[[P0:.*]] = "vector.shuffle"(%[[P]], %[[P]]) <{mask = array<i64: 0, 2, 4, 6>}> : (vector<8xi32>, vector<8xi32>) -> vector<4xi32>
// CHECK-NEXT:    %[[S0:.*]] = arith.addi %arg0, %[[P0]] : vector<4xi32>
// CHECK-NEXT:    %[[P1:.*]] = "vector.shuffle"(%[[P]], %[[P]]) <{mask = array<i64: 1, 3, 5, 7>}> : (vector<8xi32>, vector<8xi32>) -> vector<4xi32>
// CHECK-NEXT:    %[[S1:.*]] = arith.addi %[[S0]], %[[P1]] : vector<4xi32>
// CHECK-NEXT:    return %[[S1]] : vector<4xi32>
// MLIR-LABEL: func.func @dot
// MLIR:         vector.shuffle
func.func @dot(%acc: vector<4xi32>, %a: vector<2xi8>, %b: vector<8xi8>) -> vector<4xi32> {
  %r = loop.dot %acc, %a, %b {unsigned_lhs} : vector<4xi32>, vector<2xi8>, vector<8xi8>
  return %r : vector<4xi32>
}

// MLIR 22 does not lower math.isinf to LLVM: it is written as isfinite == isnan (both
// false exactly for infinities).
// CHECK-LABEL: func.func @isinf
// CHECK:         %[[F:.*]] = math.isfinite %arg0 : f32
// CHECK-NEXT:    %[[N:.*]] = math.isnan %arg0 : f32
// CHECK-NEXT:    %[[I:.*]] = arith.cmpi eq, %[[F]], %[[N]] : i1
// CHECK-NEXT:    return %[[I]] : i1
// CHECK-NOT:     math.isinf
// MLIR-LABEL: func.func @isinf
// MLIR:         arith.cmpi eq
func.func @isinf(%x: f32) -> i1 {
  %i = math.isinf %x : f32
  return %i : i1
}

// MLIR cannot translate a dense_resource blob of i1 to LLVM IR: a boolean global gets a
// dense literal (one byte per element in the blob).
// CHECK-LABEL: memref.global "private" constant @mask : memref<2x2xi1> = dense<{{\[}}[true, false], [false, true]]>
// MLIR-LABEL: memref.global "private" constant @mask : memref<2x2xi1> = dense<{{\[}}[true, false], [false, true]]>
memref.global "private" constant @mask : memref<2x2xi1> = dense_resource<mask_blob>
func.func @use_mask() -> memref<2x2xi1> {
  %m = memref.get_global @mask : memref<2x2xi1>
  return %m : memref<2x2xi1>
}

{-#
  dialect_resources: {
    builtin: {
      mask_blob: "0x0100000001000001"
    }
  }
#-}
