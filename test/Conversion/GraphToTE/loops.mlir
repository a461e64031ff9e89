// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s
// RUN: tb-opt %s --convert-graph-to-te | tb-opt --verify-roundtrip > /dev/null

// graph.loop: an scf.while on tensors whose before region reads the iteration number, the
// trip count and the condition with te.extract; the body moves into the do region, is
// lowered there, and yields the next iteration number (a 0-d te.compute), the condition,
// the carried values and each scan accumulator with the iteration's row written.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0> : tensor<i64>
// CHECK:         %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK:         %[[W:.*]]:4 = scf.while (%[[I:.*]] = %[[ZERO]], %[[C:.*]] = %arg1, %[[V:.*]] = %arg2, %[[A:.*]] = %[[ACC0]]) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<3x2xf32>) -> (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<3x2xf32>) {
// CHECK-NEXT:      %[[IV:.*]] = te.extract %[[I]][] : tensor<i64>
// CHECK-NEXT:      %[[M:.*]] = te.extract %arg0[] : tensor<i64>
// CHECK-NEXT:      %[[CV:.*]] = te.extract %[[C]][] : tensor<i1>
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi slt, %[[IV]], %[[M]] : i64
// CHECK-NEXT:      %[[GO:.*]] = arith.andi %[[LT]], %[[CV]] : i1
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[I]], %[[C]], %[[V]], %[[A]] : tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<3x2xf32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[BI:.*]]: tensor<i64>, %[[BC:.*]]: tensor<i1>, %[[BV:.*]]: tensor<2xf32>, %[[BA:.*]]: tensor<3x2xf32>):
// CHECK-NEXT:      %[[N:.*]] = te.compute (%[[BV]], %arg3)
// CHECK:             arith.addf
// CHECK:           %[[ROW:.*]] = arith.index_cast
// CHECK:           %[[NI:.*]] = te.compute (%[[BI]]) [] {
// CHECK:             arith.addi
// CHECK:           %[[NA:.*]] = te.compute (%[[BA]], %[[BV]]) [%[[R:.*]], %{{.*}}] {
// CHECK:             arith.cmpi eq, %[[R]], %[[ROW]] : index
// CHECK:             arith.select
// CHECK:           scf.yield %[[NI]], %[[BC]], %[[N]], %[[NA]] : tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<3x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[W]]#2, %[[W]]#3 : tensor<2xf32>, tensor<3x2xf32>
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %0:2 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = graph.add %acc, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %cond, %next, %acc : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}

// graph.scan: an scf.while over an index; the before region reads each scan input's slice
// at the (clamped) iteration number with te.read_at, counted from the end for a reversed
// input, and passes the states, the slices, the iteration number and the accumulators on;
// a reversed scan output is written at length - 1 - i.
// CHECK-LABEL: func.func @scan
// CHECK:         %[[W:.*]]:4 = scf.while (%[[S:.*]] = %arg0, %[[I:.*]] = %{{.*}}, %[[A:.*]] = %{{.*}}) : (tensor<2xf32>, index, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, index, tensor<2x3xf32>) {
// CHECK:           %[[GO:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK-NEXT:      %[[AT:.*]] = arith.select %[[GO]], %[[I]], %{{.*}} : index
// CHECK-NEXT:      %[[REV:.*]] = arith.subi %{{.*}}, %[[AT]] : index
// CHECK-NEXT:      %[[SL:.*]] = te.compute (%arg1) [%[[J:.*]]] {
// CHECK-NEXT:        te.read_at %arg1[%[[J]], %[[REV]]] : tensor<2x3xf32>
// CHECK:           scf.condition(%[[GO]]) %[[S]], %[[SL]], %[[I]], %[[A]] : tensor<2xf32>, tensor<2xf32>, index, tensor<2x3xf32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>, %[[BI:.*]]: index, %[[BA:.*]]: tensor<2x3xf32>):
// CHECK:           arith.addi %[[BI]], %{{.*}} : index
// CHECK:           te.compute (%[[BA]], %{{.*}}) [%{{.*}}, %[[COL:.*]]] {
// CHECK:             arith.cmpi eq, %[[COL]], %[[BI]] : index
// CHECK:           scf.yield
// CHECK:         return %[[W]]#0, %[[W]]#3 : tensor<2xf32>, tensor<2x3xf32>
func.func @scan(%init: tensor<2xf32>, %x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  %0:2 = graph.scan %init, %x {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 1>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  ^bb0(%s: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = graph.add %s, %xi : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x3xf32>
}
