//! Inline, branch-free `f32` approximations of `exp` and `erf`.
//!
//! LLVM has no vector code for these on x86 without a vector math library: `llvm.exp` on
//! `<8 x float>` becomes eight `expf` calls, and `erff` is a C call per lane, so a loop
//! computing softmax or GELU cannot be vectorized. These expansions use only
//! multiply-adds, rounding, integer bit operations and selects, on scalars and vectors
//! alike, so such loops vectorize. Accuracy, checked against the C library on every
//! tenth of a million points in `tests/cpu/math_approx.rs`: `exp` within 2 ulp (results
//! below `f32`'s normal range lose precision as the C library's do), `erf` within
//! 4e-7 of the result's magnitude. NaNs propagate; infinities give `exp`'s limits and
//! `erf`'s `±1`.

use inkwell::FloatPredicate;
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;
use inkwell::values::InstructionOpcode as Op;

use super::arith::{fcmp, select};
use super::translator::{TResult, Translator};
use super::vector::splat;

/// `log2(e)`, and `ln(2) = LN2_HI + LN2_LO` with `LN2_HI` short enough (9 significant
/// bits) that `n * LN2_HI` is exact for every exponent `n` used here.
const LOG2_E: f64 = std::f64::consts::LOG2_E;
const LN2_HI: f64 = 0.693_359_375;
const LN2_LO: f64 = -2.121_944_400_546_905_8e-4;
/// Inputs are clamped here first, so the exponent `n` fits both scale factors: below
/// `EXP_LOW` the result rounds to `0`, above `EXP_HIGH` to infinity.
const EXP_LOW: f64 = -105.0;
const EXP_HIGH: f64 = 89.0;

/// Coefficients of `exp(r)` on `|r| <= ln(2) / 2`: the Taylor series to degree 7,
/// whose truncation error (below 6e-9) is far under an `f32` ulp.
const EXP_TAYLOR: [f64; 8] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
];

/// `erf(x) = x * P(x^2) / Q(x^2)` on `|x| <= ERF_CLAMP`, a rational least-squares fit
/// of the relative error (2e-9 in `f64`) made for TensorBind; beyond the clamp `erf`
/// rounds to `±1` in `f32`.
const ERF_CLAMP: f64 = 3.92;
const ERF_P: [f64; 7] = [
    1.128_379_168_396_752_3,
    0.185_162_492_345_271_27,
    0.054_249_662_328_082_8,
    0.003_840_092_992_141_246_6,
    0.000_376_877_038_086_601_87,
    4.611_254_912_689_766e-6,
    -1.281_032_752_098_454_4e-8,
];
const ERF_Q: [f64; 6] = [
    1.0,
    0.497_429_383_875_852_2,
    0.113_886_855_027_335_8,
    0.015_433_263_952_157_777,
    0.001_301_999_765_178_211_5,
    6.242_047_849_031_995e-5,
];

/// `exp(x)` for an `f32` scalar or vector `x`: `x = n ln2 + r`, `exp(r)` by a polynomial,
/// times `2^n` built in the exponent bits (in two factors, so that results near the
/// overflow threshold and in the subnormal range are scaled correctly).
pub(crate) fn exp_f32<'ctx>(
    tr: &Translator<'_, 'ctx>,
    x: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let ty = x.get_type();
    let clamped = clamp(tr, x, EXP_LOW, EXP_HIGH)?;
    let scaled = binop(tr, Op::FMul, clamped, constant(tr, ty, LOG2_E)?)?;
    let n = tr.call_intrinsic("llvm.roundeven", &[ty], &[scaled])?;
    let r = fmuladd(tr, n, constant(tr, ty, -LN2_HI)?, clamped)?;
    let r = fmuladd(tr, n, constant(tr, ty, -LN2_LO)?, r)?;
    let p = horner(tr, r, &EXP_TAYLOR)?;
    let int_ty = int_type_like(tr, ty);
    let n = tr.builder.build_cast(Op::FPToSI, n, int_ty, "")?;
    let half = binop(tr, Op::AShr, n, int_constant(tr, int_ty, 1)?)?;
    let rest = binop(tr, Op::Sub, n, half)?;
    let first = power_of_two(tr, half, ty)?;
    let second = power_of_two(tr, rest, ty)?;
    let result = binop(tr, Op::FMul, binop(tr, Op::FMul, p, first)?, second)?;
    keep_nan(tr, x, result)
}

/// `erf(x)` for an `f32` scalar or vector `x`.
pub(crate) fn erf_f32<'ctx>(
    tr: &Translator<'_, 'ctx>,
    x: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let ty = x.get_type();
    let clamped = clamp(tr, x, -ERF_CLAMP, ERF_CLAMP)?;
    let t = binop(tr, Op::FMul, clamped, clamped)?;
    let p = horner(tr, t, &ERF_P)?;
    let q = horner(tr, t, &ERF_Q)?;
    let ratio = binop(tr, Op::FDiv, p, q)?;
    let result = binop(tr, Op::FMul, clamped, ratio)?;
    // The fit may overshoot 1 by an ulp near the clamp; erf never does.
    let one = constant(tr, ty, 1.0)?;
    let result = tr.call_intrinsic("llvm.minnum", &[ty], &[result, one])?;
    let minus_one = constant(tr, ty, -1.0)?;
    let result = tr.call_intrinsic("llvm.maxnum", &[ty], &[result, minus_one])?;
    keep_nan(tr, x, result)
}

/// `max(low, min(x, high))`; a NaN `x` becomes a bound here, so callers restore it.
fn clamp<'ctx>(
    tr: &Translator<'_, 'ctx>,
    x: BasicValueEnum<'ctx>,
    low: f64,
    high: f64,
) -> TResult<BasicValueEnum<'ctx>> {
    let ty = x.get_type();
    let upper = tr.call_intrinsic("llvm.minnum", &[ty], &[x, constant(tr, ty, high)?])?;
    tr.call_intrinsic("llvm.maxnum", &[ty], &[upper, constant(tr, ty, low)?])
}

/// `x` where `x` is a NaN, `result` elsewhere.
fn keep_nan<'ctx>(
    tr: &Translator<'_, 'ctx>,
    x: BasicValueEnum<'ctx>,
    result: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let nan = fcmp(tr, FloatPredicate::UNO, x, x)?;
    select(tr, nan, x, result)
}

/// `c[0] + x (c[1] + x (c[2] + ...))` with multiply-adds.
fn horner<'ctx>(
    tr: &Translator<'_, 'ctx>,
    x: BasicValueEnum<'ctx>,
    coefficients: &[f64],
) -> TResult<BasicValueEnum<'ctx>> {
    let ty = x.get_type();
    let (last, rest) = coefficients
        .split_last()
        .ok_or("a polynomial needs coefficients")?;
    let mut acc = constant(tr, ty, *last)?;
    for &c in rest.iter().rev() {
        acc = fmuladd(tr, acc, x, constant(tr, ty, c)?)?;
    }
    Ok(acc)
}

/// `2^n` as a float of type `like` from an integer `n` in the normal exponent range.
fn power_of_two<'ctx>(
    tr: &Translator<'_, 'ctx>,
    n: BasicValueEnum<'ctx>,
    like: BasicTypeEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let int_ty = n.get_type();
    let biased = binop(tr, Op::Add, n, int_constant(tr, int_ty, 127)?)?;
    let bits = binop(tr, Op::Shl, biased, int_constant(tr, int_ty, 23)?)?;
    Ok(tr.builder.build_cast(Op::BitCast, bits, like, "")?)
}

fn fmuladd<'ctx>(
    tr: &Translator<'_, 'ctx>,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
    c: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    tr.call_intrinsic("llvm.fmuladd", &[a.get_type()], &[a, b, c])
}

fn binop<'ctx>(
    tr: &Translator<'_, 'ctx>,
    op: Op,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    Ok(tr.builder.build_binop(op, a, b, "")?)
}

/// An `f32` constant, splat to the type `like` (a scalar or vector of `f32`).
fn constant<'ctx>(
    tr: &Translator<'_, 'ctx>,
    like: BasicTypeEnum<'ctx>,
    value: f64,
) -> TResult<BasicValueEnum<'ctx>> {
    let scalar = tr.llvm.f32_type().const_float(value).into();
    splat(tr, scalar, like)
}

/// An `i32` constant, splat to the type `like`.
fn int_constant<'ctx>(
    tr: &Translator<'_, 'ctx>,
    like: BasicTypeEnum<'ctx>,
    value: i64,
) -> TResult<BasicValueEnum<'ctx>> {
    let scalar = tr.llvm.i32_type().const_int(value as u64, true).into();
    splat(tr, scalar, like)
}

/// `i32`, or a vector of `i32` as long as the vector type `like`.
fn int_type_like<'ctx>(
    tr: &Translator<'_, 'ctx>,
    like: BasicTypeEnum<'ctx>,
) -> BasicTypeEnum<'ctx> {
    let i32_type = tr.llvm.i32_type();
    match like {
        BasicTypeEnum::VectorType(v) => i32_type.vec_type(v.get_size()).into(),
        _ => i32_type.into(),
    }
}
