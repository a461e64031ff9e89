// RUN: tb-opt --allow-unregistered-dialect --canonicalize --split-input-file %s | FileCheck %s

// A chain of affine.apply composes into one map; a function argument is a valid symbol,
// so it becomes one.
// CHECK-DAG: #[[$COMPOSED:.*]] = affine_map<()[s0] -> (s0 * 2 + 2)>
// CHECK-LABEL: func.func @compose_apply_chain(
// CHECK-SAME:    %[[I:.*]]: index) -> index {
// CHECK-NEXT:    %[[R:.*]] = affine.apply #[[$COMPOSED]]()[%[[I]]]
// CHECK-NEXT:    return %[[R]] : index
func.func @compose_apply_chain(%i: index) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
  %1 = affine.apply affine_map<(d0) -> (d0 * 2)>(%0)
  return %1 : index
}

// -----

// Constant operands become part of the map.
// CHECK-DAG: #[[$SHIFT:.*]] = affine_map<()[s0] -> (s0 - 4)>
// CHECK-LABEL: func.func @constant_symbol(
// CHECK-SAME:    %[[I:.*]]: index) -> index {
// CHECK-NEXT:    %[[R:.*]] = affine.apply #[[$SHIFT]]()[%[[I]]]
// CHECK-NEXT:    return %[[R]] : index
func.func @constant_symbol(%i: index) -> index {
  %c4 = arith.constant 4 : index
  %0 = affine.apply affine_map<(d0)[s0] -> (d0 - s0)>(%i)[%c4]
  return %0 : index
}

// -----

// An apply of constants folds to a constant; one that forwards an operand folds to it.
// CHECK-LABEL: func.func @fold_apply(
// CHECK-SAME:    %[[I:.*]]: index) -> (index, index) {
// CHECK-NEXT:    %[[C:.*]] = arith.constant 14 : index
// CHECK-NEXT:    return %[[C]], %[[I]] : index, index
func.func @fold_apply(%i: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %0 = affine.apply affine_map<(d0) -> (d0 * 4 + 2)>(%c3)
  %1 = affine.apply affine_map<(d0, d1) -> (d1)>(%c3, %i)
  return %0, %1 : index, index
}

// -----

// min/max of constants fold to the smallest/largest.
// CHECK-LABEL: func.func @fold_min_max() -> (index, index) {
// CHECK-DAG:     %[[LO:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[HI:.*]] = arith.constant 9 : index
// CHECK:         return %[[LO]], %[[HI]] : index, index
func.func @fold_min_max() -> (index, index) {
  %c5 = arith.constant 5 : index
  %0 = affine.min affine_map<(d0) -> (d0 - 3, d0, 7)>(%c5)
  %1 = affine.max affine_map<(d0) -> (d0 - 3, d0 + 4, 7)>(%c5)
  return %0, %1 : index, index
}

// -----

// A loop that runs no iteration gives its initial values; an empty loop disappears.
// CHECK-LABEL: func.func @trivial_loops(
// CHECK-SAME:    %[[X:.*]]: f32) -> f32 {
// CHECK-NEXT:    return %[[X]] : f32
func.func @trivial_loops(%x: f32) -> f32 {
  %r = affine.for %i = 10 to 4 iter_args(%a = %x) -> (f32) {
    %y = arith.addf %a, %a : f32
    affine.yield %y : f32
  }
  affine.for %i = 0 to 8 {
  }
  return %r : f32
}

// -----

// An induction variable stays a dim.
// CHECK-DAG: #[[$SCALED:.*]] = affine_map<(d0) -> (d0 * 4 - 4)>
// CHECK-LABEL: func.func @compose_in_loop() {
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 15 {
// CHECK-NEXT:      %[[Y:.*]] = affine.apply #[[$SCALED]](%[[I]])
// CHECK-NEXT:      "use"(%[[Y]]) : (index) -> ()
func.func @compose_in_loop() {
  affine.for %i = 0 to 15 {
    %x = affine.apply affine_map<(d0) -> (d0 - 1)>(%i)
    %y = affine.apply affine_map<(d0) -> (d0 * 4)>(%x)
    "use"(%y) : (index) -> ()
  }
  return
}
