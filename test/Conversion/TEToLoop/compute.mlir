// RUN: tb-opt %s --convert-te-to-loop | FileCheck %s
// RUN: tb-opt %s --convert-te-to-loop | tb-opt --verify-roundtrip > /dev/null

// Elementwise: one loop.parallel over the result, reads through the identity map, the
// body cloned innermost and its value stored.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME:    (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>) -> memref<4x8xf32>
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<4x8xf32>
// CHECK-NEXT:    loop.parallel (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) {
// CHECK-NEXT:      %[[X:.*]] = loop.load %[[A]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:      %[[Y:.*]] = loop.load %[[B]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      loop.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[OUT]] : memref<4x8xf32>
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %y = te.read %b[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// Broadcast: a read keeps its affine map, applied to the induction variables; scalars
// defined outside the compute are used as they are.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%[[ROW:.*]]: memref<8xf32>, %[[SCALE:.*]]: f32)
// CHECK:         loop.parallel (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) {
// CHECK-NEXT:      %[[X:.*]] = loop.load %[[ROW]][(d0, d1) -> (d1)](%[[I]], %[[J]]) : memref<8xf32>
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[X]], %[[SCALE]] : f32
func.func @broadcast(%row: tensor<8xf32>, %scale: f32) -> tensor<4x8xf32> {
  %c = te.compute (%row) [%i, %j] {
    %x = te.read %row[(d0, d1) -> (d1)] : tensor<8xf32>
    %y = arith.mulf %x, %scale : f32
    te.yield %y : f32
  } : (tensor<8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// A sum: the identity is a constant before the nest; the reduction loop inside the
// parallel loop carries the accumulator from it, and the output element is stored once,
// after the reduction.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[OUT:.*]] = loop.alloc() : memref<4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    loop.parallel (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) {
// CHECK-NEXT:      %[[SUM:.*]] = loop.for %[[K:.*]] = 0 to 16 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = loop.load %arg0[(d0, d1, d2) -> (d0, d2)](%[[I]], %[[J]], %[[K]]) : memref<4x16xf32>
// CHECK-NEXT:        %[[Y:.*]] = loop.load %arg1[(d0, d1, d2) -> (d2, d1)](%[[I]], %[[J]], %[[K]]) : memref<16x8xf32>
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:        loop.yield %[[R]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.store %[[SUM]], %[[OUT]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:    }
func.func @matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [16] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// Float max and min start from -inf and +inf and combine with the NaN-propagating
// maximumf/minimumf; a product starts from one.
// CHECK-LABEL: func.func @float_combiners
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:           arith.maximumf
// CHECK:         arith.constant 0x7F800000 : f32
// CHECK:           arith.minimumf
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK:           arith.mulf
func.func @float_combiners(%a: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %max = te.compute (%a) [%i] reduce [%j] in [8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %min = te.compute (%a) [%i] reduce [%j] in [8] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %prod = te.compute (%a) [%i] reduce [%j] in [8] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %max, %min, %prod : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Integer combiners: signed max/min from the type's extremes, wrapping sum and product.
// CHECK-LABEL: func.func @integer_combiners
// CHECK:         arith.constant -2147483648 : i32
// CHECK:           arith.maxsi
// CHECK:         arith.constant 2147483647 : i32
// CHECK:           arith.minsi
// CHECK:         arith.constant 0 : i32
// CHECK:           arith.addi
// CHECK:         arith.constant 1 : i32
// CHECK:           arith.muli
func.func @integer_combiners(%a: tensor<4x8xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %max = te.compute (%a) [%i] reduce [%j] in [8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xi32>
    te.yield %x : i32
  } : (tensor<4x8xi32>) -> tensor<4xi32>
  %min = te.compute (%a) [%i] reduce [%j] in [8] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xi32>
    te.yield %x : i32
  } : (tensor<4x8xi32>) -> tensor<4xi32>
  %sum = te.compute (%a) [%i] reduce [%j] in [8] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xi32>
    te.yield %x : i32
  } : (tensor<4x8xi32>) -> tensor<4xi32>
  %prod = te.compute (%a) [%i] reduce [%j] in [8] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xi32>
    te.yield %x : i32
  } : (tensor<4x8xi32>) -> tensor<4xi32>
  return %max, %min, %sum, %prod : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// A rank-0 result has no parallel loop; its reduction axes nest in order, each inner loop
// starting from its outer loop's iter_arg.
// CHECK-LABEL: func.func @rank0
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<f32>
// CHECK-NEXT:    %[[INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[MAX:.*]] = loop.for %[[I:.*]] = 0 to 4 iter_args(%[[OUTER:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:      %[[ROW:.*]] = loop.for %[[J:.*]] = 0 to 8 iter_args(%[[ACC:.*]] = %[[OUTER]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = loop.load %arg0[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:        loop.yield %[[R]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.yield %[[ROW]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.store %[[MAX]], %[[OUT]][] : memref<f32>
// CHECK-NEXT:    return %[[OUT]] : memref<f32>
func.func @rank0(%a: tensor<4x8xf32>) -> tensor<f32> {
  %m = te.compute (%a) [] reduce [%i, %j] in [4, 8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// A rank-0 elementwise result is a single store; the body may yield an index argument's
// value and use no input at all.
// CHECK-LABEL: func.func @scalar_and_iota
// CHECK:         %[[S:.*]] = loop.alloc() : memref<f32>
// CHECK-NEXT:    %[[X:.*]] = loop.load %arg0[] : memref<f32>
// CHECK-NEXT:    %[[Y:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:    loop.store %[[Y]], %[[S]][] : memref<f32>
// CHECK:         %[[IOTA:.*]] = loop.alloc() : memref<5xindex>
// CHECK-NEXT:    loop.parallel (%[[I:.*]]) = (0) to (5) {
// CHECK-NEXT:      loop.store %[[I]], %[[IOTA]][%[[I]]] : memref<5xindex>
func.func @scalar_and_iota(%a: tensor<f32>) -> (tensor<f32>, tensor<5xindex>) {
  %s = te.compute (%a) [] {
    %x = te.read %a[() -> ()] : tensor<f32>
    %y = arith.negf %x : f32
    te.yield %y : f32
  } : (tensor<f32>) -> tensor<f32>
  %iota = te.compute () [%i] {
    te.yield %i : index
  } : () -> tensor<5xindex>
  return %s, %iota : tensor<f32>, tensor<5xindex>
}

// A padded read computes its index, tests the bounds it may cross, clamps the index into
// the input, loads, and selects the padding outside.
// CHECK-LABEL: func.func @padded
// CHECK:         loop.for %[[K:.*]] = 0 to 3 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[I:.*]], %[[K]] : index
// CHECK-NEXT:      %[[MINUS1:.*]] = arith.constant -1 : index
// CHECK-NEXT:      %[[IDX:.*]] = arith.addi %[[SUM]], %[[MINUS1]] : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[GE:.*]] = arith.cmpi sge, %[[IDX]], %[[ZERO]] : index
// CHECK-NEXT:      %[[UP:.*]] = arith.maxsi %[[IDX]], %[[ZERO]] : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 7 : index
// CHECK-NEXT:      %[[LE:.*]] = arith.cmpi sle, %[[IDX]], %[[LAST]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK-NEXT:      %[[CLAMPED:.*]] = arith.minsi %[[UP]], %[[LAST]] : index
// CHECK-NEXT:      %[[X:.*]] = loop.load %arg0[%[[CLAMPED]]] : memref<8xf32>
// CHECK-NEXT:      %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.select %[[IN]], %[[X]], %[[PAD]] : f32
func.func @padded(%a: tensor<8xf32>) -> tensor<8xf32> {
  %w = te.compute (%a) [%i] reduce [%k] in [3] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0 + d1 - 1)] {padding = 0.0 : f32} : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %w : tensor<8xf32>
}

// Only the bounds a padded index can cross are tested (here: the upper one of a strided
// window, none for the row); a padded read that stays inside is a plain load.
// CHECK-LABEL: func.func @padded_one_side
// CHECK:         loop.for
// CHECK-NOT:       arith.cmpi sge
// CHECK:           %[[LE:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK-NOT:       arith.cmpi
// CHECK:           loop.load %arg0[%{{.*}}, %{{.*}}] : memref<2x9xf32>
// CHECK:           arith.select %[[LE]]
// CHECK:         loop.parallel
// CHECK-NEXT:      loop.load %arg0[(d0) -> (1, d0 floordiv 2)](%{{.*}}) : memref<2x9xf32>
func.func @padded_one_side(%a: tensor<2x9xf32>) -> (tensor<2x5xf32>, tensor<8xf32>) {
  %w = te.compute (%a) [%i, %j] reduce [%k] in [2] combiner = max {
    %x = te.read %a[(d0, d1, d2) -> (d0, d1 * 2 + d2)] {padding = 0xFF800000 : f32} : tensor<2x9xf32>
    te.yield %x : f32
  } : (tensor<2x9xf32>) -> tensor<2x5xf32>
  %h = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (1, d0 floordiv 2)] {padding = 0.0 : f32} : tensor<2x9xf32>
    te.yield %x : f32
  } : (tensor<2x9xf32>) -> tensor<8xf32>
  return %w, %h : tensor<2x5xf32>, tensor<8xf32>
}

// floordiv, ceildiv and mod round towards negative infinity: the truncating divsi/remsi
// are corrected when the remainder is not zero.
// CHECK-LABEL: func.func @padded_division
// CHECK:         %[[FR:.*]] = arith.remsi %[[FX:.*]], %[[TWO:.*]] : index
// CHECK-NEXT:    %[[FQ:.*]] = arith.divsi %[[FX]], %[[TWO]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[FR]], %{{.*}} : index
// CHECK-NEXT:    %[[DOWN:.*]] = arith.subi %[[FQ]], %[[ONE]] : index
// CHECK-NEXT:    arith.select %[[NEG]], %[[DOWN]], %[[FQ]] : index
// CHECK:         arith.cmpi sgt
// CHECK:         arith.addi
// CHECK:         arith.select
// CHECK:         %[[MR:.*]] = arith.remsi %{{.*}}, %[[THREE:.*]] : index
// CHECK-NEXT:    %[[MNEG:.*]] = arith.cmpi slt, %[[MR]], %{{.*}} : index
// CHECK-NEXT:    %[[WRAP:.*]] = arith.addi %[[MR]], %[[THREE]] : index
// CHECK-NEXT:    arith.select %[[MNEG]], %[[WRAP]], %[[MR]] : index
func.func @padded_division(%a: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %f = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 3) floordiv 2)] {padding = 0.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<8xf32>
  %c = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 3) ceildiv 2)] {padding = 0.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<8xf32>
  %m = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 5) mod 3 + 2)] {padding = 0.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<8xf32>
  return %f, %c, %m : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// te.read_at loads at the index values the body computed.
// CHECK-LABEL: func.func @gather
// CHECK:         loop.parallel (%[[I:.*]], %[[J:.*]]) = (0, 0) to (2, 3) {
// CHECK-NEXT:      %[[ID:.*]] = loop.load %arg1[(d0, d1) -> (d0)](%[[I]], %[[J]]) : memref<2xi64>
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:      %[[X:.*]] = loop.load %arg0[%[[ROW]], %[[J]]] : memref<5x3xf32>
// CHECK-NEXT:      loop.store %[[X]], %{{.*}}[%[[I]], %[[J]]] : memref<2x3xf32>
func.func @gather(%t: tensor<5x3xf32>, %ids: tensor<2xi64>) -> tensor<2x3xf32> {
  %g = te.compute (%t, %ids) [%i, %j] {
    %id = te.read %ids[(d0, d1) -> (d0)] : tensor<2xi64>
    %row = arith.index_cast %id : i64 to index
    %x = te.read_at %t[%row, %j] : tensor<5x3xf32>
    te.yield %x : f32
  } : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// Unit result dimensions get no loop, only the index 0, so the parallel loop's outermost
// dimension (the one spread over threads) is a real one, not a batch of one.
// CHECK-LABEL: func.func @unit_dims
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    loop.parallel (%[[C:.*]], %[[W:.*]]) = (0, 0) to (16, 8) {
// CHECK-NEXT:      %[[X:.*]] = loop.load %arg0[%[[ZERO]], %[[C]], %[[ZERO]], %[[W]]] : memref<1x16x1x8xf32>
// CHECK:           loop.store %{{.*}}, %{{.*}}[%[[ZERO]], %[[C]], %[[ZERO]], %[[W]]] : memref<1x16x1x8xf32>
func.func @unit_dims(%a: tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32> {
  %c = te.compute (%a) [%n, %c, %h, %w] {
    %x = te.read %a[(d0, d1, d2, d3) -> (d0, d1, d2, d3)] : tensor<1x16x1x8xf32>
    %y = math.exp %x : f32
    te.yield %y : f32
  } : (tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
  return %c : tensor<1x16x1x8xf32>
}

// A result of ones only is a single element: no loop at all.
// CHECK-LABEL: func.func @all_unit_dims
// CHECK-NOT:     loop.parallel
// CHECK:         loop.for %{{.*}} = 0 to 8 iter_args
func.func @all_unit_dims(%a: tensor<1x8xf32>) -> tensor<1x1xf32> {
  %c = te.compute (%a) [%i, %j] reduce [%k] in [8] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<1x8xf32>
    te.yield %x : f32
  } : (tensor<1x8xf32>) -> tensor<1x1xf32>
  return %c : tensor<1x1xf32>
}

// A unit dimension is indexed with `%c0`. Over the domain a padded read whose map wraps
// (`(d2 + 1) mod 2 - 1`, from a wrap pad of a constant pad that te-fuse composed) stays
// inside the input: d2 is 0, so it reads element 0. It is a plain load, which verifies
// because the constant index is a point ([0, 0]), not any index.
// CHECK-LABEL: func.func @padded_read_over_a_unit_dimension
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         loop.parallel (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 9) {
// CHECK-NEXT:      loop.load %{{.*}}[(d0, d1, d2) -> ((d0 + -2) mod 3 + 1, (d1 + -1) mod 6, (d2 + 1) mod 2 + -1)](%[[I]], %[[J]], %[[C0]])
// CHECK-NOT:       arith.select
func.func @padded_read_over_a_unit_dimension(%x: tensor<4x6x2xf32>) -> tensor<4x9x1xf32> {
  %1 = te.compute (%x) [%i, %j, %k] {
    %2 = te.read %x[(d0, d1, d2) -> ((d0 + -2) mod 3 + 1, (d1 + -1) mod 6, (d2 + 1) mod 2 + -1)] {padding = 1.500000e+00 : f32} : tensor<4x6x2xf32>
    te.yield %2 : f32
  } : (tensor<4x6x2xf32>) -> tensor<4x9x1xf32>
  return %1 : tensor<4x9x1xf32>
}
