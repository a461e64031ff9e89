// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// Float functions of one operand: `fastmath` flags print after the operand, in bit order
// and without spaces; `none` is left out.
// CHECK-LABEL: func.func @float_unary(%arg0: f32, %arg1: vector<4xf64>, %arg2: tensor<2x?xbf16>) {
// CHECK-NEXT:    %0 = math.absf %arg0 : f32
// CHECK-NEXT:    %1 = math.acos %arg0 : f32
// CHECK-NEXT:    %2 = math.acosh %arg0 : f32
// CHECK-NEXT:    %3 = math.asin %arg0 : f32
// CHECK-NEXT:    %4 = math.asinh %arg0 : f32
// CHECK-NEXT:    %5 = math.atan %arg0 : f32
// CHECK-NEXT:    %6 = math.atanh %arg0 : f32
// CHECK-NEXT:    %7 = math.cbrt %arg0 : f32
// CHECK-NEXT:    %8 = math.ceil %arg0 : f32
// CHECK-NEXT:    %9 = math.cos %arg0 : f32
// CHECK-NEXT:    %10 = math.cosh %arg0 : f32
// CHECK-NEXT:    %11 = math.erf %arg0 : f32
// CHECK-NEXT:    %12 = math.erfc %arg0 : f32
// CHECK-NEXT:    %13 = math.exp %arg0 fastmath<fast> : f32
// CHECK-NEXT:    %14 = math.exp2 %arg0 fastmath<nnan,ninf> : f32
// CHECK-NEXT:    %15 = math.expm1 %arg0 : f32
// CHECK-NEXT:    %16 = math.floor %arg0 : f32
// CHECK-NEXT:    %17 = math.log %arg1 : vector<4xf64>
// CHECK-NEXT:    %18 = math.log10 %arg1 : vector<4xf64>
// CHECK-NEXT:    %19 = math.log1p %arg1 : vector<4xf64>
// CHECK-NEXT:    %20 = math.log2 %arg1 : vector<4xf64>
// CHECK-NEXT:    %21 = math.round %arg2 : tensor<2x?xbf16>
// CHECK-NEXT:    %22 = math.roundeven %arg2 : tensor<2x?xbf16>
// CHECK-NEXT:    %23 = math.rsqrt %arg0 fastmath<afn> : f32
// CHECK-NEXT:    %24 = math.sin %arg0 : f32
// CHECK-NEXT:    %25 = math.sinh %arg0 : f32
// CHECK-NEXT:    %26 = math.sqrt %arg0 : f32
// CHECK-NEXT:    %27 = math.tan %arg0 : f32
// CHECK-NEXT:    %28 = math.tanh %arg0 : f32
// CHECK-NEXT:    %29 = math.trunc %arg0 : f32
// CHECK-NEXT:    return
// GENERIC-LABEL: sym_name = "float_unary"
// GENERIC:         "math.absf"(%{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
// GENERIC:         "math.exp"(%{{.*}}) <{fastmath = #arith.fastmath<fast>}> : (f32) -> f32
// GENERIC:         "math.exp2"(%{{.*}}) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32) -> f32
func.func @float_unary(%x: f32, %v: vector<4xf64>, %t: tensor<2x?xbf16>) {
  %0 = math.absf %x : f32
  %1 = math.acos %x : f32
  %2 = math.acosh %x : f32
  %3 = math.asin %x : f32
  %4 = math.asinh %x : f32
  %5 = math.atan %x : f32
  %6 = math.atanh %x : f32
  %7 = math.cbrt %x : f32
  %8 = math.ceil %x fastmath<none> : f32
  %9 = math.cos %x : f32
  %10 = math.cosh %x : f32
  %11 = math.erf %x : f32
  %12 = math.erfc %x : f32
  %13 = math.exp %x fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn> : f32
  %14 = math.exp2 %x fastmath<ninf, nnan> : f32
  %15 = math.expm1 %x : f32
  %16 = math.floor %x : f32
  %17 = math.log %v : vector<4xf64>
  %18 = math.log10 %v : vector<4xf64>
  %19 = math.log1p %v : vector<4xf64>
  %20 = math.log2 %v : vector<4xf64>
  %21 = math.round %t : tensor<2x?xbf16>
  %22 = math.roundeven %t : tensor<2x?xbf16>
  %23 = math.rsqrt %x fastmath<afn> : f32
  %24 = math.sin %x : f32
  %25 = math.sinh %x : f32
  %26 = math.sqrt %x : f32
  %27 = math.tan %x : f32
  %28 = math.tanh %x : f32
  %29 = math.trunc %x : f32
  return
}

// Two and three operands; `clampf` spells its bounds in brackets.
// CHECK-LABEL: func.func @float_nary(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: i32, %arg4: vector<2xf16>, %arg5: vector<2xi64>) {
// CHECK-NEXT:    %0 = math.atan2 %arg0, %arg1 : f32
// CHECK-NEXT:    %1 = math.copysign %arg0, %arg1 fastmath<nsz> : f32
// CHECK-NEXT:    %2 = math.powf %arg0, %arg1 : f32
// CHECK-NEXT:    %3 = math.fma %arg0, %arg1, %arg2 fastmath<contract> : f32
// CHECK-NEXT:    %4 = math.clampf %arg0 to [%arg1, %arg2] : f32
// CHECK-NEXT:    %5 = math.clampf %arg0 to [%arg1, %arg2] fastmath<fast> : f32
// CHECK-NEXT:    %6 = math.fpowi %arg0, %arg3 : f32, i32
// CHECK-NEXT:    %7 = math.fpowi %arg4, %arg5 fastmath<fast> : vector<2xf16>, vector<2xi64>
// CHECK-NEXT:    %sin, %cos = math.sincos %arg0 : f32
// CHECK-NEXT:    %sin_0, %cos_1 = math.sincos %arg4 fastmath<afn> : vector<2xf16>
// CHECK-NEXT:    %8 = math.fma %sin, %cos, %sin : f32
// GENERIC-LABEL: sym_name = "float_nary"
// GENERIC:         "math.clampf"(%{{.*}}, %{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
// GENERIC:         "math.fpowi"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, i32) -> f32
// GENERIC:         %[[SC:.*]]:2 = "math.sincos"(%{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32) -> (f32, f32)
func.func @float_nary(%x: f32, %y: f32, %z: f32, %n: i32, %v: vector<2xf16>, %w: vector<2xi64>) {
  %0 = math.atan2 %x, %y : f32
  %1 = math.copysign %x, %y fastmath<nsz> : f32
  %2 = math.powf %x, %y : f32
  %3 = math.fma %x, %y, %z fastmath<contract> : f32
  %4 = math.clampf %x to [%y, %z] : f32
  %5 = math.clampf %x to [%y, %z] fastmath<fast> : f32
  %6 = math.fpowi %x, %n : f32, i32
  %7 = math.fpowi %v, %w fastmath<fast> : vector<2xf16>, vector<2xi64>
  %s, %c = math.sincos %x : f32
  %s2:2 = math.sincos %v fastmath<afn> : vector<2xf16>
  %8 = math.fma %s, %c, %s : f32
  return
}

// Integer ops, on integers of any width and on index.
// CHECK-LABEL: func.func @integer(%arg0: i32, %arg1: index, %arg2: vector<4xi8>) {
// CHECK-NEXT:    %0 = math.absi %arg0 : i32
// CHECK-NEXT:    %1 = math.ctlz %arg1 : index
// CHECK-NEXT:    %2 = math.cttz %arg2 : vector<4xi8>
// CHECK-NEXT:    %3 = math.ctpop %arg0 : i32
// CHECK-NEXT:    %4 = math.ipowi %arg0, %arg0 : i32
// CHECK-NEXT:    %5 = math.ipowi %arg2, %arg2 : vector<4xi8>
// GENERIC-LABEL: sym_name = "integer"
// GENERIC:         "math.absi"(%{{.*}}) : (i32) -> i32
// GENERIC:         "math.ipowi"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
func.func @integer(%a: i32, %i: index, %v: vector<4xi8>) {
  %0 = math.absi %a : i32
  %1 = math.ctlz %i : index
  %2 = math.cttz %v : vector<4xi8>
  %3 = math.ctpop %a : i32
  %4 = math.ipowi %a, %a : i32
  %5 = math.ipowi %v, %v : vector<4xi8>
  return
}

// Classification yields i1 shaped like the operand; its fastmath flags have no keyword.
// CHECK-LABEL: func.func @classify(%arg0: f32, %arg1: tensor<?xf16>) {
// CHECK-NEXT:    %0 = math.isnan %arg0 : f32
// CHECK-NEXT:    %1 = math.isinf %arg1 : tensor<?xf16>
// CHECK-NEXT:    %2 = math.isfinite %arg0 {fastmath = #arith.fastmath<fast>} : f32
// CHECK-NEXT:    %3 = math.isnormal %arg1 : tensor<?xf16>
// CHECK-NEXT:    %4 = arith.select %0, %arg0, %arg0 : f32
// CHECK-NEXT:    %5 = arith.select %3, %arg1, %arg1 : tensor<?xi1>, tensor<?xf16>
// GENERIC-LABEL: sym_name = "classify"
// GENERIC:         "math.isnan"(%{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32) -> i1
// GENERIC:         "math.isinf"(%{{.*}}) <{fastmath = #arith.fastmath<none>}> : (tensor<?xf16>) -> tensor<?xi1>
func.func @classify(%x: f32, %t: tensor<?xf16>) {
  %0 = math.isnan %x : f32
  %1 = math.isinf %t : tensor<?xf16>
  %2 = math.isfinite %x {fastmath = #arith.fastmath<fast>} : f32
  %3 = math.isnormal %t : tensor<?xf16>
  %4 = arith.select %0, %x, %x : f32
  %5 = arith.select %3, %t, %t : tensor<?xi1>, tensor<?xf16>
  return
}

// The generic form parses too, and prints back in custom form.
// CHECK-LABEL: func.func @generic(%arg0: f64) -> f64 {
// CHECK-NEXT:    %0 = math.tanh %arg0 fastmath<nnan> : f64
// CHECK-NEXT:    return %0 : f64
func.func @generic(%x: f64) -> f64 {
  %0 = "math.tanh"(%x) <{fastmath = #arith.fastmath<nnan>}> : (f64) -> f64
  return %0 : f64
}
