// RUN: tb-opt %s --split-input-file --verify-diagnostics
// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

func.func @exp_of_integer(%x: i32) {
  // expected-error @+1 {{'math.exp' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = math.exp %x : i32
  return
}

// -----

func.func @absi_of_float(%x: f32) {
  // expected-error @+1 {{'math.absi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = math.absi %x : f32
  return
}

// -----

func.func @ctlz_of_signed(%x: si32) {
  // expected-error @+1 {{'math.ctlz' op operand #0 must be signless-integer-like, but got 'si32'}}
  %0 = math.ctlz %x : si32
  return
}

// -----

func.func @powf_mixed(%x: f32, %y: f64) {
  // expected-error @+1 {{'math.powf' op requires the same type for all operands and results}}
  %0 = "math.powf"(%x, %y) : (f32, f64) -> f32
  return
}

// -----

func.func @fma_operands(%x: f32) {
  // expected-error @+1 {{'math.fma' op expected 3 operands, but found 2}}
  %0 = "math.fma"(%x, %x) : (f32, f32) -> f32
  return
}

// -----

func.func @clampf_mixed(%x: f32, %y: f16) {
  // expected-error @+1 {{'math.clampf' op requires the same type for all operands and results}}
  %0 = "math.clampf"(%x, %y, %x) : (f32, f16, f32) -> f32
  return
}

// -----

func.func @isnan_result(%x: f32) {
  // expected-error @+1 {{'math.isnan' op result #0 must be bool-like, but got 'i32'}}
  %0 = "math.isnan"(%x) : (f32) -> i32
  return
}

// -----

func.func @isinf_shape(%x: vector<4xf32>) {
  // expected-error @+1 {{'math.isinf' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "math.isinf"(%x) : (vector<4xf32>) -> vector<3xi1>
  return
}

// -----

func.func @isfinite_scalar_of_vector(%x: vector<4xf32>) {
  // expected-error @+1 {{'math.isfinite' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "math.isfinite"(%x) : (vector<4xf32>) -> i1
  return
}

// -----

func.func @fpowi_shape(%x: f32, %y: vector<2xi32>) {
  // expected-error @+1 {{'math.fpowi' op requires the same shape for all operands and results}}
  %0 = math.fpowi %x, %y : f32, vector<2xi32>
  return
}

// -----

func.func @fpowi_result(%x: f32, %y: i32) {
  // expected-error @+1 {{'math.fpowi' op failed to verify that all of {lhs, result} have same type}}
  %0 = "math.fpowi"(%x, %y) : (f32, i32) -> f64
  return
}

// -----

func.func @sincos_results(%x: f32) {
  // expected-error @+1 {{'math.sincos' op failed to verify that all of {operand, sin, cos} have same type}}
  %0:2 = "math.sincos"(%x) : (f32) -> (f32, f64)
  return
}

// -----

func.func @unknown_flag(%x: f32) {
  // expected-error @+1 {{to be one of: none, reassoc, nnan, ninf, nsz, arcp, contract, afn, fast}}
  %0 = math.exp %x fastmath<bogus> : f32
  return
}
