// RUN: not tb-translate --emit=llvm-ir %s 2>&1 | FileCheck %s

// Directed rounding needs LLVM's constrained intrinsics, which the backend does not emit.
// CHECK: arith-unsupported.mlir:[[@LINE+2]]:8: error: 'arith.truncf' op rounding mode 'downward' is not supported by the CPU backend
func.func @directed(%f: f32) -> f16 {
  %0 = arith.truncf %f downward : f32 to f16
  return %0 : f16
}
