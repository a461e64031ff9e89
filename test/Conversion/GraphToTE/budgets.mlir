// RUN: tb-opt %s --split-input-file --convert-graph-to-te | FileCheck %s

// The lowering never writes out a constant that grows with a tensor: what would be longer
// than its budget (2^16 elements) is computed by a te.compute (before, these lowerings tried to
// allocate terabytes); sizes that do not fit in i64 are refused (invalid.mlir).

// A Range of 2^40 elements: start + i * delta in f64, rounded once to the element type.
// CHECK-LABEL: func.func @huge_range
// CHECK-NOT:     dense<
// CHECK:         te.compute () [%[[I:.*]]] {
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[N]] : i64 to f64
// CHECK-NEXT:      %[[START:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[DELTA:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      %[[STEP:.*]] = arith.mulf %[[F]], %[[DELTA]] : f64
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[START]], %[[STEP]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK-NEXT:      te.yield %[[R]] : f32
// CHECK-NEXT:    } : () -> tensor<1099511627776xf32>
func.func @huge_range() -> tensor<1099511627776xf32> {
  %0 = graph.range {delta = 1.000000e+00 : f32, limit = 1099511627776.0 : f32, start = 0.000000e+00 : f32} : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}

// -----

// A short integer Range is still a constant.
// CHECK-LABEL: func.func @short_range
// CHECK:         arith.constant dense<[3, 5, 7]> : tensor<3xi64>
func.func @short_range() -> tensor<3xi64> {
  %0 = graph.range {delta = 2 : i64, limit = 9 : i64, start = 3 : i64} : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// An AveragePool whose windows do not all count the same (the padding counts not), along
// a dimension longer than the budget: the count of each window is computed from its
// index (clamped first and last kernel positions), not read from a table (which took
// 32 GiB here).
// CHECK-LABEL: func.func @long_average_pool
// CHECK-NOT:     dense<
// CHECK:         te.compute (%{{.*}}) [%{{.*}}, %{{.*}}, %{{.*}}] reduce
// CHECK:         te.compute (%{{.*}}) [%{{.*}}, %{{.*}}, %[[O:.*]]] {
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           arith.subi
// CHECK:           arith.addi
// CHECK:           arith.maxsi
// CHECK:           arith.index_cast
// CHECK:           arith.sitofp
// CHECK:           arith.divf
func.func @long_average_pool(%x: tensor<1x1x4294967296xf32>) -> tensor<1x1x4294967296xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<1x1x4294967296xf32>) -> tensor<1x1x4294967296xf32>
  return %0 : tensor<1x1x4294967296xf32>
}

// -----

// A huge window that lies wholly inside its input divides by one constant, computed
// without walking the window.
// CHECK-LABEL: func.func @huge_window
// CHECK-NOT:     dense<
// CHECK:         arith.constant 4.2949673E+9 : f32
func.func @huge_window(%x: tensor<1x1x4294967296xf32>) -> tensor<1x1x1xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 4294967296>} : (tensor<1x1x4294967296xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

