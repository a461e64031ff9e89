// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// CHECK-LABEL: func.func @integer(%arg0: i32, %arg1: i32, %arg2: index) -> i32 {
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT:    %1 = arith.subi %0, %arg1 overflow<nsw> : i32
// CHECK-NEXT:    %2 = arith.muli %1, %1 overflow<nsw, nuw> : i32
// CHECK-NEXT:    %3 = arith.divsi %2, %arg1 : i32
// CHECK-NEXT:    %4 = arith.divui %3, %arg1 : i32
// CHECK-NEXT:    %5 = arith.remsi %4, %arg1 : i32
// CHECK-NEXT:    %6 = arith.remui %5, %arg1 : i32
// CHECK-NEXT:    %7 = arith.andi %6, %arg1 : i32
// CHECK-NEXT:    %8 = arith.ori %7, %arg1 : i32
// CHECK-NEXT:    %9 = arith.xori %8, %arg1 : i32
// CHECK-NEXT:    %10 = arith.maxsi %9, %arg1 : i32
// CHECK-NEXT:    %11 = arith.minui %10, %arg1 : i32
// CHECK-NEXT:    %12 = arith.shli %11, %arg1 : i32
// CHECK-NEXT:    %13 = arith.shrsi %12, %arg1 : i32
// CHECK-NEXT:    %14 = arith.shrui %13, %arg1 : i32
// CHECK-NEXT:    %15 = arith.addi %arg2, %arg2 : index
// CHECK-NEXT:    return %14 : i32
// GENERIC-LABEL: sym_name = "integer"
// GENERIC:         "arith.addi"(%{{.*}}, %{{.*}}) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// GENERIC:         "arith.subi"(%{{.*}}, %{{.*}}) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
// GENERIC:         "arith.divsi"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
func.func @integer(%a: i32, %b: i32, %i: index) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %0, %b overflow<nsw> : i32
  %2 = arith.muli %1, %1 overflow<nsw, nuw> : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %b : i32
  %6 = arith.remui %5, %b : i32
  %7 = arith.andi %6, %b : i32
  %8 = arith.ori %7, %b : i32
  %9 = arith.xori %8, %b : i32
  %10 = arith.maxsi %9, %b : i32
  %11 = arith.minui %10, %b : i32
  %12 = arith.shli %11, %b : i32
  %13 = arith.shrsi %12, %b : i32
  %14 = arith.shrui %13, %b : i32
  %15 = arith.addi %i, %i : index
  return %14 : i32
}

// CHECK-LABEL: func.func @float(%arg0: f32, %arg1: vector<4xf16>) -> f32 {
// CHECK-NEXT:    %0 = arith.addf %arg0, %arg0 fastmath<fast> : f32
// CHECK-NEXT:    %1 = arith.subf %0, %arg0 : f32
// CHECK-NEXT:    %2 = arith.mulf %1, %arg0 fastmath<nnan,ninf> : f32
// CHECK-NEXT:    %3 = arith.divf %2, %arg0 : f32
// CHECK-NEXT:    %4 = arith.remf %3, %arg0 : f32
// CHECK-NEXT:    %5 = arith.maximumf %4, %arg0 : f32
// CHECK-NEXT:    %6 = arith.minnumf %5, %arg0 : f32
// CHECK-NEXT:    %7 = arith.negf %6 : f32
// CHECK-NEXT:    %8 = arith.addf %arg1, %arg1 : vector<4xf16>
// CHECK-NEXT:    return %7 : f32
// GENERIC-LABEL: sym_name = "float"
// GENERIC:         "arith.addf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
// GENERIC:         "arith.subf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
func.func @float(%x: f32, %v: vector<4xf16>) -> f32 {
  %0 = arith.addf %x, %x fastmath<fast> : f32
  %1 = arith.subf %0, %x : f32
  %2 = arith.mulf %1, %x fastmath<nnan,ninf> : f32
  %3 = arith.divf %2, %x : f32
  %4 = arith.remf %3, %x : f32
  %5 = arith.maximumf %4, %x : f32
  %6 = arith.minnumf %5, %x : f32
  %7 = arith.negf %6 : f32
  %8 = arith.addf %v, %v : vector<4xf16>
  return %7 : f32
}

// Flags in any order and spelling print in MLIR's canonical form; `none` is left out.
// CHECK-LABEL: func.func @flag_spelling
// CHECK-NEXT:    %0 = arith.addf %arg0, %arg0 fastmath<nnan,ninf,contract> : f32
// CHECK-NEXT:    %1 = arith.addi %arg1, %arg1 overflow<nsw, nuw> : i32
// CHECK-NEXT:    %2 = arith.mulf %0, %0 fastmath<fast> : f32
// CHECK-NEXT:    %3 = arith.subf %2, %2 : f32
// GENERIC-LABEL: sym_name = "flag_spelling"
// GENERIC:         "arith.addf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<nnan,ninf,contract>}> : (f32, f32) -> f32
// GENERIC:         "arith.addi"(%{{.*}}, %{{.*}}) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32, i32) -> i32
// GENERIC:         "arith.mulf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
func.func @flag_spelling(%x: f32, %i: i32) -> f32 {
  %0 = "arith.addf"(%x, %x) <{fastmath = #arith.fastmath<contract, ninf,nnan>}> : (f32, f32) -> f32
  %1 = arith.addi %i, %i overflow<nuw, nsw> : i32
  %2 = arith.mulf %0, %0 fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn> : f32
  %3 = arith.subf %2, %2 fastmath<none> : f32
  return %3 : f32
}

// Comparisons print their predicate as a keyword and infer an i1-like result.
// CHECK-LABEL: func.func @compare
// CHECK-NEXT:    %0 = arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT:    %1 = arith.cmpf oge, %arg2, %arg2 : f32
// CHECK-NEXT:    %2 = arith.cmpi eq, %arg3, %arg3 : vector<4xi32>
// CHECK-NEXT:    %3 = arith.select %0, %arg0, %arg1 : i32
// CHECK-NEXT:    %4 = arith.select %2, %arg3, %arg3 : vector<4xi1>, vector<4xi32>
// GENERIC-LABEL: sym_name = "compare"
// GENERIC:         "arith.cmpi"(%{{.*}}, %{{.*}}) <{predicate = 2 : i64}> : (i32, i32) -> i1
// GENERIC:         "arith.cmpf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>, predicate = 3 : i64}> : (f32, f32) -> i1
// GENERIC:         "arith.cmpi"(%{{.*}}, %{{.*}}) <{predicate = 0 : i64}> : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>
func.func @compare(%a: i32, %b: i32, %x: f32, %v: vector<4xi32>) -> (i1, i32) {
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.cmpf oge, %x, %x : f32
  %2 = arith.cmpi eq, %v, %v : vector<4xi32>
  %3 = arith.select %0, %a, %b : i32
  %4 = arith.select %2, %v, %v : vector<4xi1>, vector<4xi32>
  return %1, %3 : i1, i32
}

// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %0 = arith.extsi %arg0 : i8 to i32
// CHECK-NEXT:    %1 = arith.extui %arg0 : i8 to i64
// CHECK-NEXT:    %2 = arith.trunci %0 : i32 to i16
// CHECK-NEXT:    %3 = arith.sitofp %0 : i32 to f32
// CHECK-NEXT:    %4 = arith.uitofp %0 : i32 to f16
// CHECK-NEXT:    %5 = arith.fptosi %3 : f32 to i64
// CHECK-NEXT:    %6 = arith.fptoui %3 : f32 to i8
// CHECK-NEXT:    %7 = arith.extf %3 : f32 to f64
// CHECK-NEXT:    %8 = arith.truncf %7 : f64 to bf16
// CHECK-NEXT:    %9 = arith.index_cast %0 : i32 to index
// CHECK-NEXT:    %10 = arith.index_castui %9 : index to i64
// CHECK-NEXT:    %11 = arith.bitcast %3 : f32 to i32
func.func @casts(%a: i8) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i64
  %2 = arith.trunci %0 : i32 to i16
  %3 = arith.sitofp %0 : i32 to f32
  %4 = arith.uitofp %0 : i32 to f16
  %5 = arith.fptosi %3 : f32 to i64
  %6 = arith.fptoui %3 : f32 to i8
  %7 = arith.extf %3 : f32 to f64
  %8 = arith.truncf %7 : f64 to bf16
  %9 = arith.index_cast %0 : i32 to index
  %10 = arith.index_castui %9 : index to i64
  %11 = arith.bitcast %3 : f32 to i32
  return
}

// Constants are named after their value, as MLIR names them; repeats get a suffix.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %c42_i32 = arith.constant 42 : i32
// CHECK-NEXT:    %c-1_i64 = arith.constant -1 : i64
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %cst = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    %cst_0 = arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK-NEXT:    %cst_1 = arith.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT:    %c42_i32_2 = arith.constant 42 : i32
// GENERIC-LABEL: sym_name = "constants"
// GENERIC-NEXT:    "arith.constant"() <{value = 42 : i32}> : () -> i32
func.func @constants() {
  %a = arith.constant 42 : i32
  %b = arith.constant -1 : i64
  %c = arith.constant 0 : index
  %t = arith.constant true
  %f = arith.constant false
  %x = arith.constant 1.5 : f32
  %v = arith.constant dense<2.0> : vector<4xf32>
  %w = arith.constant dense<[1, 2]> : tensor<2xi32>
  %d = arith.constant 42 : i32
  return
}

// Names are scoped by region: a sibling region may reuse a name.
// CHECK-LABEL: func.func @scopes
// CHECK:         %c1_i32 = arith.constant 1 : i32
// CHECK:         %c1_i32 = arith.constant 1 : i32
func.func @scopes() {
  "test_unreg.region"() ({
    %a = arith.constant 1 : i32
    "test_unreg.end"() : () -> ()
  }, {
    %b = arith.constant 1 : i32
    "test_unreg.end"() : () -> ()
  }) : () -> ()
  return
}

// Divisions rounded toward +inf or -inf.
// CHECK-LABEL: func.func @rounded_division(%arg0: i32, %arg1: i32, %arg2: vector<4xi16>, %arg3: index) -> i32 {
// CHECK-NEXT:    %0 = arith.ceildivsi %arg0, %arg1 : i32
// CHECK-NEXT:    %1 = arith.ceildivui %0, %arg1 : i32
// CHECK-NEXT:    %2 = arith.floordivsi %1, %arg1 : i32
// CHECK-NEXT:    %3 = arith.floordivsi %arg2, %arg2 : vector<4xi16>
// CHECK-NEXT:    %4 = arith.ceildivui %arg3, %arg3 : index
// CHECK-NEXT:    return %2 : i32
// GENERIC-LABEL: sym_name = "rounded_division"
// GENERIC:         "arith.ceildivsi"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// GENERIC:         "arith.ceildivui"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// GENERIC:         "arith.floordivsi"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
func.func @rounded_division(%a: i32, %b: i32, %v: vector<4xi16>, %i: index) -> i32 {
  %0 = arith.ceildivsi %a, %b : i32
  %1 = arith.ceildivui %0, %b : i32
  %2 = arith.floordivsi %1, %b : i32
  %3 = arith.floordivsi %v, %v : vector<4xi16>
  %4 = arith.ceildivui %i, %i : index
  return %2 : i32
}

// Extended arithmetic: two results, named as MLIR names them; the types of the operands
// follow from the one written.
// CHECK-LABEL: func.func @extended(%arg0: i32, %arg1: i32, %arg2: vector<4xi8>, %arg3: tensor<2x?xi64>, %arg4: index) -> (i32, i1) {
// CHECK-NEXT:    %sum, %overflow = arith.addui_extended %arg0, %arg1 : i32, i1
// CHECK-NEXT:    %sum_0, %overflow_1 = arith.addui_extended %arg2, %arg2 : vector<4xi8>, vector<4xi1>
// CHECK-NEXT:    %sum_2, %overflow_3 = arith.addui_extended %arg3, %arg3 : tensor<2x?xi64>, tensor<2x?xi1>
// CHECK-NEXT:    %low, %high = arith.mulsi_extended %arg0, %arg1 : i32
// CHECK-NEXT:    %low_4, %high_5 = arith.mului_extended %arg2, %arg2 : vector<4xi8>
// CHECK-NEXT:    %low_6, %high_7 = arith.mulsi_extended %arg4, %arg4 : index
// CHECK-NEXT:    return %high, %overflow : i32, i1
// GENERIC-LABEL: sym_name = "extended"
// GENERIC:         %{{.*}}:2 = "arith.addui_extended"(%{{.*}}, %{{.*}}) : (i32, i32) -> (i32, i1)
// GENERIC:         %{{.*}}:2 = "arith.mulsi_extended"(%{{.*}}, %{{.*}}) : (i32, i32) -> (i32, i32)
// GENERIC:         %{{.*}}:2 = "arith.mului_extended"(%{{.*}}, %{{.*}}) : (vector<4xi8>, vector<4xi8>) -> (vector<4xi8>, vector<4xi8>)
func.func @extended(%a: i32, %b: i32, %v: vector<4xi8>, %t: tensor<2x?xi64>, %i: index) -> (i32, i1) {
  %s:2 = arith.addui_extended %a, %b : i32, i1
  %sv, %ov = arith.addui_extended %v, %v : vector<4xi8>, vector<4xi1>
  %st:2 = arith.addui_extended %t, %t : tensor<2x?xi64>, tensor<2x?xi1>
  %l:2 = arith.mulsi_extended %a, %b : i32
  %lv:2 = arith.mului_extended %v, %v : vector<4xi8>
  %li:2 = arith.mulsi_extended %i, %i : index
  return %l#1, %s#1 : i32, i1
}

// MLIR 22's flags on divisions, shifts and casts: `exact`, truncation overflow flags,
// fast-math on float casts (written when present, `fastmath<none>` included) and
// truncf's rounding mode.
// CHECK-LABEL: func.func @cast_and_division_flags(%arg0: i32, %arg1: i32, %arg2: f16, %arg3: f32) {
// CHECK-NEXT:    %0 = arith.divsi %arg0, %arg1 exact : i32
// CHECK-NEXT:    %1 = arith.divui %arg0, %arg1 exact {tag} : i32
// CHECK-NEXT:    %2 = arith.shrsi %arg0, %arg1 exact : i32
// CHECK-NEXT:    %3 = arith.shrui %arg0, %arg1 : i32
// CHECK-NEXT:    %4 = arith.trunci %arg0 overflow<nsw, nuw> : i32 to i16
// CHECK-NEXT:    %5 = arith.trunci %arg0 : i32 to i16
// CHECK-NEXT:    %6 = arith.extf %arg2 fastmath<contract> : f16 to f32
// CHECK-NEXT:    %7 = arith.extf %arg2 fastmath<none> : f16 to f32
// CHECK-NEXT:    %8 = arith.truncf %arg3 to_nearest_even fastmath<fast> : f32 to f16
// CHECK-NEXT:    %9 = arith.truncf %arg3 downward : f32 to f16
// CHECK-NEXT:    %10 = arith.truncf %arg3 toward_zero fastmath<none> : f32 to f16
// CHECK-NEXT:    return
// GENERIC-LABEL: sym_name = "cast_and_division_flags"
// GENERIC:         "arith.divsi"(%{{.*}}, %{{.*}}) <{isExact}> : (i32, i32) -> i32
// GENERIC:         "arith.divui"(%{{.*}}, %{{.*}}) <{isExact}> {tag} : (i32, i32) -> i32
// GENERIC:         "arith.shrui"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// GENERIC:         "arith.trunci"(%{{.*}}) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32) -> i16
// GENERIC:         "arith.trunci"(%{{.*}}) <{overflowFlags = #arith.overflow<none>}> : (i32) -> i16
// GENERIC:         "arith.extf"(%{{.*}}) <{fastmath = #arith.fastmath<contract>}> : (f16) -> f32
// GENERIC:         "arith.truncf"(%{{.*}}) <{fastmath = #arith.fastmath<fast>, roundingmode = 0 : i32}> : (f32) -> f16
// GENERIC:         "arith.truncf"(%{{.*}}) <{roundingmode = 1 : i32}> : (f32) -> f16
func.func @cast_and_division_flags(%a: i32, %b: i32, %x: f16, %y: f32) {
  %0 = arith.divsi %a, %b exact : i32
  %1 = arith.divui %a, %b exact {tag} : i32
  %2 = arith.shrsi %a, %b exact : i32
  %3 = arith.shrui %a, %b : i32
  %4 = arith.trunci %a overflow<nsw, nuw> : i32 to i16
  %5 = arith.trunci %a overflow<none> : i32 to i16
  %6 = arith.extf %x fastmath<contract> : f16 to f32
  %7 = arith.extf %x fastmath<none> : f16 to f32
  %8 = arith.truncf %y to_nearest_even fastmath<fast> : f32 to f16
  %9 = arith.truncf %y downward : f32 to f16
  %10 = arith.truncf %y toward_zero fastmath<none> : f32 to f16
  return
}

// OCP MX scaling casts: the scale's type is written after the input's.
// CHECK-LABEL: func.func @scaling_casts
// CHECK-NEXT:    %0 = arith.scaling_extf %arg0, %arg1 : f4E2M1FN, f8E8M0FNU to f32
// CHECK-NEXT:    %1 = arith.scaling_extf %arg2, %arg3 fastmath<fast> : vector<4xf8E4M3FN>, vector<4xf8E8M0FNU> to vector<4xbf16>
// CHECK-NEXT:    %2 = arith.scaling_truncf %arg4, %arg1 : f32, f8E8M0FNU to f4E2M1FN
// CHECK-NEXT:    %3 = arith.scaling_truncf %arg5, %arg3 downward fastmath<nnan> : vector<4xbf16>, vector<4xf8E8M0FNU> to vector<4xf8E4M3FN>
// GENERIC-LABEL: sym_name = "scaling_casts"
// GENERIC:         "arith.scaling_extf"(%{{.*}}, %{{.*}}) : (f4E2M1FN, f8E8M0FNU) -> f32
// GENERIC:         "arith.scaling_truncf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<nnan>, roundingmode = 1 : i32}> : (vector<4xbf16>, vector<4xf8E8M0FNU>) -> vector<4xf8E4M3FN>
func.func @scaling_casts(%a: f4E2M1FN, %s: f8E8M0FNU, %v: vector<4xf8E4M3FN>, %vs: vector<4xf8E8M0FNU>, %x: f32, %h: vector<4xbf16>) -> (f32, vector<4xbf16>, f4E2M1FN, vector<4xf8E4M3FN>) {
  %0 = arith.scaling_extf %a, %s : f4E2M1FN, f8E8M0FNU to f32
  %1 = arith.scaling_extf %v, %vs fastmath<fast> : vector<4xf8E4M3FN>, vector<4xf8E8M0FNU> to vector<4xbf16>
  %2 = arith.scaling_truncf %x, %s : f32, f8E8M0FNU to f4E2M1FN
  %3 = arith.scaling_truncf %h, %vs downward fastmath<nnan> : vector<4xbf16>, vector<4xf8E8M0FNU> to vector<4xf8E4M3FN>
  return %0, %1, %2, %3 : f32, vector<4xbf16>, f4E2M1FN, vector<4xf8E4M3FN>
}

// Bitcasts of memrefs of integers or floats.
// CHECK-LABEL: func.func @bitcast_memref
// CHECK-NEXT:    arith.bitcast %arg0 : memref<4xf32> to memref<4xi32>
func.func @bitcast_memref(%m: memref<4xf32>) -> memref<4xi32> {
  %0 = arith.bitcast %m : memref<4xf32> to memref<4xi32>
  return %0 : memref<4xi32>
}
