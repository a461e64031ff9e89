// RUN: tb-opt %s --canonicalize | FileCheck %s
// RUN: tb-opt %s --canonicalize=test-convergence | FileCheck %s
// The same checks hold for MLIR's canonicalizer.
// RUN: mlir-opt %s --canonicalize | FileCheck %s
// REQUIRES: mlir-opt

// Transcendental functions of f32 constants fold through the C library.
// CHECK-LABEL: func.func @exp_f32() -> (f32, f32, f32) {
// CHECK-NEXT:    %[[EXP:.*]] = arith.constant 1.64872122 : f32
// CHECK-NEXT:    %[[TANH:.*]] = arith.constant 0.462117165 : f32
// CHECK-NEXT:    %[[LOG2:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:    return %[[EXP]], %[[TANH]], %[[LOG2]] : f32, f32, f32
func.func @exp_f32() -> (f32, f32, f32) {
  %c = arith.constant 0.5 : f32
  %0 = math.exp %c : f32
  %1 = math.tanh %c : f32
  %2 = math.log2 %c : f32
  return %0, %1, %2 : f32, f32, f32
}

// And of f64 constants.
// CHECK-LABEL: func.func @sin_f64() -> f64 {
// CHECK-NEXT:    %[[R:.*]] = arith.constant 0.8414709848078965 : f64
// CHECK-NEXT:    return %[[R]] : f64
func.func @sin_f64() -> f64 {
  %c = arith.constant 1.0 : f64
  %0 = math.sin %c : f64
  return %0 : f64
}

// Other formats than f32 and f64 do not fold through the C library.
// CHECK-LABEL: func.func @exp_f16() -> f16 {
// CHECK-NEXT:    %[[C:.*]] = arith.constant 5.000000e-01 : f16
// CHECK-NEXT:    %[[R:.*]] = math.exp %[[C]] : f16
// CHECK-NEXT:    return %[[R]] : f16
func.func @exp_f16() -> f16 {
  %c = arith.constant 0.5 : f16
  %0 = math.exp %c : f16
  return %0 : f16
}

// log of zero is -inf; of a negative number, -0.0 included, it does not fold.
// CHECK-LABEL: func.func @log_domain() -> (f32, f32, f32) {
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG:     %[[NEG:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG:     %[[L1:.*]] = math.log %[[NEG]] : f32
// CHECK-DAG:     %[[L2:.*]] = math.log %[[NZ]] : f32
// CHECK:         return %[[NINF]], %[[L1]], %[[L2]] : f32, f32, f32
func.func @log_domain() -> (f32, f32, f32) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant -1.0 : f32
  %nz = arith.constant -0.0 : f32
  %0 = math.log %z : f32
  %1 = math.log %n : f32
  %2 = math.log %nz : f32
  return %0, %1, %2 : f32, f32, f32
}

// sqrt folds on non-negative numbers only.
// CHECK-LABEL: func.func @sqrt_domain() -> (f64, f64) {
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-DAG:     %[[NEG:.*]] = arith.constant -4.000000e+00 : f64
// CHECK-DAG:     %[[S:.*]] = math.sqrt %[[NEG]] : f64
// CHECK:         return %[[TWO]], %[[S]] : f64, f64
func.func @sqrt_domain() -> (f64, f64) {
  %p = arith.constant 4.0 : f64
  %n = arith.constant -4.0 : f64
  %0 = math.sqrt %p : f64
  %1 = math.sqrt %n : f64
  return %0, %1 : f64, f64
}

// log1p folds where x + 1 is not negative: log1p(-1) is -inf, log1p(-2) stays.
// CHECK-LABEL: func.func @log1p_domain() -> (f32, f32) {
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[M2:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-DAG:     %[[L:.*]] = math.log1p %[[M2]] : f32
// CHECK:         return %[[NINF]], %[[L]] : f32, f32
func.func @log1p_domain() -> (f32, f32) {
  %a = arith.constant -1.0 : f32
  %b = arith.constant -2.0 : f32
  %0 = math.log1p %a : f32
  %1 = math.log1p %b : f32
  return %0, %1 : f32, f32
}

// Rounding, absolute value and copysign fold in every float format.
// CHECK-LABEL: func.func @rounding_f16() -> (f16, f16, f16, f16, f16) {
// CHECK-DAG:     %[[M2:.*]] = arith.constant -2.000000e+00 : f16
// CHECK-DAG:     %[[M3:.*]] = arith.constant -3.000000e+00 : f16
// CHECK-DAG:     %[[P25:.*]] = arith.constant 2.500000e+00 : f16
// CHECK-DAG:     %[[M25:.*]] = arith.constant -2.500000e+00 : f16
// CHECK:         return %[[M2]], %[[M3]], %[[M2]], %[[P25]], %[[M25]] : f16, f16, f16, f16, f16
func.func @rounding_f16() -> (f16, f16, f16, f16, f16) {
  %x = arith.constant -2.5 : f16
  %y = arith.constant 2.5 : f16
  %0 = math.ceil %x : f16
  %1 = math.floor %x : f16
  %2 = math.roundeven %x : f16
  %3 = math.absf %x : f16
  %4 = math.copysign %y, %x : f16
  return %0, %1, %2, %3, %4 : f16, f16, f16, f16, f16
}

// round goes away from zero on ties, trunc toward zero.
// CHECK-LABEL: func.func @round_trunc() -> (f32, f32) {
// CHECK-DAG:     %[[R:.*]] = arith.constant -3.000000e+00 : f32
// CHECK-DAG:     %[[T:.*]] = arith.constant -2.000000e+00 : f32
// CHECK:         return %[[R]], %[[T]] : f32, f32
func.func @round_trunc() -> (f32, f32) {
  %x = arith.constant -2.5 : f32
  %0 = math.round %x : f32
  %1 = math.trunc %x : f32
  return %0, %1 : f32, f32
}

// atan2(0, 0) is NaN in any format.
// CHECK-LABEL: func.func @atan2_zeros() -> f16 {
// CHECK-NEXT:    %[[NAN:.*]] = arith.constant 0x7E00 : f16
// CHECK-NEXT:    return %[[NAN]] : f16
func.func @atan2_zeros() -> f16 {
  %z = arith.constant 0.0 : f16
  %0 = math.atan2 %z, %z : f16
  return %0 : f16
}

// Splats fold to splats.
// CHECK-LABEL: func.func @splat() -> vector<4xf32> {
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<1.64872122> : vector<4xf32>
// CHECK-NEXT:    return %[[R]] : vector<4xf32>
func.func @splat() -> vector<4xf32> {
  %c = arith.constant dense<0.5> : vector<4xf32>
  %0 = math.exp %c : vector<4xf32>
  return %0 : vector<4xf32>
}

// Dense values fold element by element, a splat standing for each of its elements.
// CHECK-LABEL: func.func @dense() -> tensor<2xf32> {
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2xf32>
func.func @dense() -> tensor<2xf32> {
  %x = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = arith.constant dense<-1.0> : tensor<2xf32>
  %0 = math.powf %x, %y : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Equal results make a splat.
// CHECK-LABEL: func.func @dense_to_splat() -> tensor<2xi8> {
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<1> : tensor<2xi8>
// CHECK-NEXT:    return %[[R]] : tensor<2xi8>
func.func @dense_to_splat() -> tensor<2xi8> {
  %x = arith.constant dense<[1, 2]> : tensor<2xi8>
  %0 = math.ctpop %x : tensor<2xi8>
  return %0 : tensor<2xi8>
}

// Bit counts count in the operand's width; index is 64 bits wide.
// CHECK-LABEL: func.func @bit_counts() -> (i32, i32, i32, i32, index) {
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[C29:.*]] = arith.constant 29 : i32
// CHECK-DAG:     %[[C61:.*]] = arith.constant 61 : index
// CHECK:         return %[[C32]], %[[C32]], %[[C2]], %[[C29]], %[[C61]] : i32, i32, i32, i32, index
func.func @bit_counts() -> (i32, i32, i32, i32, index) {
  %z = arith.constant 0 : i32
  %m = arith.constant -12 : i32
  %i = arith.constant 5 : index
  %0 = math.ctlz %z : i32
  %1 = math.cttz %z : i32
  %2 = math.cttz %m : i32
  %3 = math.ctpop %m : i32
  %4 = math.ctlz %i : index
  return %0, %1, %2, %3, %4 : i32, i32, i32, i32, index
}

// The absolute value of the most negative integer wraps to itself.
// CHECK-LABEL: func.func @absi_wraps() -> (i8, i8) {
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -128 : i8
// CHECK-DAG:     %[[FIVE:.*]] = arith.constant 5 : i8
// CHECK:         return %[[MIN]], %[[FIVE]] : i8, i8
func.func @absi_wraps() -> (i8, i8) {
  %min = arith.constant -128 : i8
  %m5 = arith.constant -5 : i8
  %0 = math.absi %min : i8
  %1 = math.absi %m5 : i8
  return %0, %1 : i8, i8
}

// Integer powers wrap; negative powers truncate toward zero.
// CHECK-LABEL: func.func @ipowi() -> (i32, i32, i32, i32, i32, i8) {
// CHECK-DAG:     %[[P:.*]] = arith.constant -1728 : i32
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[W:.*]] = arith.constant 0 : i8
// CHECK:         return %[[P]], %[[Z]], %[[M1]], %[[ONE]], %[[ONE]], %[[W]] : i32, i32, i32, i32, i32, i8
func.func @ipowi() -> (i32, i32, i32, i32, i32, i8) {
  %m12 = arith.constant -12 : i32
  %c3 = arith.constant 3 : i32
  %c2 = arith.constant 2 : i32
  %m1 = arith.constant -1 : i32
  %m3 = arith.constant -3 : i32
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %0 = math.ipowi %m12, %c3 : i32
  %1 = math.ipowi %c2, %m1 : i32
  %2 = math.ipowi %m1, %m3 : i32
  %3 = math.ipowi %one, %m3 : i32
  %4 = math.ipowi %c3, %c0 : i32
  %b = arith.constant 16 : i8
  %e = arith.constant 2 : i8
  %5 = math.ipowi %b, %e : i8
  return %0, %1, %2, %3, %4, %5 : i32, i32, i32, i32, i32, i8
}

// Zero to a negative power does not fold.
// CHECK-LABEL: func.func @ipowi_zero_negative() -> i32 {
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i32
// CHECK:         %[[R:.*]] = math.ipowi %[[Z]], %[[M1]] : i32
// CHECK-NEXT:    return %[[R]] : i32
func.func @ipowi_zero_negative() -> i32 {
  %z = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  %0 = math.ipowi %z, %m1 : i32
  return %0 : i32
}

// Classification of scalars: inf is neither NaN nor finite; a subnormal is not normal.
// CHECK-LABEL: func.func @classify() -> (i1, i1, i1, i1, i1) {
// CHECK-DAG:     %[[T:.*]] = arith.constant true
// CHECK-DAG:     %[[F:.*]] = arith.constant false
// CHECK:         return %[[F]], %[[T]], %[[F]], %[[F]], %[[T]] : i1, i1, i1, i1, i1
func.func @classify() -> (i1, i1, i1, i1, i1) {
  %inf = arith.constant 0x7F800000 : f32
  %sub = arith.constant 0x0001 : f16
  %one = arith.constant 1.0 : bf16
  %0 = math.isnan %inf : f32
  %1 = math.isinf %inf : f32
  %2 = math.isfinite %inf : f32
  %3 = math.isnormal %sub : f16
  %4 = math.isnormal %one : bf16
  return %0, %1, %2, %3, %4 : i1, i1, i1, i1, i1
}

// Classification folds splats, not other dense values.
// CHECK-LABEL: func.func @classify_dense() -> (vector<2xi1>, vector<2xi1>) {
// CHECK-DAG:     %[[F:.*]] = arith.constant dense<false> : vector<2xi1>
// CHECK-DAG:     %[[D:.*]] = arith.constant dense<[1.000000e+00, 0x7FC00000]> : vector<2xf32>
// CHECK-DAG:     %[[R:.*]] = math.isnan %[[D]] : vector<2xf32>
// CHECK:         return %[[F]], %[[R]] : vector<2xi1>, vector<2xi1>
func.func @classify_dense() -> (vector<2xi1>, vector<2xi1>) {
  %s = arith.constant dense<1.0> : vector<2xf32>
  %d = arith.constant dense<[1.0, 0x7FC00000]> : vector<2xf32>
  %0 = math.isnan %s : vector<2xf32>
  %1 = math.isnan %d : vector<2xf32>
  return %0, %1 : vector<2xi1>, vector<2xi1>
}

// cbrt, rsqrt, fma, fpowi, clampf and sincos have no folder.
// CHECK-LABEL: func.func @no_folder
// CHECK:         math.cbrt
// CHECK:         math.rsqrt
// CHECK:         math.fma
// CHECK:         math.fpowi
// CHECK:         math.clampf
// CHECK:         math.sincos
func.func @no_folder() -> (f32, f32, f32, f32, f32, f32, f32) {
  %c = arith.constant 8.0 : f32
  %n = arith.constant 2 : i32
  %0 = math.cbrt %c : f32
  %1 = math.rsqrt %c : f32
  %2 = math.fma %c, %c, %c : f32
  %3 = math.fpowi %c, %n : f32, i32
  %4 = math.clampf %c to [%c, %c] : f32
  %5, %6 = math.sincos %c : f32
  return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f32, f32, f32, f32
}

// Unused math ops are removed: they are pure.
// CHECK-LABEL: func.func @dead(%arg0: f32) {
// CHECK-NEXT:    return
func.func @dead(%x: f32) {
  %0 = math.exp %x : f32
  %1 = math.absf %0 : f32
  return
}
