// Run-time control flow compiles: a graph.if (lowered to scf.if on tensors, then on
// buffers) and scf.if/scf.for/scf.while on tensors written at te give what the
// interpreter gives running the input itself. The seeds take both branches of the If
// (seed 1 the relu, seed 2 the negation) and several iterations of the while loop.
// RUN: tb-run %s --function branch --random-inputs 1 > %t.b1.compiled
// RUN: tb-run --interpret %s --function branch --random-inputs 1 > %t.b1.interpreted
// RUN: diff %t.b1.compiled %t.b1.interpreted
// RUN: tb-run %s --function branch --random-inputs 2 > %t.b2.compiled
// RUN: tb-run --interpret %s --function branch --random-inputs 2 > %t.b2.interpreted
// RUN: diff %t.b2.compiled %t.b2.interpreted
// RUN: tb-run %s --function running_sum --random-inputs 3 > %t.sum.compiled
// RUN: tb-run --interpret %s --function running_sum --random-inputs 3 > %t.sum.interpreted
// RUN: diff %t.sum.compiled %t.sum.interpreted
// RUN: tb-run %s --function halve_while_large --random-inputs 1 > %t.while.compiled
// RUN: tb-run --interpret %s --function halve_while_large --random-inputs 1 > %t.while.interpreted
// RUN: diff %t.while.compiled %t.while.interpreted
// RUN: FileCheck %s --input-file %t.while.compiled

func.func @branch(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %t = graph.relu %x : tensor<2x3xf32>
    graph.yield %t : tensor<2x3xf32>
  } else {
    %e = graph.neg %x : tensor<2x3xf32>
    graph.yield %e : tensor<2x3xf32>
  }
  return %y : tensor<2x3xf32>
}

func.func @running_sum(%x: tensor<4xf32>, %rows: tensor<3x4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
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

// Halves until every |element| <= 0.05: five halvings for seed 1.
// CHECK: result #1: i32 = 5
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
