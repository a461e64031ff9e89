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

// -----

// A constant delinearized over a static basis folds; the outermost index is unbounded.
// CHECK-LABEL: func.func @delinearize_constant(
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-NOT:     affine.delinearize_index
// CHECK:         return %[[C3]], %[[C2]], %[[C3]]
func.func @delinearize_constant() -> (index, index, index) {
  %c = arith.constant 47 : index
  %0:3 = affine.delinearize_index %c into (4, 3, 4) : index, index, index
  return %0#0, %0#1, %0#2 : index, index, index
}

// -----

// A unit basis element (here a constant operand) gives index 0 and leaves the basis.
// CHECK-LABEL: func.func @delinearize_unit_basis(
// CHECK-SAME:    %[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[D:.*]]:3 = affine.delinearize_index %[[X]] into (%[[N]], 6) : index, index, index
// CHECK:         return %[[D]]#0, %[[D]]#1, %[[C0]], %[[D]]#2
func.func @delinearize_unit_basis(%x: index, %n: index) -> (index, index, index, index) {
  %c1 = arith.constant 1 : index
  %0:4 = affine.delinearize_index %x into (%n, %c1, 6) : index, index, index, index
  return %0#0, %0#1, %0#2, %0#3 : index, index, index, index
}

// -----

// Constants linearize to a constant, also without an outer bound.
// CHECK-LABEL: func.func @linearize_constants(
// CHECK:         %[[C17:.*]] = arith.constant 17 : index
// CHECK-NEXT:    return %[[C17]]
func.func @linearize_constants() -> index {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %0 = affine.linearize_index [%c3, %c2] by (5) : index
  return %0 : index
}

// -----

// Linearizing every delinearized index over the same basis gives the input back.
// CHECK-LABEL: func.func @linearize_of_delinearize(
// CHECK-SAME:    %[[X:.*]]: index, %{{.*}}: index)
// CHECK-NEXT:    return %[[X]]
func.func @linearize_of_delinearize(%x: index, %n: index) -> index {
  %0:3 = affine.delinearize_index %x into (%n, 4, 8) : index, index, index
  %1 = affine.linearize_index [%0#0, %0#1, %0#2] by (%n, 4, 8) : index
  return %1 : index
}

// -----

// A run of delinearized indices merges into one over the product of its basis; a
// dynamic product is an affine.apply.
// CHECK-DAG: #[[$TWICE:.*]] = affine_map<()[s0] -> (s0 * 2)>
// CHECK-LABEL: func.func @linearize_of_delinearize_run(
// CHECK-SAME:    %[[X:.*]]: index, %[[Y:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT:    %[[D:.*]]:2 = affine.delinearize_index %[[X]] into (2, 32) : index, index
// CHECK-NEXT:    %[[L:.*]] = affine.linearize_index [%[[Y]], %[[D]]#1] by (3, 32) : index
// CHECK-NEXT:    %[[P:.*]] = affine.apply #[[$TWICE]]()[%[[N]]]
// CHECK-NEXT:    %[[E:.*]]:2 = affine.delinearize_index %[[X]] into (%[[M]], %[[P]]) : index, index
// CHECK-NEXT:    return %[[L]], %[[D]]#0, %[[E]]#1
func.func @linearize_of_delinearize_run(%x: index, %y: index, %m: index, %n: index)
    -> (index, index, index) {
  %0:3 = affine.delinearize_index %x into (2, 4, 8) : index, index, index
  %1 = affine.linearize_index [%y, %0#1, %0#2] by (3, 4, 8) : index
  %2:3 = affine.delinearize_index %x into (%m, %n, 2) : index, index, index
  %3 = affine.linearize_index [%2#1, %2#2] by (%n, 2) : index
  return %1, %0#0, %3 : index, index, index
}

// -----

// A delinearization of a disjoint linearization cancels their common tail, and splits
// the last linearized index when the trailing basis elements multiply to its bound.
// CHECK-LABEL: func.func @delinearize_of_disjoint_linearize(
// CHECK-SAME:    %[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[S:.*]]:2 = affine.delinearize_index %[[C]] into (3, 4) : index, index
// CHECK:         return %[[C0]], %[[A]], %[[B]], %[[C]], %[[A]], %[[S]]#0, %[[S]]#1
func.func @delinearize_of_disjoint_linearize(%a: index, %b: index, %c: index)
    -> (index, index, index, index, index, index, index) {
  %0 = affine.linearize_index disjoint [%a, %b, %c] by (5, 3, 7) : index
  %1:4 = affine.delinearize_index %0 into (3, 5, 3, 7) : index, index, index, index
  %2 = affine.linearize_index disjoint [%a, %c] by (5, 12) : index
  %3:3 = affine.delinearize_index %2 into (5, 3, 4) : index, index, index
  return %1#0, %1#1, %1#2, %1#3, %3#0, %3#1, %3#2
      : index, index, index, index, index, index, index
}

// -----

// Linearized indices over a unit basis leave when they are 0 or the op is disjoint, as
// does a leading 0.
// CHECK-LABEL: func.func @linearize_unit_basis(
// CHECK-SAME:    %[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index)
// CHECK-NEXT:    %[[L:.*]] = affine.linearize_index [%[[A]], %[[B]]] by (4, 8) : index
// CHECK-NEXT:    return %[[L]], %[[C]]
func.func @linearize_unit_basis(%a: index, %b: index, %c: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %0 = affine.linearize_index [%a, %c0, %b] by (4, 1, 8) : index
  %1 = affine.linearize_index disjoint [%c0, %a, %c] by (2, 1, 8) : index
  return %0, %1 : index, index
}

// -----

// A single-result affine.max is an affine.apply.
// CHECK-DAG: #[[$SUM:.*]] = affine_map<()[s0, s1] -> (s0 * 2 + s1)>
// CHECK-LABEL: func.func @max_single_result(
// CHECK-SAME:    %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT:    %[[R:.*]] = affine.apply #[[$SUM]]()[%[[B]], %[[A]]]
// CHECK-NEXT:    return %[[R]]
func.func @max_single_result(%a: index, %b: index) -> index {
  %0 = affine.max affine_map<(d0)[s0] -> (d0 + s0 * 2)>(%a)[%b]
  return %0 : index
}

// -----

// Repeated results of a min leave; a max of a max merges into one op; results are
// sorted by their coefficients when all are sums of dims and symbols.
// CHECK-DAG: #[[$DEDUP:.*]] = affine_map<()[s0, s1] -> (s0 floordiv 2, s1)>
// CHECK-DAG: #[[$MERGED:.*]] = affine_map<()[s0, s1, s2] -> (4, s1 - s2, s0 * 2)>
// CHECK-DAG: #[[$SORTED:.*]] = affine_map<()[s0, s1] -> (100, s1 * 3, s0 - s1, s0 + 5)>
// CHECK-LABEL: func.func @min_max_results(
// CHECK-SAME:    %[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index)
// CHECK-NEXT:    %[[D:.*]] = affine.min #[[$DEDUP]]()[%[[A]], %[[B]]]
// CHECK-NEXT:    %[[M:.*]] = affine.max #[[$MERGED]]()[%[[C]], %[[A]], %[[B]]]
// CHECK-NEXT:    %[[S:.*]] = affine.min #[[$SORTED]]()[%[[A]], %[[B]]]
// CHECK-NEXT:    return %[[D]], %[[M]], %[[S]]
func.func @min_max_results(%a: index, %b: index, %c: index) -> (index, index, index) {
  %0 = affine.min affine_map<()[s0, s1] -> (s0 floordiv 2, s1, s0 floordiv 2)>()[%a, %b]
  %1 = affine.max affine_map<()[s0, s1] -> (s0 - s1, 4)>()[%a, %b]
  %2 = affine.max affine_map<()[s0, s1] -> (s1 * 2, s0)>()[%1, %c]
  %3 = affine.min affine_map<()[s0, s1] -> (s1 * 3, s0 + 5, 100, s0 - s1)>()[%a, %b]
  return %0, %2, %3 : index, index, index
}
