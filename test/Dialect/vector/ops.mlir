// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// MLIR 22 reads both forms and writes what tb-opt reads back the same way.
// RUN: tb-opt %s | mlir-opt | tb-opt | FileCheck %s
// RUN: tb-opt --mlir-print-op-generic %s | mlir-opt --mlir-print-op-generic | tb-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// REQUIRES: mlir-opt

// Elements fill the vector in row-major order.
// CHECK-LABEL: func.func @from_elements(%arg0: f16, %arg1: f16) -> vector<2x2xf16> {
// CHECK-NEXT:    %0 = vector.from_elements %arg0, %arg1, %arg1, %arg0 : vector<2x2xf16>
// GENERIC-LABEL: sym_name = "from_elements"
// GENERIC:         "vector.from_elements"(%[[A:arg[0-9]+]], %[[B:arg[0-9]+]], %[[B]], %[[A]]) : (f16, f16, f16, f16) -> vector<2x2xf16>
func.func @from_elements(%a: f16, %b: f16) -> vector<2x2xf16> {
  %v = vector.from_elements %a, %b, %b, %a : vector<2x2xf16>
  return %v : vector<2x2xf16>
}

// A full position gives an element, a shorter one the vector of the dimensions after it.
// CHECK-LABEL: func.func @extract(%arg0: vector<2x2xf32>) -> (f32, vector<2xf32>) {
// CHECK-NEXT:    %0 = vector.extract %arg0[1, 0] : f32 from vector<2x2xf32>
// CHECK-NEXT:    %1 = vector.extract %arg0[1] : vector<2xf32> from vector<2x2xf32>
// GENERIC-LABEL: sym_name = "extract"
// GENERIC:         "vector.extract"(%{{.*}}) <{static_position = array<i64: 1, 0>}> : (vector<2x2xf32>) -> f32
// GENERIC:         "vector.extract"(%{{.*}}) <{static_position = array<i64: 1>}> : (vector<2x2xf32>) -> vector<2xf32>
func.func @extract(%v: vector<2x2xf32>) -> (f32, vector<2xf32>) {
  %e = vector.extract %v[1, 0] : f32 from vector<2x2xf32>
  %r = vector.extract %v[1] : vector<2xf32> from vector<2x2xf32>
  return %e, %r : f32, vector<2xf32>
}
