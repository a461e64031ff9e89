// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s
// RUN: tb-opt %s --convert-graph-to-te | tb-opt --verify-roundtrip > /dev/null

// A run-time If: the condition's element is extracted, the branches move into an scf.if on
// tensors and are lowered there; each graph.yield becomes an scf.yield.
// CHECK-LABEL: func.func @branch
// CHECK-NEXT:    %[[C:.*]] = te.extract %arg0[] : tensor<i1>
// CHECK-NEXT:    %[[Y:.*]] = scf.if %[[C]] -> (tensor<2x3xf32>) {
// CHECK-NEXT:      %[[T:.*]] = te.compute (%arg1) [%{{.*}}, %{{.*}}] {
// CHECK:             arith.select
// CHECK:           scf.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = te.compute (%arg1) [%{{.*}}, %{{.*}}] {
// CHECK:             arith.negf
// CHECK:           scf.yield %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]] : tensor<2x3xf32>
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

// A condition of shape [1] is read at index 0; a branch may yield an outer value as it is,
// and several results.
// CHECK-LABEL: func.func @one_element_condition
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.*]] = te.extract %arg0[%[[ZERO]]] : tensor<1xi1>
// CHECK-NEXT:    %{{.*}}:2 = scf.if %[[C]] -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK:           scf.yield %arg1, %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %arg2, %arg1 : tensor<4xf32>, tensor<4xf32>
func.func @one_element_condition(%c: tensor<1xi1>, %x: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = graph.if %c : (tensor<1xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
    %s = graph.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %x, %s : tensor<4xf32>, tensor<4xf32>
  } else {
    graph.yield %z, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

// Nested Ifs nest scf.ifs; the condition of the inner one is computed in the outer branch.
// CHECK-LABEL: func.func @nested
// CHECK:         scf.if %{{.*}} -> (tensor<4xf32>) {
// CHECK:           %[[LESS:.*]] = te.compute
// CHECK:           %[[INNER:.*]] = te.extract %[[LESS]][] : tensor<i1>
// CHECK-NEXT:      scf.if %[[INNER]] -> (tensor<4xf32>) {
// CHECK-NOT:     graph.
func.func @nested(%c: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.if %c : (tensor<i1>) -> tensor<4xf32> {
    %less = graph.less %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %z = graph.if %less : (tensor<i1>) -> tensor<4xf32> {
      %n = graph.neg %x : tensor<4xf32>
      graph.yield %n : tensor<4xf32>
    } else {
      graph.yield %x : tensor<4xf32>
    }
    graph.yield %z : tensor<4xf32>
  } else {
    %e = graph.exp %x : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
