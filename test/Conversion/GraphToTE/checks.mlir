// RUN: tb-opt %s --convert-graph-to-te --split-input-file | FileCheck %s

// Gather checks its indices at run time: a max-reduction flags one out of range, and the
// public function returns the first failing check's code as its status result.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<i32> {tb.status})
// CHECK-SAME: attributes {tb.status_messages = ["Gather node 'lookup': an index is out of range for an axis of size 5 (valid indices are -5 to 4)"]}
// CHECK:      %[[FLAG:.*]] = te.compute (%arg1) [] reduce [%{{.*}}] in [2] combiner = max {
// CHECK:        %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:        arith.cmpi sge, %[[I]], %c-5
// CHECK:        arith.cmpi slt, %[[I]], %c5
// CHECK:      } : (tensor<2xi64>) -> tensor<i32>
// CHECK:      %[[Y:.*]] = te.compute
// CHECK:        te.read_at
// CHECK:      %[[STATUS:.*]] = te.compute (%[[FLAG]]) [] {
// CHECK:      return %[[Y]], %[[STATUS]] : tensor<2x3xf32>, tensor<i32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> loc("lookup")
  return %0 : tensor<2x3xf32>
}

// -----

// Several checks: code k for check k in program order, the first failing one winning;
// the names of the results stay on them.
// CHECK-LABEL: func.func @two_checks
// CHECK-SAME: -> (tensor<2x3xf32> {onnx.name = "y"}, tensor<2x2xf32> {onnx.name = "z"}, tensor<i32> {tb.status})
// CHECK-SAME: tb.status_messages = ["Gather node 'first'{{.*}}size 5{{.*}}", "GatherElements node 'second'{{.*}}size 2{{.*}}"]
// CHECK:      te.compute (%{{.*}}, %{{.*}}) [] {
// CHECK:        %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:        %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:   %[[SECOND:.*]] = arith.select %{{.*}}, %[[TWO]], %[[ZERO]] : i32
// CHECK:        %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[FIRST:.*]] = arith.select %{{.*}}, %[[ONE]], %[[SECOND]] : i32
// CHECK-NEXT:   te.yield %[[FIRST]] : i32
func.func @two_checks(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %e: tensor<2x2xf32>, %j: tensor<2x2xi32>) -> (tensor<2x3xf32> {onnx.name = "y"}, tensor<2x2xf32> {onnx.name = "z"}) {
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> loc("first")
  %1 = graph.gather_elements %e, %j {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi32>) -> tensor<2x2xf32> loc("second")
  return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// A private function has no status to report in: its indices are only clamped.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> tensor<2x3xf32> {
// CHECK-NOT:  combiner = max
// CHECK:      te.read_at
func.func private @helper(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Without data-dependent reads there is nothing to check and no status.
// CHECK-LABEL: func.func @no_checks
// CHECK-SAME: -> tensor<4xf32> {
func.func @no_checks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A 0-d index is checked without a reduction.
// CHECK-LABEL: func.func @scalar_index
// CHECK-SAME: -> (tensor<3xf32>, tensor<i32> {tb.status})
// CHECK:      te.compute (%arg1) [] {
// CHECK:        te.read %arg1[() -> ()] : tensor<i64>
// CHECK:      } : (tensor<i64>) -> tensor<i32>
func.func @scalar_index(%x: tensor<5x3xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<i64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
