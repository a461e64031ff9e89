// RUN: not tb-translate --emit=llvm-ir %s 2>&1 | FileCheck %s

// Scaling casts round their scales through f8E8M0FNU, which the backend has no type for.
// CHECK: arith-scaling.mlir:[[@LINE+2]]:8: error: unsupported op 'arith.scaling_extf' in the CPU backend
func.func @scaled(%a: f16, %s: bf16) -> f32 {
  %0 = arith.scaling_extf %a, %s : f16, bf16 to f32
  return %0 : f32
}
