// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// MLIR 22 reads both forms and writes what tb-opt reads back the same way.
// RUN: tb-opt %s | mlir-opt | tb-opt | FileCheck %s
// RUN: tb-opt --mlir-print-op-generic %s | mlir-opt --mlir-print-op-generic | tb-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// REQUIRES: mlir-opt

// A warp's 16x8x16 product on f16 and on bf16 fragments, with f32 accumulators.
// CHECK-LABEL: func.func @mma(
// CHECK-NEXT:    %0 = nvgpu.mma.sync(%arg0, %arg1, %arg2) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:    %1 = nvgpu.mma.sync(%arg3, %arg4, %0) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// GENERIC-LABEL: sym_name = "mma"
// GENERIC:         "nvgpu.mma.sync"(%arg0, %arg1, %arg2) <{mmaShape = [16, 8, 16]}> : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %a16: vector<4x2xbf16>, %b16: vector<2x2xbf16>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  %e = nvgpu.mma.sync (%a16, %b16, %d) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %e : vector<2x2xf32>
}
