// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// complex types.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.complex_float"() {a = complex<f32>, b = complex<f64>, c = complex<f16>, d = complex<bf16>, e = complex<f80>, f = complex<f128>} : () -> ()
"unreg.complex_float"() {a = complex<f32>, b = complex<f64>, c = complex<f16>, d = complex<bf16>, e = complex<f80>, f = complex<f128>} : () -> ()

// CHECK-LABEL: "unreg.complex_int"() {a = complex<i32>, b = complex<si8>, c = complex<ui64>, d = complex<i1>} : () -> ()
"unreg.complex_int"() {a = complex<i32>, b = complex<si8>, c = complex<ui64>, d = complex<i1>} : () -> ()

// CHECK-LABEL: "unreg.complex_nested"() {a = tensor<4xcomplex<f32>>, c = memref<?xcomplex<f32>>, d = tuple<complex<f32>, complex<i8>>} : () -> ()
"unreg.complex_nested"() {a = tensor<4xcomplex<f32>>, c = memref<?xcomplex<f32>>, d = tuple<complex<f32>, complex<i8>>} : () -> ()

// CHECK-LABEL: %0 = "unreg.complex_values"() : () -> complex<f64>
// CHECK-NEXT:   %1 = "unreg.use"(%0) : (complex<f64>) -> complex<i16>
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.complex_values"() : () -> complex<f64>
"unreg.use"(%0) : (complex<f64>) -> complex<i16>
