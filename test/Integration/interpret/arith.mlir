// RUN: tb-run --interpret %s --function ints | FileCheck %s --check-prefix=INTS
// RUN: tb-run --interpret %s --function floats | FileCheck %s --check-prefix=FLOATS
// RUN: tb-run --interpret %s --function casts | FileCheck %s --check-prefix=CASTS
// RUN: tb-run --interpret %s --function narrow_rounding | FileCheck %s --check-prefix=NARROW

// Integers wrap in their width; signedness comes from the op.
// INTS: result #0: i8 = -56
// INTS-NEXT: result #1: i8 = 1
// INTS-NEXT: result #2: i8 = -64
// INTS-NEXT: result #3: i8 = 64
// INTS-NEXT: result #4: tensor<2x3xi32> = {{\[\[}}-1, 0, 1], [2, 3, 4]]
func.func @ints() -> (i8, i8, i8, i8, tensor<2x3xi32>) {
  %a = arith.constant 100 : i8
  %s = arith.addi %a, %a : i8
  %m = arith.constant -128 : i8
  %q = arith.divui %m, %a : i8
  %one = arith.constant 1 : i8
  %l = arith.shrsi %m, %one : i8
  %r = arith.shrui %m, %one : i8
  %t = arith.constant dense<[[-2, -1, 0], [1, 2, 3]]> : tensor<2x3xi32>
  %c1 = arith.constant dense<1> : tensor<2x3xi32>
  %u = arith.addi %t, %c1 : tensor<2x3xi32>
  return %s, %q, %l, %r, %u : i8, i8, i8, i8, tensor<2x3xi32>
}

// Each op rounds to its format: 2^24 + 1 is not an f32.
// FLOATS: result #0: f32 = 16777216.0
// FLOATS-NEXT: result #1: f64 = 16777217.0
// FLOATS-NEXT: result #2: i1 = false
// FLOATS-NEXT: result #3: i1 = true
func.func @floats() -> (f32, f64, i1, i1) {
  %a = arith.constant 16777216.0 : f32
  %one = arith.constant 1.0 : f32
  %s = arith.addf %a, %one : f32
  %a64 = arith.extf %a : f32 to f64
  %one64 = arith.extf %one : f32 to f64
  %s64 = arith.addf %a64, %one64 : f64
  %nan = arith.constant 0x7FC00000 : f32
  %ord = arith.cmpf olt, %nan, %one : f32
  %uno = arith.cmpf ult, %nan, %one : f32
  return %s, %s64, %ord, %uno : f32, f64, i1, i1
}

// CASTS: result #0: i32 = -1
// CASTS-NEXT: result #1: i32 = 1
// CASTS-NEXT: result #2: i32 = -2
// CASTS-NEXT: result #3: f32 = 4294967300.0
// CASTS-NEXT: result #4: i32 = 1065353216
func.func @casts() -> (i32, i32, i32, f32, i32) {
  %t = arith.constant true
  %s = arith.extsi %t : i1 to i32
  %u = arith.extui %t : i1 to i32
  %f = arith.constant -2.75 : f32
  %i = arith.fptosi %f : f32 to i32
  %m = arith.constant -1 : i32
  %uf = arith.uitofp %m : i32 to f32
  %one = arith.constant 1.0 : f32
  %bits = arith.bitcast %one : f32 to i32
  return %s, %u, %i, %uf, %bits : i32, i32, i32, f32, i32
}

// Rounding to a 16-bit format sees every bit of the value: just above a tie rounds up, in
// f16 and bf16, from f32 and from f64 (a bit below f32's precision).
// NARROW: result #0: bf16 = 1.0078125
// NARROW-NEXT: result #1: bf16 = 1.0078125
// NARROW-NEXT: result #2: f16 = 1.0009766
func.func @narrow_rounding() -> (bf16, bf16, f16) {
  %a = arith.constant 0x3F808001 : f32
  %b = arith.truncf %a : f32 to bf16
  %c = arith.constant 0x3FF0100000000001 : f64
  %d = arith.truncf %c : f64 to bf16
  %e = arith.constant 0x3FF0020000000001 : f64
  %f = arith.truncf %e : f64 to f16
  return %b, %d, %f : bf16, bf16, f16
}
