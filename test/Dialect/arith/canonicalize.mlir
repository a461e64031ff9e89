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
