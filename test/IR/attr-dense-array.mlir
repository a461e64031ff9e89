// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dense array attributes (array<type: values>).

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.int_arrays"() {a = array<i64: 1, 2>, b = array<i32: -1, 0, 2147483647>, c = array<i8: -128, 127>, d = array<i16: 16, -1>} : () -> ()
"unreg.int_arrays"() {a = array<i64: 1, 2>, b = array<i32: -1, 0, 2147483647>, c = array<i8: -128, 127>, d = array<i16: 0x10, -0x1>} : () -> ()

// CHECK-LABEL: "unreg.float_arrays"() {a = array<f32: 1.000000e+00, -2.500000e+00>, b = array<f64: 1.000000e-01, 1.000000e+300>, c = array<f64: 0x7FF8000000000000>, d = array<f32: 0x7F800000, 1.000000e+00>} : () -> ()
"unreg.float_arrays"() {a = array<f32: 1.0, -2.5>, b = array<f64: 0.1, 1.0e300>, c = array<f64: 0x7FF8000000000000>, d = array<f32: 0x7F800000, 0x3F800000>} : () -> ()

// CHECK-LABEL: "unreg.bool_arrays"() {a = array<i1: true, false>, b = array<i1: false>} : () -> ()
"unreg.bool_arrays"() {a = array<i1: true, false>, b = array<i1: false>} : () -> ()

// Empty arrays print without a colon.
// CHECK-LABEL: "unreg.empty_arrays"() {a = array<i64>, b = array<f32>, c = array<i1>} : () -> ()
"unreg.empty_arrays"() {a = array<i64>, b = array<f32>, c = array<i1>} : () -> ()

// Dense arrays as properties (the common use).
// CHECK-LABEL: "unreg.array_props"() <{operandSegmentSizes = array<i32: 1, 0, 2>, static_sizes = array<i64: 4, -9223372036854775808>}> : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.array_props"() <{operandSegmentSizes = array<i32: 1, 0, 2>, static_sizes = array<i64: 4, -9223372036854775808>}> : () -> ()
