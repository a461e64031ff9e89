// Rounded divisions and extended arithmetic in the reference interpreter; undefined
// divisions stop at the op.
// RUN: tb-run --interpret %s --function rounded | FileCheck %s --check-prefix=ROUNDED
// RUN: tb-run --interpret %s --function extended | FileCheck %s --check-prefix=EXTENDED
// RUN: not tb-run --interpret %s --function by_zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tb-run --interpret %s --function overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not tb-run --interpret %s --function scaling 2>&1 | FileCheck %s --check-prefix=SCALING

// floordivsi rounds toward -inf, ceildivsi toward +inf, ceildivui reads unsigned
// (255 / 2 rounds up to 128, printed as i8 -128).
// ROUNDED: result #0: i8 = -4
// ROUNDED-NEXT: result #1: i8 = -3
// ROUNDED-NEXT: result #2: i8 = -128
// ROUNDED-NEXT: result #3: i8 = -64
// ROUNDED-NEXT: result #4: i8 = -64
// ROUNDED-NEXT: result #5: vector<4xi32> = [-4, 3, 1, -2]
// ROUNDED-NEXT: result #6: vector<4xi32> = [-3, 4, 2, -1]
func.func @rounded() -> (i8, i8, i8, i8, i8, vector<4xi32>, vector<4xi32>) {
  %a = arith.constant -7 : i8
  %b = arith.constant 2 : i8
  %0 = arith.floordivsi %a, %b : i8
  %1 = arith.ceildivsi %a, %b : i8
  %m1 = arith.constant -1 : i8
  %2 = arith.ceildivui %m1, %b : i8
  %min = arith.constant -128 : i8
  %3 = arith.floordivsi %min, %b : i8
  %4 = arith.ceildivsi %min, %b : i8
  %v = arith.constant dense<[7, -7, 6, -6]> : vector<4xi32>
  %w = arith.constant dense<[-2, -2, 4, 4]> : vector<4xi32>
  %5 = arith.floordivsi %v, %w : vector<4xi32>
  %6 = arith.ceildivsi %v, %w : vector<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : i8, i8, i8, i8, i8, vector<4xi32>, vector<4xi32>
}

// 200 + 100 carries out of i8; (-128)^2 = 0x4000 signed and 128^2 = 0x4000 unsigned;
// (2^64 - 1)^2 = 2^128 - 2^65 + 1.
// EXTENDED: result #0: i8 = 44
// EXTENDED-NEXT: result #1: i1 = true
// EXTENDED-NEXT: result #2: i8 = 0
// EXTENDED-NEXT: result #3: i8 = 64
// EXTENDED-NEXT: result #4: i8 = 0
// EXTENDED-NEXT: result #5: i8 = 64
// EXTENDED-NEXT: result #6: i64 = 1
// EXTENDED-NEXT: result #7: i64 = -2
// EXTENDED-NEXT: result #8: vector<2xi16> = [-1, 0]
func.func @extended() -> (i8, i1, i8, i8, i8, i8, i64, i64, vector<2xi16>) {
  %a = arith.constant -56 : i8
  %b = arith.constant 100 : i8
  %s, %o = arith.addui_extended %a, %b : i8, i1
  %min = arith.constant -128 : i8
  %l, %h = arith.mulsi_extended %min, %min : i8
  %lu, %hu = arith.mului_extended %min, %min : i8
  %x = arith.constant -1 : i64
  %lx, %hx = arith.mului_extended %x, %x : i64
  %v = arith.constant dense<[-2, 3]> : vector<2xi16>
  %w = arith.constant dense<[5, 7]> : vector<2xi16>
  %lv, %hv = arith.mulsi_extended %v, %w : vector<2xi16>
  return %s, %o, %l, %h, %lu, %hu, %lx, %hx, %hv : i8, i1, i8, i8, i8, i8, i64, i64, vector<2xi16>
}

// ZERO: arith-extended.mlir:[[@LINE+4]]:8: error: 'arith.ceildivsi' op divides by zero
func.func @by_zero() -> i32 {
  %a = arith.constant 7 : i32
  %z = arith.constant 0 : i32
  %0 = arith.ceildivsi %a, %z : i32
  return %0 : i32
}

// OVERFLOW: arith-extended.mlir:[[@LINE+4]]:8: error: 'arith.floordivsi' op overflows: -2147483648 / -1 in 32 bits
func.func @overflow() -> i32 {
  %a = arith.constant -2147483648 : i32
  %m = arith.constant -1 : i32
  %0 = arith.floordivsi %a, %m : i32
  return %0 : i32
}

// Scaling casts round their scales through f8E8M0FNU, which the interpreter does not
// compute with: it says so instead of guessing.
// SCALING: arith-extended.mlir:[[@LINE+4]]:8: error: 'arith.scaling_extf' op is not supported by the interpreter: its scales round through f8E8M0FNU
func.func @scaling() -> f32 {
  %h = arith.constant 3.0 : f16
  %q = arith.constant 0.25 : bf16
  %0 = arith.scaling_extf %h, %q : f16, bf16 to f32
  return %0 : f32
}
