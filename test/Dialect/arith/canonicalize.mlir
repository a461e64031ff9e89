// RUN: tb-opt %s --canonicalize | FileCheck %s
// RUN: tb-opt %s --canonicalize=test-convergence | FileCheck %s
// The same checks hold for MLIR's canonicalizer.
// RUN: mlir-opt %s --canonicalize | FileCheck %s
// REQUIRES: mlir-opt

// x + 0 is x.
// CHECK-LABEL: func.func @add_zero(%arg0: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
func.func @add_zero(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// Constant operands fold; the new constants replace the old ones at the top.
// CHECK-LABEL: func.func @fold_constants() -> (i32, i32, i1) {
// CHECK-NEXT:    %c35_i32 = arith.constant 35 : i32
// CHECK-NEXT:    %c-2_i32 = arith.constant -2 : i32
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    return %c35_i32, %c-2_i32, %true : i32, i32, i1
// CHECK-NEXT:  }
func.func @fold_constants() -> (i32, i32, i1) {
  %c7 = arith.constant 7 : i32
  %c5 = arith.constant 5 : i32
  %0 = arith.muli %c7, %c5 : i32
  %1 = arith.subi %c5, %c7 : i32
  %2 = arith.cmpi slt, %1, %0 : i32
  return %0, %1, %2 : i32, i32, i1
}

// Integer arithmetic wraps at the type's width.
// CHECK-LABEL: func.func @wraps() -> i8 {
// CHECK-NEXT:    %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT:    return %c-128_i8 : i8
// CHECK-NEXT:  }
func.func @wraps() -> i8 {
  %a = arith.constant 127 : i8
  %b = arith.constant 1 : i8
  %0 = arith.addi %a, %b : i8
  return %0 : i8
}

// Commutative ops take constants on the right.
// CHECK-LABEL: func.func @commute(%arg0: i32) -> i32 {
// CHECK-NEXT:    %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT:    %0 = arith.muli %arg0, %c3_i32 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @commute(%a: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %0 = arith.muli %c3, %a : i32
  return %0 : i32
}

// x - x is 0.
// CHECK-LABEL: func.func @sub_self(%arg0: i64) -> i64 {
// CHECK-NEXT:    %c0_i64 = arith.constant 0 : i64
// CHECK-NEXT:    return %c0_i64 : i64
// CHECK-NEXT:  }
func.func @sub_self(%a: i64) -> i64 {
  %0 = arith.subi %a, %a : i64
  return %0 : i64
}

// Floats fold in their own format (0.1 + 0.1 in f16 rounds).
// CHECK-LABEL: func.func @floats() -> (f32, f32, f16) {
// CHECK-NEXT:    %cst = arith.constant 3.375000e+00 : f32
// CHECK-NEXT:    %cst_0 = arith.constant -3.375000e+00 : f32
// CHECK-NEXT:    %cst_1 = arith.constant 1.999510e-01 : f16
// CHECK-NEXT:    return %cst, %cst_0, %cst_1 : f32, f32, f16
// CHECK-NEXT:  }
func.func @floats() -> (f32, f32, f16) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant 2.25 : f32
  %0 = arith.mulf %a, %b : f32
  %1 = arith.negf %0 : f32
  %h = arith.constant 0.1 : f16
  %2 = arith.addf %h, %h : f16
  return %0, %1, %2 : f32, f32, f16
}

// x * 1.0 is x.
// CHECK-LABEL: func.func @mul_one(%arg0: f32) -> f32 {
// CHECK-NEXT:    return %arg0 : f32
// CHECK-NEXT:  }
func.func @mul_one(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %0 = arith.mulf %x, %one : f32
  return %0 : f32
}

// Casts of constants fold.
// CHECK-LABEL: func.func @casts() -> (i32, f32, i8, index) {
// CHECK-NEXT:    %c-3_i32 = arith.constant -3 : i32
// CHECK-NEXT:    %cst = arith.constant -3.000000e+00 : f32
// CHECK-NEXT:    %c-3_i8 = arith.constant -3 : i8
// CHECK-NEXT:    %c-3 = arith.constant -3 : index
// CHECK-NEXT:    return %c-3_i32, %cst, %c-3_i8, %c-3 : i32, f32, i8, index
// CHECK-NEXT:  }
func.func @casts() -> (i32, f32, i8, index) {
  %a = arith.constant -3 : i8
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.sitofp %0 : i32 to f32
  %2 = arith.trunci %0 : i32 to i8
  %3 = arith.index_cast %0 : i32 to index
  return %0, %1, %2, %3 : i32, f32, i8, index
}

// A select on a constant condition picks its operand.
// CHECK-LABEL: func.func @select_const(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
func.func @select_const(%a: i32, %b: i32) -> i32 {
  %t = arith.constant true
  %0 = arith.select %t, %a, %b : i32
  return %0 : i32
}

// Splat constants fold like scalars.
// CHECK-LABEL: func.func @splat(%arg0: vector<4xi32>) -> vector<4xi32> {
// CHECK-NEXT:    %cst = arith.constant dense<0> : vector<4xi32>
// CHECK-NEXT:    return %cst : vector<4xi32>
// CHECK-NEXT:  }
func.func @splat(%v: vector<4xi32>) -> vector<4xi32> {
  %z = arith.constant dense<0> : vector<4xi32>
  %0 = arith.addi %v, %z : vector<4xi32>
  %1 = arith.muli %0, %z : vector<4xi32>
  return %1 : vector<4xi32>
}

// Equal constants are merged; chains of additions of constants reassociate.
// CHECK-LABEL: func.func @dedup(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT:    %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT:    %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:    %1 = arith.addi %0, %c1_i32 : i32
// CHECK-NEXT:    %2 = arith.addi %0, %c3_i32 : i32
// CHECK-NEXT:    return %1, %2 : i32, i32
// CHECK-NEXT:  }
func.func @dedup(%a: i32) -> (i32, i32) {
  %0 = arith.addi %a, %a : i32
  %c1 = arith.constant 1 : i32
  %1 = arith.addi %0, %c1 : i32
  %c1b = arith.constant 1 : i32
  %2 = arith.muli %1, %c1b : i32
  %c2 = arith.constant 2 : i32
  %3 = arith.addi %2, %c2 : i32
  return %2, %3 : i32, i32
}

// Division by zero does not fold.
// CHECK-LABEL: func.func @div_by_zero() -> i32 {
// CHECK-NEXT:    %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = arith.divsi %c7_i32, %c0_i32 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @div_by_zero() -> i32 {
  %a = arith.constant 7 : i32
  %z = arith.constant 0 : i32
  %0 = arith.divsi %a, %z : i32
  return %0 : i32
}

// Ordered comparisons with NaN are false, unordered ones true.
// CHECK-LABEL: func.func @cmpf_nan() -> (i1, i1) {
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    return %false, %true : i1, i1
// CHECK-NEXT:  }
func.func @cmpf_nan() -> (i1, i1) {
  %n = arith.constant 0x7FC00000 : f32
  %one = arith.constant 1.0 : f32
  %0 = arith.cmpf olt, %n, %one : f32
  %1 = arith.cmpf ult, %n, %one : f32
  return %0, %1 : i1, i1
}

// Signed predicates read i1 true as -1.
// CHECK-LABEL: func.func @cmpi_i1_signed
// CHECK-DAG:     %[[T:.*]] = arith.constant true
// CHECK-DAG:     %[[F:.*]] = arith.constant false
// CHECK:         return %[[T]], %[[F]] : i1, i1
func.func @cmpi_i1_signed() -> (i1, i1) {
  %t = arith.constant true
  %f = arith.constant false
  %0 = arith.cmpi slt, %t, %f : i1
  %1 = arith.cmpi ult, %t, %f : i1
  return %0, %1 : i1, i1
}

// ceildivsi by one is its dividend.
// CHECK-LABEL: func.func @ceildivsi_one(%arg0: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
func.func @ceildivsi_one(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.ceildivsi %a, %c1 : i32
  return %0 : i32
}

// ceildivsi rounds toward +inf: 7 / -2 = -3, -7 / -2 = 4, 0 / x = 0.
// CHECK-LABEL: func.func @ceildivsi_constants() -> (i32, i32, i32) {
// CHECK-NEXT:    %c-3_i32 = arith.constant -3 : i32
// CHECK-NEXT:    %c4_i32 = arith.constant 4 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    return %c-3_i32, %c4_i32, %c0_i32 : i32, i32, i32
// CHECK-NEXT:  }
func.func @ceildivsi_constants() -> (i32, i32, i32) {
  %c7 = arith.constant 7 : i32
  %cm7 = arith.constant -7 : i32
  %cm2 = arith.constant -2 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.ceildivsi %c7, %cm2 : i32
  %1 = arith.ceildivsi %cm7, %cm2 : i32
  %2 = arith.ceildivsi %c0, %cm2 : i32
  return %0, %1, %2 : i32, i32, i32
}

// ceildivsi does not fold a division by zero, nor (as MLIR) any with the minimum value
// as an operand, whose negation overflows.
// CHECK-LABEL: func.func @ceildivsi_no_fold() -> (i8, i8, i8) {
// CHECK-NEXT:    %c7_i8 = arith.constant 7 : i8
// CHECK-NEXT:    %c0_i8 = arith.constant 0 : i8
// CHECK-NEXT:    %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT:    %c2_i8 = arith.constant 2 : i8
// CHECK-NEXT:    %0 = arith.ceildivsi %c7_i8, %c0_i8 : i8
// CHECK-NEXT:    %1 = arith.ceildivsi %c-128_i8, %c2_i8 : i8
// CHECK-NEXT:    %2 = arith.ceildivsi %c7_i8, %c-128_i8 : i8
// CHECK-NEXT:    return %0, %1, %2 : i8, i8, i8
// CHECK-NEXT:  }
func.func @ceildivsi_no_fold() -> (i8, i8, i8) {
  %c7 = arith.constant 7 : i8
  %c0 = arith.constant 0 : i8
  %min = arith.constant -128 : i8
  %c2 = arith.constant 2 : i8
  %0 = arith.ceildivsi %c7, %c0 : i8
  %1 = arith.ceildivsi %min, %c2 : i8
  %2 = arith.ceildivsi %c7, %min : i8
  return %0, %1, %2 : i8, i8, i8
}

// ceildivui reads its operands unsigned: 255 / 2 rounds up to 128, which is -128 in i8.
// CHECK-LABEL: func.func @ceildivui_constants() -> (i8, i8) {
// CHECK-NEXT:    %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT:    %c1_i8 = arith.constant 1 : i8
// CHECK-NEXT:    return %c-128_i8, %c1_i8 : i8, i8
// CHECK-NEXT:  }
func.func @ceildivui_constants() -> (i8, i8) {
  %m1 = arith.constant -1 : i8
  %c2 = arith.constant 2 : i8
  %c7 = arith.constant 7 : i8
  %0 = arith.ceildivui %m1, %c2 : i8
  %1 = arith.ceildivui %c7, %m1 : i8
  return %0, %1 : i8, i8
}

// ceildivui by one is its dividend; by zero it does not fold.
// CHECK-LABEL: func.func @ceildivui_one_and_zero(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT:    %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = arith.ceildivui %c1_i32, %c0_i32 : i32
// CHECK-NEXT:    return %arg0, %0 : i32, i32
// CHECK-NEXT:  }
func.func @ceildivui_one_and_zero(%a: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.ceildivui %a, %c1 : i32
  %1 = arith.ceildivui %c1, %c0 : i32
  return %0, %1 : i32, i32
}

// floordivsi rounds toward -inf: -7 / 2 = -4, 7 / -2 = -4, -7 / -2 = 3; splats fold too.
// CHECK-LABEL: func.func @floordivsi_constants() -> (i32, i32, i32, vector<4xi16>) {
// CHECK-NEXT:    %c-4_i32 = arith.constant -4 : i32
// CHECK-NEXT:    %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT:    %cst = arith.constant dense<-3> : vector<4xi16>
// CHECK-NEXT:    return %c-4_i32, %c-4_i32, %c3_i32, %cst : i32, i32, i32, vector<4xi16>
// CHECK-NEXT:  }
func.func @floordivsi_constants() -> (i32, i32, i32, vector<4xi16>) {
  %c7 = arith.constant 7 : i32
  %cm7 = arith.constant -7 : i32
  %c2 = arith.constant 2 : i32
  %cm2 = arith.constant -2 : i32
  %0 = arith.floordivsi %cm7, %c2 : i32
  %1 = arith.floordivsi %c7, %cm2 : i32
  %2 = arith.floordivsi %cm7, %cm2 : i32
  %v = arith.constant dense<-9> : vector<4xi16>
  %w = arith.constant dense<4> : vector<4xi16>
  %3 = arith.floordivsi %v, %w : vector<4xi16>
  return %0, %1, %2, %3 : i32, i32, i32, vector<4xi16>
}

// floordivsi by one is its dividend; by zero, and MIN / -1, it does not fold; MIN / 2 does.
// CHECK-LABEL: func.func @floordivsi_edges(%arg0: i32) -> (i32, i32, i32, i32) {
// CHECK-NEXT:    %c-1073741824_i32 = arith.constant -1073741824 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT:    %c-2147483648_i32 = arith.constant -2147483648 : i32
// CHECK-NEXT:    %0 = arith.floordivsi %arg0, %c0_i32 : i32
// CHECK-NEXT:    %1 = arith.floordivsi %c-2147483648_i32, %c-1_i32 : i32
// CHECK-NEXT:    return %arg0, %0, %1, %c-1073741824_i32 : i32, i32, i32, i32
// CHECK-NEXT:  }
func.func @floordivsi_edges(%a: i32) -> (i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  %c2 = arith.constant 2 : i32
  %min = arith.constant -2147483648 : i32
  %0 = arith.floordivsi %a, %c1 : i32
  %1 = arith.floordivsi %a, %c0 : i32
  %2 = arith.floordivsi %min, %m1 : i32
  %3 = arith.floordivsi %min, %c2 : i32
  return %0, %1, %2, %3 : i32, i32, i32, i32
}

// addui_extended(x, 0) is x without carry.
// CHECK-LABEL: func.func @addui_extended_zero(%arg0: i32) -> (i32, i1) {
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    return %arg0, %false : i32, i1
// CHECK-NEXT:  }
func.func @addui_extended_zero(%a: i32) -> (i32, i1) {
  %c0 = arith.constant 0 : i32
  %sum, %overflow = arith.addui_extended %a, %c0 : i32, i1
  return %sum, %overflow : i32, i1
}

// Constants add with their carry: -1 + 1 wraps to 0 and carries; splats fold too.
// CHECK-LABEL: func.func @addui_extended_constants() -> (i32, i1, vector<4xi8>, vector<4xi1>) {
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %cst = arith.constant dense<-56> : vector<4xi8>
// CHECK-NEXT:    %cst_0 = arith.constant dense<false> : vector<4xi1>
// CHECK-NEXT:    return %c0_i32, %true, %cst, %cst_0 : i32, i1, vector<4xi8>, vector<4xi1>
// CHECK-NEXT:  }
func.func @addui_extended_constants() -> (i32, i1, vector<4xi8>, vector<4xi1>) {
  %m1 = arith.constant -1 : i32
  %c1 = arith.constant 1 : i32
  %sum, %overflow = arith.addui_extended %m1, %c1 : i32, i1
  %v = arith.constant dense<100> : vector<4xi8>
  %vs, %vo = arith.addui_extended %v, %v : vector<4xi8>, vector<4xi1>
  return %sum, %overflow, %vs, %vo : i32, i1, vector<4xi8>, vector<4xi1>
}

// An unused carry leaves a plain addition.
// CHECK-LABEL: func.func @addui_extended_unused_carry(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @addui_extended_unused_carry(%a: i32, %b: i32) -> i32 {
  %sum, %overflow = arith.addui_extended %a, %b : i32, i1
  return %sum : i32
}

// mulsi_extended of constants: MIN * -1 = 2^31, low half MIN, high half 0.
// CHECK-LABEL: func.func @mulsi_extended_constants() -> (i32, i32, vector<4xi8>, vector<4xi8>) {
// CHECK-NEXT:    %c-2147483648_i32 = arith.constant -2147483648 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %cst = arith.constant dense<0> : vector<4xi8>
// CHECK-NEXT:    %cst_0 = arith.constant dense<64> : vector<4xi8>
// CHECK-NEXT:    return %c-2147483648_i32, %c0_i32, %cst, %cst_0 : i32, i32, vector<4xi8>, vector<4xi8>
// CHECK-NEXT:  }
func.func @mulsi_extended_constants() -> (i32, i32, vector<4xi8>, vector<4xi8>) {
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %low, %high = arith.mulsi_extended %min, %m1 : i32
  %v = arith.constant dense<-128> : vector<4xi8>
  %vl, %vh = arith.mulsi_extended %v, %v : vector<4xi8>
  return %low, %high, %vl, %vh : i32, i32, vector<4xi8>, vector<4xi8>
}

// mulsi_extended by zero is that zero twice.
// CHECK-LABEL: func.func @mulsi_extended_zero(%arg0: i64) -> (i64, i64) {
// CHECK-NEXT:    %c0_i64 = arith.constant 0 : i64
// CHECK-NEXT:    return %c0_i64, %c0_i64 : i64, i64
// CHECK-NEXT:  }
func.func @mulsi_extended_zero(%a: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %low, %high = arith.mulsi_extended %a, %c0 : i64
  return %low, %high : i64, i64
}

// mulsi_extended by one is x, with x's sign as the high half.
// CHECK-LABEL: func.func @mulsi_extended_one(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = arith.cmpi slt, %arg0, %c0_i32 : i32
// CHECK-NEXT:    %1 = arith.extsi %0 : i1 to i32
// CHECK-NEXT:    return %arg0, %1 : i32, i32
// CHECK-NEXT:  }
func.func @mulsi_extended_one(%a: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %low, %high = arith.mulsi_extended %a, %c1 : i32
  return %low, %high : i32, i32
}

// An unused high half leaves a plain multiplication.
// CHECK-LABEL: func.func @mulsi_extended_unused_high(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    %0 = arith.muli %arg0, %arg1 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @mulsi_extended_unused_high(%a: i32, %b: i32) -> i32 {
  %low, %high = arith.mulsi_extended %a, %b : i32
  return %low : i32
}

// mului_extended of constants: (2^64 - 1)^2 has high half 2^64 - 2.
// CHECK-LABEL: func.func @mului_extended_constants() -> (i64, i64) {
// CHECK-NEXT:    %c1_i64 = arith.constant 1 : i64
// CHECK-NEXT:    %c-2_i64 = arith.constant -2 : i64
// CHECK-NEXT:    return %c1_i64, %c-2_i64 : i64, i64
// CHECK-NEXT:  }
func.func @mului_extended_constants() -> (i64, i64) {
  %m1 = arith.constant -1 : i64
  %low, %high = arith.mului_extended %m1, %m1 : i64
  return %low, %high : i64, i64
}

// mului_extended by one is x with a zero high half; by zero, zero twice.
// CHECK-LABEL: func.func @mului_extended_one_and_zero(%arg0: i32) -> (i32, i32, i32, i32) {
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    return %arg0, %c0_i32, %c0_i32, %c0_i32 : i32, i32, i32, i32
// CHECK-NEXT:  }
func.func @mului_extended_one_and_zero(%a: i32) -> (i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %l1, %h1 = arith.mului_extended %a, %c1 : i32
  %l0, %h0 = arith.mului_extended %a, %c0 : i32
  return %l1, %h1, %l0, %h0 : i32, i32, i32, i32
}

// An unused high half leaves a plain multiplication.
// CHECK-LABEL: func.func @mului_extended_unused_high(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    %0 = arith.muli %arg0, %arg1 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @mului_extended_unused_high(%a: i32, %b: i32) -> i32 {
  %low, %high = arith.mului_extended %a, %b : i32
  return %low : i32
}

// Invalid operations give APFloat's NaN, positive and quiet with no payload, on any host
// (x86 hardware would give 0xFFC00000).
// CHECK-LABEL: func.func @invalid_operation_nan() -> (f32, f32, f32, f32, f32) {
// CHECK-NEXT:    %cst = arith.constant 0x7FC00000 : f32
// CHECK-NEXT:    return %cst, %cst, %cst, %cst, %cst : f32, f32, f32, f32, f32
// CHECK-NEXT:  }
func.func @invalid_operation_nan() -> (f32, f32, f32, f32, f32) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %0 = arith.divf %z, %z : f32
  %1 = arith.subf %inf, %inf : f32
  %2 = arith.mulf %z, %inf : f32
  %3 = arith.remf %one, %z : f32
  %4 = arith.remf %inf, %one : f32
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f32
}

// The same in the other formats.
// CHECK-LABEL: func.func @invalid_operation_nan_formats() -> (f16, bf16, f64, f8E5M2, f8E4M3FN, f8E4M3FNUZ) {
// CHECK-NEXT:    %cst = arith.constant 0x7E00 : f16
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC0 : bf16
// CHECK-NEXT:    %cst_1 = arith.constant 0x7FF8000000000000 : f64
// CHECK-NEXT:    %cst_2 = arith.constant 0x7E : f8E5M2
// CHECK-NEXT:    %cst_3 = arith.constant 0x7F : f8E4M3FN
// CHECK-NEXT:    %cst_4 = arith.constant 0x80 : f8E4M3FNUZ
// CHECK-NEXT:    return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4 : f16, bf16, f64, f8E5M2, f8E4M3FN, f8E4M3FNUZ
// CHECK-NEXT:  }
func.func @invalid_operation_nan_formats() -> (f16, bf16, f64, f8E5M2, f8E4M3FN, f8E4M3FNUZ) {
  %h = arith.constant 0.0 : f16
  %b = arith.constant 0.0 : bf16
  %d = arith.constant 0.0 : f64
  %e5 = arith.constant 0.0 : f8E5M2
  %e4 = arith.constant 0.0 : f8E4M3FN
  %uz = arith.constant 0.0 : f8E4M3FNUZ
  %0 = arith.divf %h, %h : f16
  %1 = arith.divf %b, %b : bf16
  %2 = arith.divf %d, %d : f64
  %3 = arith.divf %e5, %e5 : f8E5M2
  %4 = arith.divf %e4, %e4 : f8E4M3FN
  %5 = arith.divf %uz, %uz : f8E4M3FNUZ
  return %0, %1, %2, %3, %4, %5 : f16, bf16, f64, f8E5M2, f8E4M3FN, f8E4M3FNUZ
}

// A NaN operand is the result with its sign and payload: the left one if both are NaN,
// quieted if it signals.
// CHECK-LABEL: func.func @nan_operands() -> (f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:    %cst = arith.constant 0xFFC00001 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC00001 : f32
// CHECK-NEXT:    %cst_1 = arith.constant 0xFFC12345 : f32
// CHECK-NEXT:    %cst_2 = arith.constant 0x7FC00002 : f32
// CHECK-NEXT:    return %cst, %cst, %cst_0, %cst_1, %cst_2, %cst_1, %cst : f32, f32, f32, f32, f32, f32, f32
// CHECK-NEXT:  }
func.func @nan_operands() -> (f32, f32, f32, f32, f32, f32, f32) {
  %one = arith.constant 1.0 : f32
  %neg_nan = arith.constant 0xFFC00001 : f32
  %snan = arith.constant 0x7F800001 : f32
  %neg_snan = arith.constant 0xFF812345 : f32
  %qnan = arith.constant 0x7FC00002 : f32
  %0 = arith.addf %neg_nan, %one : f32
  %1 = arith.subf %one, %neg_nan : f32
  %2 = arith.mulf %one, %snan : f32
  %3 = arith.divf %neg_snan, %qnan : f32
  %4 = arith.addf %qnan, %neg_snan : f32
  %5 = arith.remf %one, %neg_snan : f32
  %6 = arith.remf %neg_nan, %one : f32
  return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f32, f32, f32, f32
}

// NaN payloads of f16, bf16 and f64 survive folding too.
// CHECK-LABEL: func.func @nan_operands_formats() -> (f16, bf16, f64, f8E5M2) {
// CHECK-NEXT:    %cst = arith.constant 0xFF01 : f16
// CHECK-NEXT:    %cst_0 = arith.constant 0xFFC1 : bf16
// CHECK-NEXT:    %cst_1 = arith.constant 0xFFF8000000000123 : f64
// CHECK-NEXT:    %cst_2 = arith.constant 0xFF : f8E5M2
// CHECK-NEXT:    return %cst, %cst_0, %cst_1, %cst_2 : f16, bf16, f64, f8E5M2
// CHECK-NEXT:  }
func.func @nan_operands_formats() -> (f16, bf16, f64, f8E5M2) {
  %h = arith.constant 0xFD01 : f16
  %h1 = arith.constant 1.0 : f16
  %b = arith.constant 0xFFC1 : bf16
  %b1 = arith.constant 2.0 : bf16
  %d = arith.constant 0xFFF0000000000123 : f64
  %d1 = arith.constant 1.0 : f64
  %e = arith.constant 0xFD : f8E5M2
  %e1 = arith.constant 1.0 : f8E5M2
  %0 = arith.addf %h1, %h : f16
  %1 = arith.mulf %b, %b1 : bf16
  %2 = arith.addf %d, %d1 : f64
  %3 = arith.addf %e, %e1 : f8E5M2
  return %0, %1, %2, %3 : f16, bf16, f64, f8E5M2
}

// maximumf/minimumf propagate a NaN operand quieted (the left one first); -0 < +0.
// CHECK-LABEL: func.func @maximumf_minimumf_nan() -> (f32, f32, f32, f32, f16) {
// CHECK-NEXT:    %cst = arith.constant 0xFFC12345 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC00002 : f32
// CHECK-NEXT:    %cst_1 = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %cst_2 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %cst_3 = arith.constant 0xFF01 : f16
// CHECK-NEXT:    return %cst, %cst_0, %cst_1, %cst_2, %cst_3 : f32, f32, f32, f32, f16
// CHECK-NEXT:  }
func.func @maximumf_minimumf_nan() -> (f32, f32, f32, f32, f16) {
  %one = arith.constant 1.0 : f32
  %neg_snan = arith.constant 0xFF812345 : f32
  %qnan = arith.constant 0x7FC00002 : f32
  %neg_nan = arith.constant 0xFFC00001 : f32
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %0 = arith.maximumf %one, %neg_snan : f32
  %1 = arith.minimumf %qnan, %neg_nan : f32
  %2 = arith.minimumf %z, %nz : f32
  %3 = arith.maximumf %nz, %z : f32
  %h = arith.constant 0xFD01 : f16
  %h1 = arith.constant 1.0 : f16
  %4 = arith.minimumf %h, %h1 : f16
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f16
}

// maxnumf/minnumf prefer the number over a quiet NaN but quiet a signaling NaN.
// CHECK-LABEL: func.func @maxnumf_minnumf_nan() -> (f32, f32, f32) {
// CHECK-NEXT:    %cst = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC00001 : f32
// CHECK-NEXT:    return %cst_0, %cst, %cst : f32, f32, f32
// CHECK-NEXT:  }
func.func @maxnumf_minnumf_nan() -> (f32, f32, f32) {
  %one = arith.constant 1.0 : f32
  %snan = arith.constant 0x7F800001 : f32
  %qnan = arith.constant 0x7FC00002 : f32
  %0 = arith.minnumf %snan, %one : f32
  %1 = arith.maxnumf %qnan, %one : f32
  %2 = arith.minnumf %one, %snan : f32
  return %0, %1, %2 : f32, f32, f32
}

// maximumf(x, -inf) and minimumf(x, +inf) are x.
// CHECK-LABEL: func.func @min_max_neutral(%arg0: f32) -> (f32, f32) {
// CHECK-NEXT:    return %arg0, %arg0 : f32, f32
// CHECK-NEXT:  }
func.func @min_max_neutral(%x: f32) -> (f32, f32) {
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %0 = arith.maximumf %x, %ninf : f32
  %1 = arith.minimumf %x, %inf : f32
  return %0, %1 : f32, f32
}

// mulf(x, 0) is 0 only under nnan and nsz.
// CHECK-LABEL: func.func @mulf_zero_fastmath(%arg0: f32) -> (f32, f32) {
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %0 = arith.mulf %arg0, %cst : f32
// CHECK-NEXT:    return %cst, %0 : f32, f32
// CHECK-NEXT:  }
func.func @mulf_zero_fastmath(%x: f32) -> (f32, f32) {
  %z = arith.constant 0.0 : f32
  %0 = arith.mulf %x, %z fastmath<nnan,nsz> : f32
  %1 = arith.mulf %x, %z : f32
  return %0, %1 : f32, f32
}

// extf/truncf fold only exact conversions: 0.5 converts, 1/3 does not fit f16, 1e10
// overflows f16, +inf has no f8E4M3FN encoding; a rounding mode does not matter then.
// CHECK-LABEL: func.func @float_casts_exact() -> (f16, f32, f16, f16, f8E4M3FN, f16) {
// CHECK-NEXT:    %cst = arith.constant 0.333333343 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    %cst_1 = arith.constant 1.000000e+10 : f32
// CHECK-NEXT:    %cst_2 = arith.constant 5.000000e-01 : f16
// CHECK-NEXT:    %cst_3 = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %0 = arith.truncf %cst : f32 to f16
// CHECK-NEXT:    %1 = arith.truncf %cst_1 : f32 to f16
// CHECK-NEXT:    %2 = arith.truncf %cst_0 : f32 to f8E4M3FN
// CHECK-NEXT:    return %cst_2, %cst_3, %0, %1, %2, %cst_2 : f16, f32, f16, f16, f8E4M3FN, f16
// CHECK-NEXT:  }
func.func @float_casts_exact() -> (f16, f32, f16, f16, f8E4M3FN, f16) {
  %third = arith.constant 0x3EAAAAAB : f32
  %half = arith.constant 0.5 : f32
  %h = arith.constant 0.5 : f16
  %inf = arith.constant 0x7F800000 : f32
  %big = arith.constant 1.0e10 : f32
  %0 = arith.truncf %half : f32 to f16
  %1 = arith.extf %h : f16 to f32
  %2 = arith.truncf %third : f32 to f16
  %3 = arith.truncf %big : f32 to f16
  %4 = arith.truncf %inf : f32 to f8E4M3FN
  %5 = arith.truncf %half downward : f32 to f16
  return %0, %1, %2, %3, %4, %5 : f16, f32, f16, f16, f8E4M3FN, f16
}

// Quiet NaNs convert with sign and payload; signaling NaNs and payload bits that would
// drop do not fold.
// CHECK-LABEL: func.func @float_casts_nan() -> (f32, f16, f16, f64, bf16) {
// CHECK-NEXT:    %cst = arith.constant 0x7FC02000 : f32
// CHECK-NEXT:    %cst_0 = arith.constant 0x7FC00001 : f32
// CHECK-NEXT:    %cst_1 = arith.constant 0x7D00 : f16
// CHECK-NEXT:    %cst_2 = arith.constant 0xFFC02000 : f32
// CHECK-NEXT:    %cst_3 = arith.constant 0x7E01 : f16
// CHECK-NEXT:    %0 = arith.truncf %cst_0 : f32 to f16
// CHECK-NEXT:    %1 = arith.extf %cst_1 : f16 to f64
// CHECK-NEXT:    %2 = arith.truncf %cst : f32 to bf16
// CHECK-NEXT:    return %cst_2, %cst_3, %0, %1, %2 : f32, f16, f16, f64, bf16
// CHECK-NEXT:  }
func.func @float_casts_nan() -> (f32, f16, f16, f64, bf16) {
  %hn = arith.constant 0xFE01 : f16
  %qn = arith.constant 0x7FC02000 : f32
  %qn1 = arith.constant 0x7FC00001 : f32
  %sn = arith.constant 0x7D00 : f16
  %0 = arith.extf %hn : f16 to f32
  %1 = arith.truncf %qn : f32 to f16
  %2 = arith.truncf %qn1 : f32 to f16
  %3 = arith.extf %sn : f16 to f64
  %4 = arith.truncf %qn : f32 to bf16
  return %0, %1, %2, %3, %4 : f32, f16, f16, f64, bf16
}

// extsi reads i1 true as -1.
// CHECK-LABEL: func.func @extsi_true() -> (i32, i32) {
// CHECK-NEXT:    %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT:    %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT:    return %c-1_i32, %c1_i32 : i32, i32
// CHECK-NEXT:  }
func.func @extsi_true() -> (i32, i32) {
  %t = arith.constant true
  %0 = arith.extsi %t : i1 to i32
  %1 = arith.extui %t : i1 to i32
  return %0, %1 : i32, i32
}

// Extended multiplications fold at 128 bits too: MIN * -3 has high half 1 signed.
// CHECK-LABEL: func.func @mul_extended_i128() -> (i128, i128, i128) {
// CHECK-NEXT:    %c-170141183460469231731687303715884105728_i128 = arith.constant -170141183460469231731687303715884105728 : i128
// CHECK-NEXT:    %c1_i128 = arith.constant 1 : i128
// CHECK-NEXT:    %c170141183460469231731687303715884105726_i128 = arith.constant 170141183460469231731687303715884105726 : i128
// CHECK-NEXT:    return %c-170141183460469231731687303715884105728_i128, %c1_i128, %c170141183460469231731687303715884105726_i128 : i128, i128, i128
// CHECK-NEXT:  }
func.func @mul_extended_i128() -> (i128, i128, i128) {
  %min = arith.constant -170141183460469231731687303715884105728 : i128
  %m3 = arith.constant -3 : i128
  %low, %high = arith.mulsi_extended %min, %m3 : i128
  %lu, %hu = arith.mului_extended %min, %m3 : i128
  return %low, %high, %hu : i128, i128, i128
}

// An i1 true divisor is the "one" of the identity folds: x / true is x, as in MLIR.
// CHECK-LABEL: func.func @i1_division() -> (i1, i1) {
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    return %true, %true : i1, i1
// CHECK-NEXT:  }
func.func @i1_division() -> (i1, i1) {
  %t = arith.constant true
  %0 = arith.divsi %t, %t : i1
  %1 = arith.floordivsi %t, %t : i1
  return %0, %1 : i1, i1
}

// An `xori` applied twice with the same operand cancels.
// CHECK-LABEL: func.func @xori_twice(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
func.func @xori_twice(%a: i32, %b: i32) -> i32 {
  %0 = arith.xori %b, %a : i32
  %1 = arith.xori %0, %b : i32
  return %1 : i32
}

// Negating a comparison with `xori true` inverts its predicate.
// CHECK-LABEL: func.func @xori_not_cmpi(%arg0: i32, %arg1: i32) -> i1 {
// CHECK-NEXT:    %0 = arith.cmpi sge, %arg0, %arg1 : i32
// CHECK-NEXT:    return %0 : i1
// CHECK-NEXT:  }
func.func @xori_not_cmpi(%a: i32, %b: i32) -> i1 {
  %true = arith.constant true
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.xori %0, %true : i1
  return %1 : i1
}

// A bitwise op of two equal extensions works on the narrow values.
// CHECK-LABEL: func.func @ori_of_extui(%arg0: i8, %arg1: i8) -> i32 {
// CHECK-NEXT:    %0 = arith.ori %arg0, %arg1 : i8
// CHECK-NEXT:    %1 = arith.extui %0 : i8 to i32
// CHECK-NEXT:    return %1 : i32
// CHECK-NEXT:  }
func.func @ori_of_extui(%a: i8, %b: i8) -> i32 {
  %0 = arith.extui %a : i8 to i32
  %1 = arith.extui %b : i8 to i32
  %2 = arith.ori %0, %1 : i32
  return %2 : i32
}

// A value and its complement share no bit, and together set every bit.
// CHECK-LABEL: func.func @complement(%arg0: i16) -> (i16, i16) {
// CHECK-NEXT:    %c-1_i16 = arith.constant -1 : i16
// CHECK-NEXT:    %c0_i16 = arith.constant 0 : i16
// CHECK-NEXT:    return %c0_i16, %c-1_i16 : i16, i16
// CHECK-NEXT:  }
func.func @complement(%a: i16) -> (i16, i16) {
  %ones = arith.constant -1 : i16
  %not = arith.xori %a, %ones : i16
  %0 = arith.andi %not, %a : i16
  %1 = arith.ori %a, %not : i16
  return %0, %1 : i16, i16
}

// The largest value absorbs a signed maximum; the smallest leaves the other operand.
// CHECK-LABEL: func.func @maxsi_extremes(%arg0: i8) -> (i8, i8) {
// CHECK-NEXT:    %c127_i8 = arith.constant 127 : i8
// CHECK-NEXT:    return %c127_i8, %arg0 : i8, i8
// CHECK-NEXT:  }
func.func @maxsi_extremes(%a: i8) -> (i8, i8) {
  %max = arith.constant 127 : i8
  %min = arith.constant -128 : i8
  %0 = arith.maxsi %max, %a : i8
  %1 = arith.maxsi %a, %min : i8
  return %0, %1 : i8, i8
}

// Zero absorbs an unsigned minimum; all ones leave the other operand.
// CHECK-LABEL: func.func @minui_extremes(%arg0: i8) -> (i8, i8) {
// CHECK-NEXT:    %c0_i8 = arith.constant 0 : i8
// CHECK-NEXT:    return %c0_i8, %arg0 : i8, i8
// CHECK-NEXT:  }
func.func @minui_extremes(%a: i8) -> (i8, i8) {
  %zero = arith.constant 0 : i8
  %ones = arith.constant -1 : i8
  %0 = arith.minui %a, %zero : i8
  %1 = arith.minui %ones, %a : i8
  return %0, %1 : i8, i8
}

// Adding back what was subtracted, and subtracting an addend, cancel.
// CHECK-LABEL: func.func @add_sub_cancel(%arg0: index, %arg1: index) -> (index, index) {
// CHECK-NEXT:    return %arg0, %arg1 : index, index
// CHECK-NEXT:  }
func.func @add_sub_cancel(%a: index, %b: index) -> (index, index) {
  %0 = arith.subi %a, %b : index
  %1 = arith.addi %b, %0 : index
  %2 = arith.addi %a, %b : index
  %3 = arith.subi %2, %a : index
  return %1, %3 : index, index
}

// Constants of a chain of additions and subtractions combine into one.
// CHECK-LABEL: func.func @constant_chains(%arg0: i32) -> (i32, i32, i32) {
// CHECK-NEXT:    %c-7_i32 = arith.constant -7 : i32
// CHECK-NEXT:    %c14_i32 = arith.constant 14 : i32
// CHECK-NEXT:    %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT:    %0 = arith.addi %arg0, %c7_i32 : i32
// CHECK-NEXT:    %1 = arith.subi %c14_i32, %arg0 : i32
// CHECK-NEXT:    %2 = arith.addi %arg0, %c-7_i32 : i32
// CHECK-NEXT:    return %0, %1, %2 : i32, i32, i32
// CHECK-NEXT:  }
func.func @constant_chains(%x: i32) -> (i32, i32, i32) {
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c10 = arith.constant 10 : i32
  %0 = arith.subi %x, %c3 : i32
  %1 = arith.addi %0, %c10 : i32
  %2 = arith.subi %x, %c4 : i32
  %3 = arith.subi %c10, %2 : i32
  %4 = arith.addi %x, %c3 overflow<nsw> : i32
  %5 = arith.subi %4, %c10 overflow<nsw> : i32
  return %1, %3, %5 : i32, i32, i32
}

// Adding a product by -1 is a subtraction.
// CHECK-LABEL: func.func @add_negated(%arg0: i64, %arg1: i64) -> i64 {
// CHECK-NEXT:    %0 = arith.subi %arg0, %arg1 : i64
// CHECK-NEXT:    return %0 : i64
// CHECK-NEXT:  }
func.func @add_negated(%a: i64, %b: i64) -> i64 {
  %m1 = arith.constant -1 : i64
  %0 = arith.muli %b, %m1 : i64
  %1 = arith.addi %a, %0 : i64
  return %1 : i64
}

// (a - b) - a is 0 - b.
// CHECK-LABEL: func.func @sub_sub_lhs(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = arith.subi %c0_i32, %arg1 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @sub_sub_lhs(%a: i32, %b: i32) -> i32 {
  %0 = arith.subi %a, %b : i32
  %1 = arith.subi %0, %a : i32
  return %1 : i32
}

// A product that cannot wrap, divided by one factor, is the other factor.
// CHECK-LABEL: func.func @div_of_mul(%arg0: index, %arg1: index) -> (index, index, index) {
// CHECK-NEXT:    %0 = arith.muli %arg0, %arg1 : index
// CHECK-NEXT:    %1 = arith.divui %0, %arg0 : index
// CHECK-NEXT:    return %arg1, %arg0, %1 : index, index, index
// CHECK-NEXT:  }
func.func @div_of_mul(%a: index, %b: index) -> (index, index, index) {
  %0 = arith.muli %a, %b overflow<nuw> : index
  %1 = arith.divui %0, %a : index
  %2 = arith.muli %a, %b overflow<nsw> : index
  %3 = arith.divsi %2, %b : index
  %4 = arith.muli %a, %b : index
  %5 = arith.divui %4, %a : index
  return %1, %3, %5 : index, index, index
}

// A constant on the left of `cmpi` moves right, mirroring the predicate.
// CHECK-LABEL: func.func @cmpi_constant_right(%arg0: i32) -> (i1, i1) {
// CHECK-NEXT:    %c5_i32 = arith.constant 5 : i32
// CHECK-NEXT:    %0 = arith.cmpi sgt, %arg0, %c5_i32 : i32
// CHECK-NEXT:    %1 = arith.cmpi ule, %arg0, %c5_i32 : i32
// CHECK-NEXT:    return %0, %1 : i1, i1
// CHECK-NEXT:  }
func.func @cmpi_constant_right(%a: i32) -> (i1, i1) {
  %c5 = arith.constant 5 : i32
  %0 = arith.cmpi slt, %c5, %a : i32
  %1 = arith.cmpi uge, %c5, %a : i32
  return %0, %1 : i1, i1
}

// An extended i1 differs from zero exactly when it is true.
// CHECK-LABEL: func.func @cmpi_extended_bool(%arg0: i1) -> i1 {
// CHECK-NEXT:    return %arg0 : i1
// CHECK-NEXT:  }
func.func @cmpi_extended_bool(%b: i1) -> i1 {
  %c0 = arith.constant 0 : i32
  %0 = arith.extsi %b : i1 to i32
  %1 = arith.cmpi ne, %0, %c0 : i32
  return %1 : i1
}

// Equality of two equal extensions compares the narrow values.
// CHECK-LABEL: func.func @cmpi_of_extensions(%arg0: i8, %arg1: i8) -> i1 {
// CHECK-NEXT:    %0 = arith.cmpi eq, %arg0, %arg1 : i8
// CHECK-NEXT:    return %0 : i1
// CHECK-NEXT:  }
func.func @cmpi_of_extensions(%a: i8, %b: i8) -> i1 {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extsi %b : i8 to i32
  %2 = arith.cmpi eq, %0, %1 : i32
  return %2 : i1
}

// Non-splat constants fold element by element.
// CHECK-LABEL: func.func @elementwise() -> (vector<3xi32>, vector<3xi1>, vector<3xf32>, vector<3xi32>) {
// CHECK-NEXT:    %cst = arith.constant dense<[5, 10, 0]> : vector<3xi32>
// CHECK-NEXT:    %cst_0 = arith.constant dense<[false, true, false]> : vector<3xi1>
// CHECK-NEXT:    %cst_1 = arith.constant dense<[-1.500000e+00, 2.000000e+00, -2.500000e-01]> : vector<3xf32>
// CHECK-NEXT:    %cst_2 = arith.constant dense<[0, 3, 2]> : vector<3xi32>
// CHECK-NEXT:    return %cst, %cst_0, %cst_1, %cst_2 : vector<3xi32>, vector<3xi1>, vector<3xf32>, vector<3xi32>
// CHECK-NEXT:  }
func.func @elementwise() -> (vector<3xi32>, vector<3xi1>, vector<3xf32>, vector<3xi32>) {
  %a = arith.constant dense<[1, 7, -2]> : vector<3xi32>
  %b = arith.constant dense<[4, 3, 2]> : vector<3xi32>
  %f = arith.constant dense<[1.5, -2.0, 0.25]> : vector<3xf32>
  %0 = arith.addi %a, %b : vector<3xi32>
  %1 = arith.cmpi sgt, %a, %b : vector<3xi32>
  %2 = arith.negf %f : vector<3xf32>
  %3 = arith.remui %b, %a : vector<3xi32>
  return %0, %1, %2, %3 : vector<3xi32>, vector<3xi1>, vector<3xf32>, vector<3xi32>
}

// One element that does not fold (a division by zero) leaves the whole op.
// CHECK-LABEL: func.func @elementwise_division_by_zero() -> vector<2xi32> {
// CHECK-NEXT:    %cst = arith.constant dense<[6, 8]> : vector<2xi32>
// CHECK-NEXT:    %cst_0 = arith.constant dense<[3, 0]> : vector<2xi32>
// CHECK-NEXT:    %0 = arith.divsi %cst, %cst_0 : vector<2xi32>
// CHECK-NEXT:    return %0 : vector<2xi32>
// CHECK-NEXT:  }
func.func @elementwise_division_by_zero() -> vector<2xi32> {
  %a = arith.constant dense<[6, 8]> : vector<2xi32>
  %b = arith.constant dense<[3, 0]> : vector<2xi32>
  %0 = arith.divsi %a, %b : vector<2xi32>
  return %0 : vector<2xi32>
}

// A constant mask selects element by element.
// CHECK-LABEL: func.func @select_mask() -> vector<3xi32> {
// CHECK-NEXT:    %cst = arith.constant dense<[1, 8, 3]> : vector<3xi32>
// CHECK-NEXT:    return %cst : vector<3xi32>
// CHECK-NEXT:  }
func.func @select_mask() -> vector<3xi32> {
  %m = arith.constant dense<[true, false, true]> : vector<3xi1>
  %a = arith.constant dense<[1, 2, 3]> : vector<3xi32>
  %b = arith.constant dense<[7, 8, 9]> : vector<3xi32>
  %0 = arith.select %m, %a, %b : vector<3xi1>, vector<3xi32>
  return %0 : vector<3xi32>
}

// A negated condition swaps the arms.
// CHECK-LABEL: func.func @select_not_condition(%arg0: i1, %arg1: f32, %arg2: f32) -> f32 {
// CHECK-NEXT:    %0 = arith.select %arg0, %arg2, %arg1 : f32
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @select_not_condition(%c: i1, %a: f32, %b: f32) -> f32 {
  %true = arith.constant true
  %n = arith.xori %c, %true : i1
  %0 = arith.select %n, %a, %b : f32
  return %0 : f32
}

// A select nested in an arm of a select on the same condition is skipped.
// CHECK-LABEL: func.func @select_nested(%arg0: i1, %arg1: i32, %arg2: i32, %arg3: i32) -> i32 {
// CHECK-NEXT:    %0 = arith.select %arg0, %arg1, %arg3 : i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
func.func @select_nested(%c: i1, %a: i32, %b: i32, %d: i32) -> i32 {
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %c, %0, %d : i32
  return %1 : i32
}

// Selects between 0 and 1 are the condition, negated or extended.
// CHECK-LABEL: func.func @select_bools(%arg0: i1) -> (i1, i1, i32, i32) {
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %0 = arith.xori %arg0, %true : i1
// CHECK-NEXT:    %1 = arith.extui %arg0 : i1 to i32
// CHECK-NEXT:    %2 = arith.xori %arg0, %true : i1
// CHECK-NEXT:    %3 = arith.extui %2 : i1 to i32
// CHECK-NEXT:    return %arg0, %0, %1, %3 : i1, i1, i32, i32
// CHECK-NEXT:  }
func.func @select_bools(%c: i1) -> (i1, i1, i32, i32) {
  %true = arith.constant true
  %false = arith.constant false
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %0 = arith.select %c, %true, %false : i1
  %1 = arith.select %c, %false, %true : i1
  %2 = arith.select %c, %c1, %c0 : i32
  %3 = arith.select %c, %c0, %c1 : i32
  return %0, %1, %2, %3 : i1, i1, i32, i32
}

// select(a == b, a, b) is b.
// CHECK-LABEL: func.func @select_of_equality(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    return %arg1 : i32
// CHECK-NEXT:  }
func.func @select_of_equality(%a: i32, %b: i32) -> i32 {
  %0 = arith.cmpi eq, %a, %b : i32
  %1 = arith.select %0, %a, %b : i32
  return %1 : i32
}

// Extensions of extensions extend once.
// CHECK-LABEL: func.func @extension_chains(%arg0: i1) -> (i64, i64, i64) {
// CHECK-NEXT:    %0 = arith.extsi %arg0 : i1 to i64
// CHECK-NEXT:    %1 = arith.extui %arg0 : i1 to i64
// CHECK-NEXT:    %2 = arith.extui %arg0 : i1 to i64
// CHECK-NEXT:    return %0, %1, %2 : i64, i64, i64
// CHECK-NEXT:  }
func.func @extension_chains(%a: i1) -> (i64, i64, i64) {
  %0 = arith.extsi %a : i1 to i8
  %1 = arith.extsi %0 : i8 to i64
  %2 = arith.extui %a : i1 to i8
  %3 = arith.extui %2 : i8 to i64
  %4 = arith.extsi %2 : i8 to i64
  return %1, %3, %4 : i64, i64, i64
}

// Truncating an extension: back to the source, to a narrower type, or between.
// CHECK-LABEL: func.func @truncation_of_extension(%arg0: i16) -> (i16, i8, i32) {
// CHECK-NEXT:    %0 = arith.trunci %arg0 : i16 to i8
// CHECK-NEXT:    %1 = arith.extsi %arg0 : i16 to i32
// CHECK-NEXT:    return %arg0, %0, %1 : i16, i8, i32
// CHECK-NEXT:  }
func.func @truncation_of_extension(%a: i16) -> (i16, i8, i32) {
  %0 = arith.extsi %a : i16 to i64
  %1 = arith.trunci %0 : i64 to i16
  %2 = arith.trunci %0 : i64 to i8
  %3 = arith.trunci %0 : i64 to i32
  return %1, %2, %3 : i16, i8, i32
}

// Truncations of truncations truncate once.
// CHECK-LABEL: func.func @truncation_chain(%arg0: i64) -> i8 {
// CHECK-NEXT:    %0 = arith.trunci %arg0 : i64 to i8
// CHECK-NEXT:    return %0 : i8
// CHECK-NEXT:  }
func.func @truncation_chain(%a: i64) -> i8 {
  %0 = arith.trunci %a : i64 to i32
  %1 = arith.trunci %0 : i32 to i8
  return %1 : i8
}

// The sign bits a shift brings in are truncated away: the shift can be unsigned.
// CHECK-LABEL: func.func @truncation_of_signed_shift(%arg0: i32) -> i16 {
// CHECK-NEXT:    %c16_i32 = arith.constant 16 : i32
// CHECK-NEXT:    %0 = arith.shrui %arg0, %c16_i32 : i32
// CHECK-NEXT:    %1 = arith.trunci %0 : i32 to i16
// CHECK-NEXT:    return %1 : i16
// CHECK-NEXT:  }
func.func @truncation_of_signed_shift(%a: i32) -> i16 {
  %c16 = arith.constant 16 : i32
  %0 = arith.shrsi %a, %c16 : i32
  %1 = arith.trunci %0 : i32 to i16
  return %1 : i16
}

// Index casts there and back (through a type at least as wide) cancel.
// CHECK-LABEL: func.func @index_cast_round_trip(%arg0: i32, %arg1: i8) -> (i32, index) {
// CHECK-NEXT:    %0 = arith.index_cast %arg1 : i8 to index
// CHECK-NEXT:    return %arg0, %0 : i32, index
// CHECK-NEXT:  }
func.func @index_cast_round_trip(%a: i32, %b: i8) -> (i32, index) {
  %0 = arith.index_cast %a : i32 to index
  %1 = arith.index_cast %0 : index to i32
  %2 = arith.extsi %b : i8 to i32
  %3 = arith.index_cast %2 : i32 to index
  return %1, %3 : i32, index
}

// Bitcasts compose, and bitcasts of constants keep the bits.
// CHECK-LABEL: func.func @bitcasts(%arg0: i16) -> (i16, f16, i32, vector<2xf32>) {
// CHECK-NEXT:    %cst = arith.constant dense<[0.000000e+00, 1.000000e+00]> : vector<2xf32>
// CHECK-NEXT:    %c1065353216_i32 = arith.constant 1065353216 : i32
// CHECK-NEXT:    %0 = arith.bitcast %arg0 : i16 to f16
// CHECK-NEXT:    return %arg0, %0, %c1065353216_i32, %cst : i16, f16, i32, vector<2xf32>
// CHECK-NEXT:  }
func.func @bitcasts(%a: i16) -> (i16, f16, i32, vector<2xf32>) {
  %0 = arith.bitcast %a : i16 to f16
  %1 = arith.bitcast %0 : f16 to bf16
  %2 = arith.bitcast %1 : bf16 to i16
  %3 = arith.bitcast %1 : bf16 to f16
  %one = arith.constant 1.0 : f32
  %4 = arith.bitcast %one : f32 to i32
  %v = arith.constant dense<[0, 1065353216]> : vector<2xi32>
  %5 = arith.bitcast %v : vector<2xi32> to vector<2xf32>
  return %2, %3, %4, %5 : i16, f16, i32, vector<2xf32>
}

// Negations cancel, also inside products and quotients.
// CHECK-LABEL: func.func @negations(%arg0: f32, %arg1: f32) -> (f32, f32, f32) {
// CHECK-NEXT:    %0 = arith.mulf %arg0, %arg1 fastmath<nnan> : f32
// CHECK-NEXT:    %1 = arith.divf %arg0, %arg1 : f32
// CHECK-NEXT:    return %arg0, %0, %1 : f32, f32, f32
// CHECK-NEXT:  }
func.func @negations(%a: f32, %b: f32) -> (f32, f32, f32) {
  %0 = arith.negf %a : f32
  %1 = arith.negf %0 : f32
  %2 = arith.negf %b : f32
  %3 = arith.mulf %0, %2 fastmath<nnan> : f32
  %4 = arith.divf %0, %2 : f32
  return %1, %3, %4 : f32, f32, f32
}

// truncf of an exact extension returns to the source format.
// CHECK-LABEL: func.func @truncf_of_extf(%arg0: f16, %arg1: f32) -> (f16, f16) {
// CHECK-NEXT:    %0 = arith.truncf %arg1 : f32 to f16
// CHECK-NEXT:    return %arg0, %0 : f16, f16
// CHECK-NEXT:  }
func.func @truncf_of_extf(%a: f16, %b: f32) -> (f16, f16) {
  %0 = arith.extf %a : f16 to f32
  %1 = arith.truncf %0 : f32 to f16
  %2 = arith.extf %b : f32 to f64
  %3 = arith.truncf %2 : f64 to f16
  return %1, %3 : f16, f16
}

// truncf of a conversion from an integer converts directly.
// CHECK-LABEL: func.func @truncf_of_sitofp(%arg0: i32) -> f16 {
// CHECK-NEXT:    %0 = arith.sitofp %arg0 : i32 to f16
// CHECK-NEXT:    return %0 : f16
// CHECK-NEXT:  }
func.func @truncf_of_sitofp(%a: i32) -> f16 {
  %0 = arith.sitofp %a : i32 to f32
  %1 = arith.truncf %0 : f32 to f16
  return %1 : f16
}

// A NaN operand decides a comparison without the other operand.
// CHECK-LABEL: func.func @cmpf_nan_operand(%arg0: f32) -> (i1, i1) {
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    return %false, %true : i1, i1
// CHECK-NEXT:  }
func.func @cmpf_nan_operand(%a: f32) -> (i1, i1) {
  %nan = arith.constant 0x7FC00000 : f32
  %0 = arith.cmpf olt, %nan, %a : f32
  %1 = arith.cmpf uge, %a, %nan : f32
  return %0, %1 : i1, i1
}

// Only scalar operands fold `cmpf`, and the constant predicates need them too.
// CHECK-LABEL: func.func @cmpf_no_fold(%arg0: f32, %arg1: f32) -> (i1, vector<2xi1>) {
// CHECK-NEXT:    %cst = arith.constant dense<2.000000e+00> : vector<2xf32>
// CHECK-NEXT:    %cst_0 = arith.constant dense<1.000000e+00> : vector<2xf32>
// CHECK-NEXT:    %0 = arith.cmpf true, %arg0, %arg1 : f32
// CHECK-NEXT:    %1 = arith.cmpf olt, %cst_0, %cst : vector<2xf32>
// CHECK-NEXT:    return %0, %1 : i1, vector<2xi1>
// CHECK-NEXT:  }
func.func @cmpf_no_fold(%a: f32, %b: f32) -> (i1, vector<2xi1>) {
  %0 = arith.cmpf true, %a, %b : f32
  %c = arith.constant dense<1.0> : vector<2xf32>
  %d = arith.constant dense<2.0> : vector<2xf32>
  %1 = arith.cmpf olt, %c, %d : vector<2xf32>
  return %0, %1 : i1, vector<2xi1>
}

// A converted integer compared with a constant is an integer comparison (or a constant).
// CHECK-LABEL: func.func @cmpf_of_uitofp(%arg0: i32) -> (i1, i1, i1, i1) {
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT:    %0 = arith.cmpi ugt, %arg0, %c3_i32 : i32
// CHECK-NEXT:    return %0, %false, %false, %true : i1, i1, i1, i1
// CHECK-NEXT:  }
func.func @cmpf_of_uitofp(%a: i32) -> (i1, i1, i1, i1) {
  %c = arith.constant 3.5 : f64
  %neg = arith.constant -2.0 : f64
  %big = arith.constant 1.0e12 : f64
  %0 = arith.uitofp %a : i32 to f64
  %1 = arith.cmpf oge, %0, %c : f64
  %2 = arith.cmpf olt, %0, %neg : f64
  %3 = arith.cmpf oeq, %0, %c : f64
  %4 = arith.cmpf ule, %0, %big : f64
  return %1, %2, %3, %4 : i1, i1, i1, i1
}

// A signed conversion keeps signed predicates.
// CHECK-LABEL: func.func @cmpf_of_sitofp(%arg0: i16) -> (i1, i1) {
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %c-7_i16 = arith.constant -7 : i16
// CHECK-NEXT:    %0 = arith.cmpi sge, %arg0, %c-7_i16 : i16
// CHECK-NEXT:    return %0, %true : i1, i1
// CHECK-NEXT:  }
func.func @cmpf_of_sitofp(%a: i16) -> (i1, i1) {
  %c = arith.constant -7.25 : f32
  %0 = arith.sitofp %a : i16 to f32
  %1 = arith.cmpf ogt, %0, %c : f32
  %2 = arith.cmpf ord, %0, %c : f32
  return %1, %2 : i1, i1
}

// When the format cannot hold every integer, constants in the rounded range stay.
// CHECK-LABEL: func.func @cmpf_of_sitofp_inexact(%arg0: i64) -> i1 {
// CHECK-NEXT:    %cst = arith.constant 1.000000e+10 : f32
// CHECK-NEXT:    %0 = arith.sitofp %arg0 : i64 to f32
// CHECK-NEXT:    %1 = arith.cmpf olt, %0, %cst : f32
// CHECK-NEXT:    return %1 : i1
// CHECK-NEXT:  }
func.func @cmpf_of_sitofp_inexact(%a: i64) -> i1 {
  %c = arith.constant 1.0e10 : f32
  %0 = arith.sitofp %a : i64 to f32
  %1 = arith.cmpf olt, %0, %c : f32
  return %1 : i1
}
