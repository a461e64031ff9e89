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

// -----

// Memory accesses absorb the affine.apply ops computing their indices, and lose the
// operands the composed map does not use.
// CHECK-LABEL: func.func @compose_into_accesses(
// CHECK-SAME:    %[[A:.*]]: memref<100x100xf32>, %[[N:.*]]: index) {
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 10 {
// CHECK-NEXT:      %[[X:.*]] = affine.load %[[A]][%[[I]] * 2 + 1, %[[I]] + symbol(%[[N]])] : memref<100x100xf32>
// CHECK-NEXT:      affine.store %[[X]], %[[A]][%[[I]] + symbol(%[[N]]), %[[I]] * 2 + 1] : memref<100x100xf32>
// CHECK-NEXT:      %[[V:.*]] = affine.vector_load %[[A]][%[[I]] * 2 + 1, %[[I]] + symbol(%[[N]])] : memref<100x100xf32>, vector<4xf32>
// CHECK-NEXT:      affine.vector_store %[[V]], %[[A]][%[[I]] + symbol(%[[N]]), %[[I]] * 2 + 1] : memref<100x100xf32>, vector<4xf32>
// CHECK-NEXT:      affine.prefetch %[[A]][%[[I]] * 2 + 1, %[[I]] + symbol(%[[N]])], read, locality<3>, data : memref<100x100xf32>
// CHECK-NEXT:    }
func.func @compose_into_accesses(%A: memref<100x100xf32>, %n: index) {
  affine.for %i = 0 to 10 {
    %a = affine.apply affine_map<(d0, d1) -> (d0 * 2 + 1)>(%i, %n)
    %b = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]
    %x = affine.load %A[%a, %b] : memref<100x100xf32>
    affine.store %x, %A[%b, %a] : memref<100x100xf32>
    %v = affine.vector_load %A[%a, %b] : memref<100x100xf32>, vector<4xf32>
    affine.vector_store %v, %A[%b, %a] : memref<100x100xf32>, vector<4xf32>
    affine.prefetch %A[%a, %b], read, locality<3>, data : memref<100x100xf32>
  }
  return
}

// -----

// A constant index becomes part of the access map.
// CHECK-LABEL: func.func @constant_access_index(
// CHECK-NEXT:    %[[X:.*]] = affine.load %{{.*}}[12] : memref<100xf32>
// CHECK-NEXT:    return %[[X]]
func.func @constant_access_index(%A: memref<100xf32>) -> f32 {
  %c3 = arith.constant 3 : index
  %a = affine.apply affine_map<(d0) -> (d0 * 4)>(%c3)
  %x = affine.load %A[%a] : memref<100xf32>
  return %x : f32
}

// -----

// A dim subscript that is a valid symbol becomes a symbol.
// CHECK-LABEL: func.func @access_dim_to_symbol(
// CHECK-NEXT:    affine.load %{{.*}}[symbol(%{{.*}}) + 1] : memref<100xf32>
func.func @access_dim_to_symbol(%A: memref<100xf32>, %n: index) -> f32 {
  %x = affine.load %A[%n + 1] : memref<100xf32>
  return %x : f32
}

// -----

// A sum of all the results of a static delinearization, each scaled by its stride, is
// the delinearized index; other terms of the sum stay, and a sum with a wrong stride is
// kept.
// CHECK-DAG: #[[$PLUS:.*]] = affine_map<()[s0, s1] -> (s0 + s1 + 7)>
// CHECK-DAG: #[[$WRONG:.*]] = affine_map<()[s0, s1, s2] -> (s0 + s1 * 5 + s2 * 10)>
// CHECK-LABEL: func.func @delinearize_sum(
// CHECK-SAME:    %[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT:    %[[R:.*]]:3 = affine.delinearize_index %[[X]] into (4, 5)
// CHECK-NEXT:    %[[P:.*]] = affine.apply #[[$PLUS]]()[%[[N]], %[[X]]]
// CHECK-NEXT:    %[[W:.*]] = affine.apply #[[$WRONG]]()[%[[R]]#2, %[[R]]#1, %[[R]]#0]
// CHECK-NEXT:    return %[[X]], %[[P]], %[[W]]
func.func @delinearize_sum(%x: index, %n: index) -> (index, index, index) {
  %r:3 = affine.delinearize_index %x into (4, 5) : index, index, index
  %0 = affine.apply affine_map<()[s0, s1, s2] -> (s2 * 20 + s0 + s1 * 5)>()[%r#2, %r#1, %r#0]
  %1 = affine.apply affine_map<()[s0, s1, s2, s3] -> (s0 + s1 * 5 + s2 * 20 + s3 + 7)>()[%r#2, %r#1, %r#0, %n]
  %2 = affine.apply affine_map<()[s0, s1, s2] -> (s0 + s1 * 5 + s2 * 10)>()[%r#2, %r#1, %r#0]
  return %0, %1, %2 : index, index, index
}

// -----

// With as many results as basis elements, the first result is the quotient by the other
// elements: the sum is still the index.
// CHECK-LABEL: func.func @delinearize_sum_bounded_first(
// CHECK-SAME:    %[[X:.*]]: index)
// CHECK-NEXT:    return %[[X]]
func.func @delinearize_sum_bounded_first(%x: index) -> index {
  %r:2 = affine.delinearize_index %x into (3, 8) : index, index
  %0 = affine.apply affine_map<()[s0, s1] -> (s0 * 8 + s1)>()[%r#0, %r#1]
  return %0 : index
}

// -----

// Dims work like symbols: the index goes back to the induction variable.
// CHECK-LABEL: func.func @delinearize_sum_of_dims(
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 64 {
// CHECK-NEXT:      memref.store %[[I]], %{{.*}}[%[[I]]]
func.func @delinearize_sum_of_dims(%A: memref<64xindex>) {
  affine.for %i = 0 to 64 {
    %r:2 = affine.delinearize_index %i into (8, 8) : index, index
    %0 = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%r#0, %r#1)
    memref.store %0, %A[%0] : memref<64xindex>
  }
  return
}

// -----

// Loop bounds drop repeated results, and dims that are valid symbols become symbols.
// CHECK-DAG: #[[$UB:.*]] = affine_map<()[s0] -> (s0 + 2)>
// CHECK-LABEL: func.func @drop_duplicate_bounds(
// CHECK-SAME:    %[[N:.*]]: index)
// CHECK-NEXT:    affine.for %{{.*}} = %[[N]] to #[[$UB]]()[%[[N]]] {
func.func @drop_duplicate_bounds(%n: index) {
  affine.for %i = max affine_map<(d0) -> (d0, d0)>(%n) to min affine_map<(d0) -> (d0 + 2, d0 + 2)>(%n) {
    "foo"() : () -> ()
  }
  return
}

// -----

// Loop bounds absorb the affine.apply ops computing them.
// CHECK-DAG: #[[$LB:.*]] = affine_map<()[s0] -> (s0 - 2)>
// CHECK-DAG: #[[$UB:.*]] = affine_map<()[s0] -> (s0 + 2)>
// CHECK-LABEL: func.func @compose_loop_bounds(
// CHECK-SAME:    %[[N:.*]]: index)
// CHECK-NEXT:    affine.for %{{.*}} = #[[$LB]]()[%[[N]]] to #[[$UB]]()[%[[N]]] {
func.func @compose_loop_bounds(%n: index) {
  %u = affine.apply affine_map<(d0) -> (d0 + 2)>(%n)
  %l = affine.apply affine_map<(d0) -> (d0 - 2)>(%n)
  affine.for %i = %l to %u {
    "foo"() : () -> ()
  }
  return
}

// -----

// Bounds of constant operands fold to the largest (lower) and smallest (upper) result.
// CHECK-LABEL: func.func @constant_loop_bounds(
// CHECK-NEXT:    affine.for %{{.*}} = 6 to 20 {
func.func @constant_loop_bounds() {
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  affine.for %i = max affine_map<(d0)[s0] -> (d0, s0 - 1)>(%c4)[%c7] to min affine_map<(d0) -> (d0 * 3, 20)>(%c7) {
    "foo"() : () -> ()
  }
  return
}

// -----

// A loop whose body only yields gives its initial values for the yielded iteration
// arguments and the yielded values from outside (its trip count is known).
// CHECK-LABEL: func.func @empty_loop_yields_outside_value(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2
// CHECK-NEXT:    return %[[TWO]], %[[ONE]]
func.func @empty_loop_yields_outside_value() -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = affine.for %i = 0 to 10 iter_args(%a = %c0, %b = %c1) -> (index, index) {
    affine.yield %c2, %b : index, index
  }
  return %r#0, %r#1 : index, index
}

// -----

// Swapped iteration arguments fold only when the loop runs at most once.
// CHECK-LABEL: func.func @empty_loop_swapped_args(
// CHECK-SAME:    %[[N:.*]]: index)
// CHECK:         affine.for
// CHECK:         return %[[N]], %{{.*}}#0, %{{.*}}#1
func.func @empty_loop_swapped_args(%n: index) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = affine.for %i = 0 to 1 iter_args(%a = %n, %b = %c0) -> (index, index) {
    affine.yield %b, %a : index, index
  }
  %s:2 = affine.for %i = 0 to 4 iter_args(%a = %c1, %b = %c0) -> (index, index) {
    affine.yield %b, %a : index, index
  }
  return %r#1, %s#0, %s#1 : index, index, index
}

// -----

// A loop without results that runs no iteration stays when its body does something.
// CHECK-LABEL: func.func @zero_trip_loop_with_work_stays(
// CHECK:         affine.for %{{.*}} = 0 to 0 {
// CHECK-NEXT:      affine.load
func.func @zero_trip_loop_with_work_stays(%A: memref<4xf32>) {
  affine.for %i = 0 to 0 {
    %v = affine.load %A[%i] : memref<4xf32>
    affine.store %v, %A[%i] : memref<4xf32>
  }
  return
}

// -----

// affine.parallel bounds absorb the constants and affine.apply ops feeding them.
// CHECK-LABEL: func.func @parallel_bounds_compose(
// CHECK:         affine.parallel (%[[I:.*]]) = (0) to (4) {
// CHECK-NEXT:      affine.parallel (%{{.*}}) = (0) to (%[[I]] * 5) {
func.func @parallel_bounds_compose(%A: memref<20xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  affine.parallel (%i) = (%c0) to (%c0 + %c4) {
    %n = affine.apply affine_map<(d0) -> (d0 * 5)>(%i)
    affine.parallel (%j) = (%c0) to (%n) {
      affine.store %v, %A[%j] : memref<20xf32>
    }
  }
  return
}

// -----

// An affine.if condition drops unused operands, folds constants, promotes valid symbols
// and absorbs the affine.apply ops feeding it.
// CHECK-DAG: #[[$SET:.*]] = affine_set<(d0)[s0] : (d0 * -2 + 100 >= 0, d0 * 2 - s0 - 1 >= 0)>
// CHECK-LABEL: func.func @canonicalize_if_condition(
// CHECK-SAME:    %[[N:.*]]: index, %{{.*}}: index)
// CHECK:         affine.for %[[I:.*]] = 0 to 10 {
// CHECK-NEXT:      affine.if #[[$SET]](%[[I]])[%[[N]]] {
func.func @canonicalize_if_condition(%n: index, %unused: index) {
  %c100 = arith.constant 100 : index
  affine.for %i = 0 to 10 {
    %j = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    affine.if affine_set<(d0, d1, d2)[s0] : (d0 - d1 >= 0, d1 - d2 - 1 >= 0)>(%c100, %j, %n)[%unused] {
      "foo"() : () -> ()
    }
  }
  return
}
