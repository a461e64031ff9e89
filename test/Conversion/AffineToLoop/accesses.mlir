// RUN: tb-opt --pass-pipeline='builtin.module(convert-affine-to-loop)' %s | FileCheck %s

// Vector accesses keep their map and become the loop dialect's vector accesses.
// CHECK-LABEL: func.func @vector_accesses(
// CHECK:         loop.for %[[I:.*]] = 0 to 8 step 4 {
// CHECK-NEXT:      %[[V:.*]] = loop.vector_load %{{.*}}[(d0) -> (d0 + 1)](%[[I]]) : memref<16xf32>, vector<4xf32>
// CHECK-NEXT:      loop.vector_store %[[V]], %{{.*}}[%[[I]]] : memref<16xf32>, vector<4xf32>
func.func @vector_accesses(%A: memref<16xf32>) {
  affine.for %i = 0 to 8 step 4 {
    %v = affine.vector_load %A[%i + 1] : memref<16xf32>, vector<4xf32>
    affine.vector_store %v, %A[%i] : memref<16xf32>, vector<4xf32>
  }
  return
}
