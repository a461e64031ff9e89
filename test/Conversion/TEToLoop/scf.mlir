// RUN: tb-opt %s --convert-te-to-loop | FileCheck %s
// RUN: tb-opt %s --convert-te-to-loop | tb-opt --verify-roundtrip > /dev/null

// te.extract is a load of the element.
// CHECK-LABEL: func.func @extract
// CHECK-NEXT:    %[[V:.*]] = loop.load %arg0[%arg1, %arg1] : memref<2x3xf32>
// CHECK-NEXT:    return %[[V]] : f32
func.func @extract(%t: tensor<2x3xf32>, %i: index) -> f32 {
  %v = te.extract %t[%i, %i] : tensor<2x3xf32>
  return %v : f32
}

// An scf.if result is one buffer allocated before the op: the branch that computes its
// value writes it directly (its own allocation is replaced), the branch that yields an
// outer value copies it in. The scf.if keeps only its scalar results.
// CHECK-LABEL: func.func @if_result
// CHECK:         %[[C:.*]] = loop.load %arg0[] : memref<i1>
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[N:.*]] = scf.if %[[C]] -> (i32) {
// CHECK-NOT:       loop.alloc
// CHECK:           loop.parallel
// CHECK:             arith.negf
// CHECK-NEXT:        loop.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<4xf32>
// CHECK:           scf.yield %{{.*}} : i32
// CHECK-NEXT:    } else {
// CHECK:           memref.copy %arg1, %[[OUT]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:      scf.yield %{{.*}} : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[OUT]], %[[N]] : memref<4xf32>, i32
func.func @if_result(%c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, i32) {
  %cond = te.extract %c[] : tensor<i1>
  %y:2 = scf.if %cond -> (tensor<4xf32>, i32) {
    %n = te.compute (%x) [%j] {
      %v = te.read %x[(d0) -> (d0)] : tensor<4xf32>
      %m = arith.negf %v : f32
      te.yield %m : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    %one = arith.constant 1 : i32
    scf.yield %n, %one : tensor<4xf32>, i32
  } else {
    %two = arith.constant 2 : i32
    scf.yield %x, %two : tensor<4xf32>, i32
  }
  return %y#0, %y#1 : tensor<4xf32>, i32
}

// A buffer a branch uses but does not yield is freed in the branch, after its last use.
// CHECK-LABEL: func.func @if_frees_temporaries
// CHECK:         scf.if
// CHECK:           %[[T:.*]] = loop.alloc() : memref<4xf32>
// CHECK:           loop.parallel
// CHECK:           loop.parallel
// CHECK:             loop.load %[[T]]
// CHECK:           }
// CHECK-NEXT:      loop.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT:    } else {
func.func @if_frees_temporaries(%c: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = scf.if %c -> (tensor<4xf32>) {
    %t = te.compute (%x) [%j] {
      %v = te.read %x[(d0) -> (d0)] : tensor<4xf32>
      %e = math.exp %v : f32
      te.yield %e : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    %u = te.compute (%t) [%j] {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %s = arith.addf %v, %v : f32
      te.yield %s : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// A tensor iter_arg is one buffer carried through the loop: it starts as a copy of the
// initial value, the body's nest reads it and writes a fresh buffer, which is copied back
// at the end of the iteration and freed. A body te.compute uses the induction variable.
// Scalars stay iter_args.
// CHECK-LABEL: func.func @running_sum
// CHECK:         %[[ACC:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[ACC]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[COUNT:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[K:.*]] = %{{.*}}) -> (i32) {
// CHECK-NEXT:      %[[NEXT:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:      loop.parallel (%[[J:.*]]) = (0) to (4) {
// CHECK-NEXT:        loop.load %[[ACC]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:        loop.load %arg1[%[[I]], %[[J]]] : memref<3x4xf32>
// CHECK:           }
// CHECK:           memref.copy %[[NEXT]], %[[ACC]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:      loop.dealloc %[[NEXT]] : memref<4xf32>
// CHECK-NEXT:      scf.yield %{{.*}} : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[ACC]], %[[COUNT]] : memref<4xf32>, i32
func.func @running_sum(%x: tensor<4xf32>, %rows: tensor<3x4xf32>) -> (tensor<4xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %sum:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %k = %zero) -> (tensor<4xf32>, i32) {
    %next = te.compute (%acc, %rows) [%j] {
      %a = te.read %acc[(d0) -> (d0)] : tensor<4xf32>
      %r = te.read_at %rows[%i, %j] : tensor<3x4xf32>
      %s = arith.addf %a, %r : f32
      te.yield %s : f32
    } : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %k1 = arith.addi %k, %one : i32
    scf.yield %next, %k1 : tensor<4xf32>, i32
  }
  return %sum#0, %sum#1 : tensor<4xf32>, i32
}

// Carried values that swap places go through a temporary, so that neither is overwritten
// before it is read.
// CHECK-LABEL: func.func @swap
// CHECK:         %[[A:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[A]]
// CHECK-NEXT:    %[[B:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %arg1, %[[B]]
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[T1:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:      memref.copy %[[B]], %[[T1]]
// CHECK-NEXT:      %[[T2:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:      memref.copy %[[A]], %[[T2]]
// CHECK-NEXT:      memref.copy %[[T1]], %[[A]]
// CHECK-NEXT:      memref.copy %[[T2]], %[[B]]
// CHECK-NEXT:      loop.dealloc %[[T1]]
// CHECK-NEXT:      loop.dealloc %[[T2]]
// CHECK-NEXT:    }
func.func @swap(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y) -> (tensor<4xf32>, tensor<4xf32>) {
    scf.yield %b, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// scf.while: the value the 'before' region receives is one buffer (refilled at the end of
// the 'after' region); passed on unchanged by scf.condition it is also the 'after'
// region's and the result's. The condition reads a tensor the region computes.
// CHECK-LABEL: func.func @halve_while_large
// CHECK:         %[[T:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[T]]
// CHECK-NEXT:    %[[N:.*]] = scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// CHECK-NEXT:      %[[MAX:.*]] = loop.alloc() : memref<f32>
// CHECK:             loop.load %[[T]]
// CHECK:           %[[BIG:.*]] = loop.load %[[MAX]][] : memref<f32>
// CHECK-NEXT:      loop.dealloc %[[MAX]] : memref<f32>
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpf ogt, %[[BIG]], %{{.*}} : f32
// CHECK-NEXT:      scf.condition(%[[MORE]]) %{{.*}} : i32
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: i32):
// CHECK-NEXT:      %[[H:.*]] = loop.alloc() : memref<4xf32>
// CHECK:           memref.copy %[[H]], %[[T]]
// CHECK-NEXT:      loop.dealloc %[[H]]
// CHECK-NEXT:      scf.yield %{{.*}} : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[T]], %[[N]] : memref<4xf32>, i32
func.func @halve_while_large(%x: tensor<4xf32>) -> (tensor<4xf32>, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %limit = arith.constant 0.05 : f32
  %r:2 = scf.while (%t = %x, %n = %zero) : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32) {
    %m = te.compute (%t) [] reduce [%k] in [4] combiner = max {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %a = math.absf %v : f32
      te.yield %a : f32
    } : (tensor<4xf32>) -> tensor<f32>
    %big = te.extract %m[] : tensor<f32>
    %more = arith.cmpf ogt, %big, %limit : f32
    scf.condition(%more) %t, %n : tensor<4xf32>, i32
  } do {
  ^bb0(%t: tensor<4xf32>, %n: i32):
    %h = te.compute (%t) [%j] {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %c = arith.constant 0.5 : f32
      %p = arith.mulf %v, %c : f32
      te.yield %p : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    %s = arith.addi %n, %one : i32
    scf.yield %h, %s : tensor<4xf32>, i32
  }
  return %r#0, %r#1 : tensor<4xf32>, i32
}

// A value scf.condition passes on that is not its argument gets a buffer of its own,
// filled at the condition.
// CHECK-LABEL: func.func @while_passes_a_new_value
// CHECK:         %[[IN:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[IN]]
// CHECK-NEXT:    %[[OUT:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    scf.while : () -> () {
// CHECK:           memref.copy %{{.*}}, %[[OUT]]
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK:           memref.copy %[[OUT]], %[[IN]]
// CHECK:         return %[[OUT]] : memref<4xf32>
func.func @while_passes_a_new_value(%x: tensor<4xf32>, %stop: i1) -> tensor<4xf32> {
  %r = scf.while (%t = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %d = te.compute (%t) [%j] {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %s = arith.addf %v, %v : f32
      te.yield %s : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    scf.condition(%stop) %d : tensor<4xf32>
  } do {
  ^bb0(%u: tensor<4xf32>):
    scf.yield %u : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A branch's buffer yielded twice is written once, into the first result's buffer, and
// copied into the second.
// CHECK-LABEL: func.func @if_yields_twice
// CHECK:         %[[A:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[B:.*]] = loop.alloc() : memref<4xf32>
// CHECK-NEXT:    scf.if %arg0 {
// CHECK:             loop.store %{{.*}}, %[[A]][%{{.*}}] : memref<4xf32>
// CHECK:           memref.copy %[[A]], %[[B]]
// CHECK-NEXT:    } else {
func.func @if_yields_twice(%c: i1, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = scf.if %c -> (tensor<4xf32>, tensor<4xf32>) {
    %n = te.compute (%x) [%j] {
      %v = te.read %x[(d0) -> (d0)] : tensor<4xf32>
      %m = arith.negf %v : f32
      te.yield %m : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } else {
    scf.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}
