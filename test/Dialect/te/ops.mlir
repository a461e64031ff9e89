// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | tb-opt --allow-unregistered-dialect | FileCheck %s

// A reduction: the domain is the result shape, then the reduction axes.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[C:.*]] = te.compute (%arg0, %arg1) [%[[I:.*]], %[[J:.*]]] reduce [%[[K:.*]]] in [16] combiner = sum {
// CHECK-NEXT:      %[[X:.*]] = te.read %arg0[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
// CHECK-NEXT:      %[[Y:.*]] = te.read %arg1[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      te.yield %[[P]] : f32
// CHECK-NEXT:    } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[C]]
// GENERIC-LABEL: sym_name = "matmul"
// GENERIC:         "te.compute"(%{{.*}}, %{{.*}}) <{combiner = #te.combiner<sum>, reduction_extents = array<i64: 16>}> ({
// GENERIC-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// GENERIC-NEXT:      "te.read"(%{{.*}}) <{map = affine_map<(d0, d1, d2) -> (d0, d2)>}> : (tensor<4x16xf32>) -> f32
// GENERIC:           "te.yield"(%{{.*}}) : (f32) -> ()
// GENERIC-NEXT:    }) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
func.func @matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [16] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
    %p = "arith.mulf"(%x, %y) : (f32, f32) -> f32
    te.yield %p : f32
  } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// Maps may also be written as attributes (`affine_map<...>` or an alias); they print bare.
// Broadcast of a row, transpose, and strided/offset accesses that stay in bounds.
// CHECK-LABEL: func.func @maps
// CHECK:         te.read %arg0[(d0, d1) -> (d1)] : tensor<8xf32>
// CHECK:         te.read %arg1[(d0, d1) -> (d1, d0)] : tensor<8x4xf32>
// CHECK:         te.read %arg2[(d0, d1) -> (d0 * 2 + 1, d1 floordiv 2)] : tensor<9x4xf32>
// CHECK:         te.read %arg3[(d0, d1) -> (d1 mod 3)] : tensor<3xf32>
#transpose = affine_map<(d0, d1) -> (d1, d0)>
func.func @maps(%r: tensor<8xf32>, %t: tensor<8x4xf32>, %s: tensor<9x4xf32>, %m: tensor<3xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%r, %t, %s, %m) [%i, %j] {
    %x = te.read %r[affine_map<(d0, d1) -> (d1)>] : tensor<8xf32>
    %y = te.read %t[#transpose] : tensor<8x4xf32>
    %z = te.read %s[(d0, d1) -> (d0 * 2 + 1, d1 floordiv 2)] : tensor<9x4xf32>
    %w = te.read %m[(d0, d1) -> (d1 mod 3)] : tensor<3xf32>
    %u = "arith.addf"(%x, %y) : (f32, f32) -> f32
    %v = "arith.addf"(%z, %w) : (f32, f32) -> f32
    %o = "arith.addf"(%u, %v) : (f32, f32) -> f32
    te.yield %o : f32
  } : (tensor<8xf32>, tensor<8x4xf32>, tensor<9x4xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// Every combiner; several reduction axes; a rank-0 result.
// CHECK-LABEL: func.func @combiners
// CHECK:         te.compute (%arg0) [] reduce [%{{.*}}, %{{.*}}] in [4, 8] combiner = max {
// CHECK:         combiner = min
// CHECK:         combiner = prod
func.func @combiners(%a: tensor<4x8xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<8xf32>) {
  %0 = te.compute (%a) [] reduce [%i, %j] in [4, 8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<f32>
  %1 = te.compute (%a) [%i] reduce [%j] in [8] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = te.compute (%a) [%j] reduce [%i] in [4] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d1, d0)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<f32>, tensor<4xf32>, tensor<8xf32>
}

// No inputs (the body may use its indices directly); discardable attributes come after
// `attributes`; dynamic extents skip the bound check.
// CHECK-LABEL: func.func @iota
// CHECK:         te.compute () [%[[I:.*]]] attributes {tag = "iota"} {
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[I]] : index to i32
// CHECK:         te.compute (%arg0) [%{{.*}}] {
// CHECK:         } : (tensor<?xf32>) -> tensor<?xf32>
func.func @iota(%d: tensor<?xf32>) -> (tensor<16xi32>, tensor<?xf32>) {
  %0 = te.compute () [%i] attributes {tag = "iota"} {
    %v = "arith.index_cast"(%i) : (index) -> i32
    te.yield %v : i32
  } : () -> tensor<16xi32>
  %1 = te.compute (%d) [%i] {
    %x = te.read %d[(d0) -> (d0 + 3)] : tensor<?xf32>
    te.yield %x : f32
  } : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<16xi32>, tensor<?xf32>
}

// A padded read may leave its input (a 3-tap window over a zero-padded row); `te.read_at`
// reads at computed indices (a gather along axis 0).
// CHECK-LABEL: func.func @padded_and_indexed
// CHECK:         te.read %arg0[(d0, d1) -> (d0 + d1 - 1)] {padding = 0.000000e+00 : f32} : tensor<8xf32>
// CHECK:         %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:    te.read_at %arg1[%[[IDX]], %{{.*}}] : tensor<5x3xf32>
func.func @padded_and_indexed(%a: tensor<8xf32>, %t: tensor<5x3xf32>, %ids: tensor<2xi64>) -> (tensor<8xf32>, tensor<2x3xf32>) {
  %w = te.compute (%a) [%i] reduce [%k] in [3] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0 + d1 - 1)] {padding = 0.0 : f32} : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %g = te.compute (%t, %ids) [%i, %j] {
    %id = te.read %ids[(d0, d1) -> (d0)] : tensor<2xi64>
    %row = arith.index_cast %id : i64 to index
    %x = te.read_at %t[%row, %j] : tensor<5x3xf32>
    te.yield %x : f32
  } : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %w, %g : tensor<8xf32>, tensor<2x3xf32>
}

// Body scalars are signless: a read of a ui8 tensor gives an i8, the unsigned division
// carries the signedness, and the body yields an i8 into the ui8 result.
// CHECK-LABEL: func.func @unsigned
// CHECK:         te.compute (%arg0) [%{{.*}}] {
// CHECK-NEXT:      %[[X:.*]] = te.read %arg0[(d0) -> (d0)] {padding = -1 : i8} : tensor<4xui8>
// CHECK-NEXT:      %[[T:.*]] = arith.constant 3 : i8
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[X]], %[[T]] : i8
// CHECK-NEXT:      te.yield %[[Q]] : i8
// CHECK-NEXT:    } : (tensor<4xui8>) -> tensor<4xui8>
// GENERIC-LABEL: sym_name = "unsigned"
// GENERIC:         "te.read"(%{{.*}}) <{map = affine_map<(d0) -> (d0)>, padding = -1 : i8}> : (tensor<4xui8>) -> i8
func.func @unsigned(%a: tensor<4xui8>) -> tensor<4xui8> {
  %c = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] {padding = -1 : i8} : tensor<4xui8>
    %t = arith.constant 3 : i8
    %q = arith.divui %x, %t : i8
    te.yield %q : i8
  } : (tensor<4xui8>) -> tensor<4xui8>
  return %c : tensor<4xui8>
}

// `te.extract` reads one element of a tensor as a scalar outside any te.compute: no
// indices for a 0-d tensor, one per dimension otherwise; an unsigned tensor gives the
// signless scalar.
// CHECK-LABEL: func.func @extract
// CHECK:         %{{.*}} = te.extract %arg0[] : tensor<i1>
// CHECK:         %{{.*}} = te.extract %arg1[%arg2, %arg2] : tensor<2x3xui8>
// GENERIC-LABEL: sym_name = "extract"
// GENERIC:         "te.extract"(%{{.*}}) : (tensor<i1>) -> i1
// GENERIC:         "te.extract"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xui8>, index, index) -> i8
func.func @extract(%c: tensor<i1>, %t: tensor<2x3xui8>, %i: index) -> (i1, i8) {
  %b = te.extract %c[] : tensor<i1>
  %x = te.extract %t[%i, %i] : tensor<2x3xui8>
  return %b, %x : i1, i8
}

// Run-time control flow on tensors is `scf`: a branch holds te.computes and yields a
// tensor; a te.compute body may use an index defined above it (the loop's induction
// variable reads row %i of the input).
// CHECK-LABEL: func.func @scf_on_tensors
// CHECK:         %[[C:.*]] = te.extract %arg0[] : tensor<i1>
// CHECK:         scf.if %[[C]] -> (tensor<4xf32>) {
// CHECK:           te.compute (%arg1) [%{{.*}}] {
// CHECK:           scf.yield %{{.*}} : tensor<4xf32>
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %arg1 : tensor<4xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<4xf32>) {
// CHECK:           te.compute (%[[A]], %arg2) [%[[J:.*]]] {
// CHECK:             te.read_at %arg2[%[[I]], %[[J]]] : tensor<3x4xf32>
func.func @scf_on_tensors(%c: tensor<i1>, %x: tensor<4xf32>, %rows: tensor<3x4xf32>) -> tensor<4xf32> {
  %cond = te.extract %c[] : tensor<i1>
  %y = scf.if %cond -> (tensor<4xf32>) {
    %n = te.compute (%x) [%j] {
      %v = te.read %x[(d0) -> (d0)] : tensor<4xf32>
      %m = arith.negf %v : f32
      te.yield %m : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %y) -> (tensor<4xf32>) {
    %next = te.compute (%acc, %rows) [%j] {
      %a = te.read %acc[(d0) -> (d0)] : tensor<4xf32>
      %r = te.read_at %rows[%i, %j] : tensor<3x4xf32>
      %s = arith.addf %a, %r : f32
      te.yield %s : f32
    } : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %sum : tensor<4xf32>
}
