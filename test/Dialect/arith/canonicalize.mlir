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
