//! Float formats, `math` and `memref` ops (in generic form), calls and scalars:
//! JIT-compiled against the interpreter.

use tb_backends::cpu::CompileOptions;

use super::harness::{check, check_with};

#[test]
fn float_ops_and_predicates() {
    check(
        r#"
func.func @float_ops(%a: memref<16xf32>, %b: memref<16xf32>) -> (memref<16x8xf32>, memref<16x16xi1>) {
  %out = loop.alloc() : memref<16x8xf32>
  %cmp = loop.alloc() : memref<16x16xi1>
  %ten = arith.constant 10.0 : f32
  %half = arith.constant 5.000000e-01 : f32
  loop.for %i = 0 to 16 {
    %x = loop.load %a[%i] : memref<16xf32>
    %y = loop.load %b[%i] : memref<16xf32>
    %0 = arith.subf %x, %y : f32
    loop.store %0, %out[(d0) -> (d0, 0)](%i) : memref<16x8xf32>
    %1 = arith.divf %x, %y fastmath<contract> : f32
    loop.store %1, %out[(d0) -> (d0, 1)](%i) : memref<16x8xf32>
    %2 = arith.remf %x, %half : f32
    loop.store %2, %out[(d0) -> (d0, 2)](%i) : memref<16x8xf32>
    %3 = arith.minimumf %x, %y : f32
    loop.store %3, %out[(d0) -> (d0, 3)](%i) : memref<16x8xf32>
    %4 = arith.minnumf %x, %y : f32
    loop.store %4, %out[(d0) -> (d0, 4)](%i) : memref<16x8xf32>
    %scaled = arith.mulf %x, %ten : f32
    %5 = arith.fptosi %scaled : f32 to i32
    %6 = arith.sitofp %5 : i32 to f32
    loop.store %6, %out[(d0) -> (d0, 5)](%i) : memref<16x8xf32>
    %mag = "math.absf"(%scaled) : (f32) -> f32
    %7 = arith.fptoui %mag : f32 to i16
    %8 = arith.uitofp %7 : i16 to f32
    loop.store %8, %out[(d0) -> (d0, 6)](%i) : memref<16x8xf32>
    %bits = arith.bitcast %x : f32 to i32
    %flip = arith.constant -2147483648 : i32
    %neg = arith.xori %bits, %flip : i32
    %9 = arith.bitcast %neg : i32 to f32
    loop.store %9, %out[(d0) -> (d0, 7)](%i) : memref<16x8xf32>
    %c0 = arith.cmpf false, %x, %y : f32
    loop.store %c0, %cmp[(d0) -> (d0, 0)](%i) : memref<16x16xi1>
    %c1 = arith.cmpf oeq, %x, %y : f32
    loop.store %c1, %cmp[(d0) -> (d0, 1)](%i) : memref<16x16xi1>
    %c2 = arith.cmpf ogt, %x, %y : f32
    loop.store %c2, %cmp[(d0) -> (d0, 2)](%i) : memref<16x16xi1>
    %c3 = arith.cmpf oge, %x, %y : f32
    loop.store %c3, %cmp[(d0) -> (d0, 3)](%i) : memref<16x16xi1>
    %c4 = arith.cmpf olt, %x, %y : f32
    loop.store %c4, %cmp[(d0) -> (d0, 4)](%i) : memref<16x16xi1>
    %c5 = arith.cmpf ole, %x, %y : f32
    loop.store %c5, %cmp[(d0) -> (d0, 5)](%i) : memref<16x16xi1>
    %c6 = arith.cmpf one, %x, %y : f32
    loop.store %c6, %cmp[(d0) -> (d0, 6)](%i) : memref<16x16xi1>
    %c7 = arith.cmpf ord, %x, %y : f32
    loop.store %c7, %cmp[(d0) -> (d0, 7)](%i) : memref<16x16xi1>
    %c8 = arith.cmpf ueq, %x, %y : f32
    loop.store %c8, %cmp[(d0) -> (d0, 8)](%i) : memref<16x16xi1>
    %c9 = arith.cmpf ugt, %x, %y : f32
    loop.store %c9, %cmp[(d0) -> (d0, 9)](%i) : memref<16x16xi1>
    %c10 = arith.cmpf uge, %x, %y : f32
    loop.store %c10, %cmp[(d0) -> (d0, 10)](%i) : memref<16x16xi1>
    %c11 = arith.cmpf ult, %x, %y : f32
    loop.store %c11, %cmp[(d0) -> (d0, 11)](%i) : memref<16x16xi1>
    %c12 = arith.cmpf ule, %x, %y : f32
    loop.store %c12, %cmp[(d0) -> (d0, 12)](%i) : memref<16x16xi1>
    %c13 = arith.cmpf une, %x, %y : f32
    loop.store %c13, %cmp[(d0) -> (d0, 13)](%i) : memref<16x16xi1>
    %c14 = arith.cmpf uno, %x, %y : f32
    loop.store %c14, %cmp[(d0) -> (d0, 14)](%i) : memref<16x16xi1>
    %c15 = arith.cmpf true, %x, %y : f32
    loop.store %c15, %cmp[(d0) -> (d0, 15)](%i) : memref<16x16xi1>
  }
  return %out, %cmp : memref<16x8xf32>, memref<16x16xi1>
}
"#,
    );
}

#[test]
fn half_precision_formats() {
    let source = r#"
// f16 and bf16 arithmetic rounds after every op, in both the interpreter and LLVM.
func.func @halves(%a: memref<4x8xf16>, %b: memref<4x8xbf16>, %s: f16) -> (memref<4x8xf16>, memref<4x8xbf16>, memref<4x8xf32>) {
  %h = loop.alloc() : memref<4x8xf16>
  %g = loop.alloc() : memref<4x8xbf16>
  %w = loop.alloc() : memref<4x8xf32>
  %vs = loop.broadcast %s : f16 to vector<8xf16>
  loop.for %i = 0 to 4 {
    %x = loop.vector_load %a[(d0) -> (d0, 0)](%i) : memref<4x8xf16>, vector<8xf16>
    %p = arith.mulf %x, %vs : vector<8xf16>
    %q = loop.fma %p, %x, %vs : vector<8xf16>
    loop.vector_store %q, %h[(d0) -> (d0, 0)](%i) : memref<4x8xf16>, vector<8xf16>
    loop.for %j = 0 to 8 {
      %y = loop.load %b[%i, %j] : memref<4x8xbf16>
      %yy = arith.addf %y, %y : bf16
      %z = arith.subf %yy, %y : bf16
      loop.store %z, %g[%i, %j] : memref<4x8xbf16>
      %e = arith.extf %y : bf16 to f32
      %xh = loop.load %a[%i, %j] : memref<4x8xf16>
      %f = arith.extf %xh : f16 to f32
      %t = arith.addf %e, %f : f32
      %back = arith.truncf %t : f32 to bf16
      %wide = arith.extf %back : bf16 to f32
      loop.store %wide, %w[%i, %j] : memref<4x8xf32>
    }
  }
  return %h, %g, %w : memref<4x8xf16>, memref<4x8xbf16>, memref<4x8xf32>
}

// f64 as well.
func.func @doubles(%a: memref<8xf64>) -> memref<8xf64> {
  %out = loop.alloc() : memref<8xf64>
  loop.for %i = 0 to 8 {
    %x = loop.load %a[%i] : memref<8xf64>
    %y = arith.mulf %x, %x : f64
    %z = loop.fma %y, %x, %x : f64
    loop.store %z, %out[%i] : memref<8xf64>
  }
  return %out : memref<8xf64>
}
"#;
    check_with(source, &CompileOptions::default(), 3, 1e-2, 1e-3);
}

#[test]
fn math_ops_on_scalars_and_vectors() {
    let source = r#"
func.func @unary(%a: memref<8xf32>) -> memref<8x24xf32> {
  %out = loop.alloc() : memref<8x24xf32>
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 8 {
    %x = loop.load %a[%i] : memref<8xf32>
    %ax = "math.absf"(%x) : (f32) -> f32
    %pos = arith.addf %ax, %one : f32
    %0 = "math.exp"(%x) : (f32) -> f32
    loop.store %0, %out[(d0) -> (d0, 0)](%i) : memref<8x24xf32>
    %1 = "math.tanh"(%x) : (f32) -> f32
    loop.store %1, %out[(d0) -> (d0, 1)](%i) : memref<8x24xf32>
    %2 = "math.erf"(%x) : (f32) -> f32
    loop.store %2, %out[(d0) -> (d0, 2)](%i) : memref<8x24xf32>
    %3 = "math.sqrt"(%pos) : (f32) -> f32
    loop.store %3, %out[(d0) -> (d0, 3)](%i) : memref<8x24xf32>
    %4 = "math.rsqrt"(%pos) : (f32) -> f32
    loop.store %4, %out[(d0) -> (d0, 4)](%i) : memref<8x24xf32>
    %5 = "math.log"(%pos) : (f32) -> f32
    loop.store %5, %out[(d0) -> (d0, 5)](%i) : memref<8x24xf32>
    %6 = "math.log2"(%pos) : (f32) -> f32
    loop.store %6, %out[(d0) -> (d0, 6)](%i) : memref<8x24xf32>
    %7 = "math.log10"(%pos) : (f32) -> f32
    loop.store %7, %out[(d0) -> (d0, 7)](%i) : memref<8x24xf32>
    %8 = "math.log1p"(%ax) : (f32) -> f32
    loop.store %8, %out[(d0) -> (d0, 8)](%i) : memref<8x24xf32>
    %9 = "math.expm1"(%x) : (f32) -> f32
    loop.store %9, %out[(d0) -> (d0, 9)](%i) : memref<8x24xf32>
    %10 = "math.exp2"(%x) : (f32) -> f32
    loop.store %10, %out[(d0) -> (d0, 10)](%i) : memref<8x24xf32>
    %11 = "math.sin"(%x) : (f32) -> f32
    loop.store %11, %out[(d0) -> (d0, 11)](%i) : memref<8x24xf32>
    %12 = "math.cos"(%x) : (f32) -> f32
    loop.store %12, %out[(d0) -> (d0, 12)](%i) : memref<8x24xf32>
    %13 = "math.atan"(%x) : (f32) -> f32
    loop.store %13, %out[(d0) -> (d0, 13)](%i) : memref<8x24xf32>
    %14 = "math.cbrt"(%x) : (f32) -> f32
    loop.store %14, %out[(d0) -> (d0, 14)](%i) : memref<8x24xf32>
    %15 = "math.floor"(%x) : (f32) -> f32
    loop.store %15, %out[(d0) -> (d0, 15)](%i) : memref<8x24xf32>
    %16 = "math.ceil"(%x) : (f32) -> f32
    loop.store %16, %out[(d0) -> (d0, 16)](%i) : memref<8x24xf32>
    %big = arith.mulf %x, %pos : f32
    %17 = "math.roundeven"(%big) : (f32) -> f32
    loop.store %17, %out[(d0) -> (d0, 17)](%i) : memref<8x24xf32>
    %18 = "math.powf"(%pos, %x) : (f32, f32) -> f32
    loop.store %18, %out[(d0) -> (d0, 18)](%i) : memref<8x24xf32>
    %19 = "math.atan2"(%x, %pos) : (f32, f32) -> f32
    loop.store %19, %out[(d0) -> (d0, 19)](%i) : memref<8x24xf32>
    %20 = "math.copysign"(%pos, %x) : (f32, f32) -> f32
    loop.store %20, %out[(d0) -> (d0, 20)](%i) : memref<8x24xf32>
    %21 = "math.fma"(%x, %pos, %x) : (f32, f32, f32) -> f32
    loop.store %21, %out[(d0) -> (d0, 21)](%i) : memref<8x24xf32>
    %three = arith.constant 3 : i32
    %22 = "math.fpowi"(%x, %three) : (f32, i32) -> f32
    loop.store %22, %out[(d0) -> (d0, 22)](%i) : memref<8x24xf32>
    %23 = "math.asinh"(%x) : (f32) -> f32
    loop.store %23, %out[(d0) -> (d0, 23)](%i) : memref<8x24xf32>
  }
  return %out : memref<8x24xf32>
}

// Vector math: intrinsics on whole vectors, library calls lane by lane, and f16 lanes
// computed in float.
func.func @vectors(%a: memref<16xf32>, %h: memref<8xf16>) -> (memref<16xf32>, memref<16xf32>, memref<8xf16>) {
  %e = loop.alloc() : memref<16xf32>
  %f = loop.alloc() : memref<16xf32>
  %g = loop.alloc() : memref<8xf16>
  loop.for %i = 0 to 16 step 8 {
    %v = loop.vector_load %a[%i] : memref<16xf32>, vector<8xf32>
    %x = "math.exp"(%v) : (vector<8xf32>) -> vector<8xf32>
    loop.vector_store %x, %e[%i] : memref<16xf32>, vector<8xf32>
    %y = "math.erf"(%v) : (vector<8xf32>) -> vector<8xf32>
    loop.vector_store %y, %f[%i] : memref<16xf32>, vector<8xf32>
  }
  %w = loop.vector_load %h[() -> (0)]() : memref<8xf16>, vector<8xf16>
  %t = "math.tanh"(%w) : (vector<8xf16>) -> vector<8xf16>
  %u = "math.erf"(%t) : (vector<8xf16>) -> vector<8xf16>
  loop.vector_store %u, %g[() -> (0)]() : memref<8xf16>, vector<8xf16>
  return %e, %f, %g : memref<16xf32>, memref<16xf32>, memref<8xf16>
}

// Clamping and sincos (two results).
func.func @clamp_sincos(%a: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>) {
  %c = loop.alloc() : memref<8xf32>
  %s = loop.alloc() : memref<8xf32>
  %k = loop.alloc() : memref<8xf32>
  %lo = arith.constant -0.25 : f32
  %hi = arith.constant 0.5 : f32
  loop.for %i = 0 to 8 {
    %x = loop.load %a[%i] : memref<8xf32>
    %y = "math.clampf"(%x, %lo, %hi) : (f32, f32, f32) -> f32
    loop.store %y, %c[%i] : memref<8xf32>
    %sin, %cos = "math.sincos"(%x) : (f32) -> (f32, f32)
    loop.store %sin, %s[%i] : memref<8xf32>
    loop.store %cos, %k[%i] : memref<8xf32>
  }
  return %c, %s, %k : memref<8xf32>, memref<8xf32>, memref<8xf32>
}

// Classification and integer math.
func.func @classify(%a: memref<8xf32>, %b: memref<8xi32>) -> (memref<8x4xi1>, memref<8x5xi32>) {
  %c = loop.alloc() : memref<8x4xi1>
  %n = loop.alloc() : memref<8x5xi32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 8 {
    %x = loop.load %a[%i] : memref<8xf32>
    %q = arith.divf %x, %zero : f32
    %z = arith.mulf %q, %zero : f32
    %0 = "math.isnan"(%z) : (f32) -> i1
    loop.store %0, %c[(d0) -> (d0, 0)](%i) : memref<8x4xi1>
    %1 = "math.isinf"(%q) : (f32) -> i1
    loop.store %1, %c[(d0) -> (d0, 1)](%i) : memref<8x4xi1>
    %2 = "math.isfinite"(%x) : (f32) -> i1
    loop.store %2, %c[(d0) -> (d0, 2)](%i) : memref<8x4xi1>
    %3 = "math.isnormal"(%x) : (f32) -> i1
    loop.store %3, %c[(d0) -> (d0, 3)](%i) : memref<8x4xi1>
    %y = loop.load %b[%i] : memref<8xi32>
    %4 = "math.absi"(%y) : (i32) -> i32
    loop.store %4, %n[(d0) -> (d0, 0)](%i) : memref<8x5xi32>
    %5 = "math.ctlz"(%y) : (i32) -> i32
    loop.store %5, %n[(d0) -> (d0, 1)](%i) : memref<8x5xi32>
    %6 = "math.cttz"(%y) : (i32) -> i32
    loop.store %6, %n[(d0) -> (d0, 2)](%i) : memref<8x5xi32>
    %7 = "math.ctpop"(%y) : (i32) -> i32
    loop.store %7, %n[(d0) -> (d0, 3)](%i) : memref<8x5xi32>
    %e = "math.absi"(%y) : (i32) -> i32
    %8 = "math.ipowi"(%y, %e) : (i32, i32) -> i32
    %neg = arith.subi %y, %e : i32
    %9 = "math.ipowi"(%8, %neg) : (i32, i32) -> i32
    %10 = arith.addi %8, %9 : i32
    loop.store %10, %n[(d0) -> (d0, 4)](%i) : memref<8x5xi32>
  }
  return %c, %n : memref<8x4xi1>, memref<8x5xi32>
}
"#;
    check_with(source, &CompileOptions::default(), 3, 2e-5, 1e-5);
}

#[test]
fn memref_ops_views_globals_and_copies() {
    check(
        r#"
"memref.global"() <{sym_name = "bias", type = memref<4xf32>, initial_value = dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "ones", type = memref<2x2xi32>, initial_value = dense<1> : tensor<2x2xi32>, sym_visibility = "private"}> : () -> ()

func.func @views(%a: memref<4x4xf32>) -> (memref<2x2xf32>, memref<4x4xf32>, memref<16xf32>, memref<2x2xi32>) {
  // A 2x2 window at (1, 1), copied element by element into a fresh buffer.
  %w = "memref.subview"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 1>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}> : (memref<4x4xf32>) -> memref<2x2xf32, strided<[4, 1], offset: 5>>
  %sub = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xf32>
  "memref.copy"(%w, %sub) : (memref<2x2xf32, strided<[4, 1], offset: 5>>, memref<2x2xf32>) -> ()
  // Bias rows through memref.load/store and a global.
  %b = "memref.get_global"() <{name = @bias}> : () -> memref<4xf32>
  %out = "memref.alloc"() <{alignment = 128 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4x4xf32>
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 4 {
      %x = "memref.load"(%a, %i, %j) : (memref<4x4xf32>, index, index) -> f32
      %y = "memref.load"(%b, %j) : (memref<4xf32>, index) -> f32
      %s = arith.addf %x, %y : f32
      "memref.store"(%s, %out, %i, %j) : (f32, memref<4x4xf32>, index, index) -> ()
    }
  }
  // A reshape is a view; its contiguous copy goes to a stack buffer first.
  %flat = "memref.collapse_shape"(%out) <{reassociation = [[0, 1]]}> : (memref<4x4xf32>) -> memref<16xf32>
  %tmp = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
  "memref.copy"(%flat, %tmp) : (memref<16xf32>, memref<16xf32>) -> ()
  %res = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
  "memref.copy"(%tmp, %res) : (memref<16xf32>, memref<16xf32>) -> ()
  // Dimension queries fold to the static sizes.
  %c1 = arith.constant 1 : index
  %d = "memref.dim"(%w, %c1) : (memref<2x2xf32, strided<[4, 1], offset: 5>>, index) -> index
  %g = "memref.get_global"() <{name = @ones}> : () -> memref<2x2xi32>
  %gi = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xi32>
  loop.for %i = 0 to 2 {
    loop.for %j = 0 to %d {
      %o = "memref.load"(%g, %i, %j) : (memref<2x2xi32>, index, index) -> i32
      %k = arith.index_cast %j : index to i32
      %v = arith.addi %o, %k : i32
      "memref.store"(%v, %gi, %i, %j) : (i32, memref<2x2xi32>, index, index) -> ()
    }
  }
  return %sub, %out, %res, %gi : memref<2x2xf32>, memref<4x4xf32>, memref<16xf32>, memref<2x2xi32>
}

// Vectors over a view with non-unit strides: lanes are gathered and scattered one by one.
func.func @strided_vectors(%a: memref<4x8xf32>) -> memref<4x8xf32> {
  %out = loop.alloc() : memref<4x8xf32>
  %zero = arith.constant dense<0.0> : vector<4x8xf32>
  loop.vector_store %zero, %out[() -> (0, 0)]() : memref<4x8xf32>, vector<4x8xf32>
  %src = "memref.subview"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 1>, static_sizes = array<i64: 2, 4>, static_strides = array<i64: 2, 2>}> : (memref<4x8xf32>) -> memref<2x4xf32, strided<[16, 2], offset: 1>>
  %dst = "memref.subview"(%out) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 2, 4>, static_strides = array<i64: 2, 2>}> : (memref<4x8xf32>) -> memref<2x4xf32, strided<[16, 2], offset: 8>>
  %v = loop.vector_load %src[() -> (0, 0)]() : memref<2x4xf32, strided<[16, 2], offset: 1>>, vector<2x4xf32>
  %w = arith.addf %v, %v : vector<2x4xf32>
  loop.vector_store %w, %dst[() -> (0, 0)]() : memref<2x4xf32, strided<[16, 2], offset: 8>>, vector<2x4xf32>
  return %out : memref<4x8xf32>
}

// Returning an argument or a view copies it into the output buffer.
func.func @pass_through(%a: memref<3x4xf32>) -> (memref<3x4xf32>, memref<2x4xf32, strided<[4, 1], offset: 4>>) {
  %v = "memref.subview"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 2, 4>, static_strides = array<i64: 1, 1>}> : (memref<3x4xf32>) -> memref<2x4xf32, strided<[4, 1], offset: 4>>
  return %a, %v : memref<3x4xf32>, memref<2x4xf32, strided<[4, 1], offset: 4>>
}
"#,
    );
}

#[test]
fn calls_scalars_and_multiple_results() {
    check(
        r#"
// A private helper with two results, called from public functions.
func.func private @scale_shift(%m: memref<6xf32>, %s: f32, %n: index) -> (memref<6xf32>, f32) {
  %out = loop.alloc() : memref<6xf32>
  %acc = loop.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  loop.store %zero, %acc[] : memref<f32>
  %nf = arith.index_cast %n : index to i64
  %shift = arith.sitofp %nf : i64 to f32
  loop.for %i = 0 to 6 {
    %x = loop.load %m[%i] : memref<6xf32>
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %shift : f32
    loop.store %z, %out[%i] : memref<6xf32>
    %a = loop.load %acc[] : memref<f32>
    %b = arith.addf %a, %z : f32
    loop.store %b, %acc[] : memref<f32>
  }
  %total = loop.load %acc[] : memref<f32>
  loop.dealloc %acc : memref<f32>
  return %out, %total : memref<6xf32>, f32
}

func.func @caller(%m: memref<6xf32>, %s: f32, %n: index, %flag: i1) -> (memref<6xf32>, f32, i1, index) {
  %r:2 = call @scale_shift(%m, %s, %n) : (memref<6xf32>, f32, index) -> (memref<6xf32>, f32)
  %twice:2 = call @scale_shift(%r#0, %s, %n) : (memref<6xf32>, f32, index) -> (memref<6xf32>, f32)
  loop.dealloc %r#0 : memref<6xf32>
  %sum = arith.addf %r#1, %twice#1 : f32
  %true = arith.constant true
  %not = arith.xori %flag, %true : i1
  %c2 = arith.constant 2 : index
  %m2 = arith.muli %n, %c2 : index
  return %twice#0, %sum, %not, %m2 : memref<6xf32>, f32, i1, index
}

// A public function that is also called: exported and internal versions coexist.
func.func @square(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}

func.func @fourth(%x: f64) -> f64 {
  %y = call @square(%x) : (f64) -> f64
  %z = call @square(%y) : (f64) -> f64
  return %z : f64
}
"#,
    );
}
