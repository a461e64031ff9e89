//! `math` ops (MLIR 22 names), on scalars and vectors.
//!
//! Where LLVM has an intrinsic the op maps to it (`llvm.exp`, `llvm.tanh`, `llvm.fma`, ...;
//! LLVM lowers the transcendental ones to vector code or to C library calls); the functions
//! LLVM lacks (`erf`, `cbrt`, `log1p`, ...) are calls to the C math library, lane by lane,
//! with 16-bit floats computed in `float`. Compiled code therefore needs `libm`, which
//! the JIT loads and `cc` links.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode};
use inkwell::{FloatPredicate, IntPredicate};
use tb_dialects::math::MathOp;
use tb_ir::ods::OpKind;
use tb_ir::{Context, FloatKind, OpId, TypeKind};

use super::DialectTranslation;
use super::arith::{apply_fast_math, fcmp, icmp, select};
use super::translator::{Handler, TResult, Translator};
use super::types::element_type;
use super::vector::{map_lanes, splat};

/// The ops of `math`: LLVM intrinsics where LLVM has one, C library calls otherwise.
pub(crate) struct MathTranslation;

impl DialectTranslation for MathTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        use MathOp as M;
        Some(match MathOp::of(ir, op)? {
            M::AbsF => absf,
            M::Ceil => ceil,
            M::Floor => floor,
            M::Trunc => trunc,
            M::Round => round,
            M::RoundEven => roundeven,
            M::Sqrt => sqrt,
            M::Exp => exp,
            M::Exp2 => exp2,
            M::Log => log,
            M::Log2 => log2,
            M::Log10 => log10,
            M::Sin => sin,
            M::Cos => cos,
            M::Tan => tan,
            M::Asin => asin,
            M::Acos => acos,
            M::Atan => atan,
            M::Sinh => sinh,
            M::Cosh => cosh,
            M::Tanh => tanh,
            M::Erf => erf,
            M::Erfc => erfc,
            M::Cbrt => cbrt,
            M::ExpM1 => expm1,
            M::Log1p => log1p,
            M::Asinh => asinh,
            M::Acosh => acosh,
            M::Atanh => atanh,
            M::Rsqrt => rsqrt,
            M::Atan2 => atan2,
            M::CopySign => copysign,
            M::PowF => powf,
            M::FPowI => fpowi,
            M::Fma => fma,
            M::AbsI => absi,
            M::CtLz => ctlz,
            M::CtTz => cttz,
            M::CtPop => ctpop,
            M::IPowI => ipowi,
            M::ClampF => clampf,
            M::SinCos => sincos,
            M::IsNan => isnan,
            M::IsInf => isinf,
            M::IsFinite => isfinite,
            M::IsNormal => isnormal,
        })
    }
}

/// Checks that operand `i` of `op` is a float (or a vector of floats) when `float`, an
/// integer otherwise: `math` ops are not verified until the dialect is registered.
fn expect_kind(tr: &Translator, op: OpId, i: usize, float: bool) -> TResult {
    let ty = tr.operand_type(op, i)?;
    let element = match tr.ir.type_kind(ty) {
        TypeKind::Vector { element, .. } => *element,
        _ => ty,
    };
    let ok = match tr.ir.type_kind(element) {
        TypeKind::Float(_) => float,
        TypeKind::Integer { .. } => !float,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "expects {} operands",
            if float { "float" } else { "integer" }
        )
        .into())
    }
}

/// Integer ops among those [`intrinsic`] handles; the others take floats.
const INTEGER_INTRINSICS: &[&str] = &["llvm.ctpop", "llvm.abs", "llvm.ctlz", "llvm.cttz"];

/// An op computed by one LLVM intrinsic overloaded on its first operand's type.
fn intrinsic(tr: &mut Translator, op: OpId, name: &str) -> TResult {
    let float = !INTEGER_INTRINSICS.contains(&name);
    for i in 0..tr.ir.op(op).operands.len() {
        expect_kind(tr, op, i, float)?;
    }
    let args = (0..tr.ir.op(op).operands.len())
        .map(|i| tr.operand(op, i))
        .collect::<TResult<Vec<_>>>()?;
    let ty = args.first().ok_or("has no operands")?.get_type();
    let value = tr.call_intrinsic(name, &[ty], &args)?;
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

macro_rules! intrinsic_ops {
    ($($name:ident => $intrinsic:literal),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            intrinsic(tr, op, $intrinsic)
        })*
    };
}

intrinsic_ops! {
    absf => "llvm.fabs",
    ceil => "llvm.ceil",
    floor => "llvm.floor",
    trunc => "llvm.trunc",
    round => "llvm.round",
    roundeven => "llvm.roundeven",
    sqrt => "llvm.sqrt",
    exp2 => "llvm.exp2",
    log => "llvm.log",
    log2 => "llvm.log2",
    log10 => "llvm.log10",
    sin => "llvm.sin",
    cos => "llvm.cos",
    tan => "llvm.tan",
    asin => "llvm.asin",
    acos => "llvm.acos",
    atan => "llvm.atan",
    sinh => "llvm.sinh",
    cosh => "llvm.cosh",
    tanh => "llvm.tanh",
    atan2 => "llvm.atan2",
    copysign => "llvm.copysign",
    powf => "llvm.pow",
    fma => "llvm.fma",
    ctpop => "llvm.ctpop",
}

/// `llvm.abs`, `llvm.ctlz`, `llvm.cttz`: the extra `i1` operand says whether the result
/// for `INT_MIN` / zero is poison; MLIR defines those results, so it is `false`.
fn int_intrinsic_with_flag(tr: &mut Translator, op: OpId, name: &str) -> TResult {
    expect_kind(tr, op, 0, false)?;
    let x = tr.operand(op, 0)?;
    let no = tr.llvm.bool_type().const_zero().into();
    let value = tr.call_intrinsic(name, &[x.get_type()], &[x, no])?;
    tr.set_result(op, 0, value)
}

fn absi(tr: &mut Translator, op: OpId) -> TResult {
    int_intrinsic_with_flag(tr, op, "llvm.abs")
}

fn ctlz(tr: &mut Translator, op: OpId) -> TResult {
    int_intrinsic_with_flag(tr, op, "llvm.ctlz")
}

fn cttz(tr: &mut Translator, op: OpId) -> TResult {
    int_intrinsic_with_flag(tr, op, "llvm.cttz")
}

/// A C math library function (`erff` for `float`, `erf` for `double`) applied lane by
/// lane; `f16`/`bf16` lanes go through `float`.
fn libm(tr: &mut Translator, op: OpId, function: &str) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let kind = match tr
        .ir
        .type_kind(element_type(tr.ir, tr.operand_type(op, 0)?))
    {
        TypeKind::Float(kind) => *kind,
        _ => return Err("expects a float operand".into()),
    };
    let x = tr.operand(op, 0)?;
    let value = map_lanes(tr, x, &mut |tr, lane| {
        let f32_type = tr.llvm.f32_type();
        let (arg, name) = match kind {
            FloatKind::F64 => (lane, function.to_owned()),
            FloatKind::F32 => (lane, format!("{function}f")),
            _ => (
                tr.builder
                    .build_cast(InstructionOpcode::FPExt, lane, f32_type, "")?,
                format!("{function}f"),
            ),
        };
        let result = tr
            .call_libc(&name, Some(arg.get_type()), &[arg])?
            .ok_or("library call returned no value")?;
        Ok(match kind {
            FloatKind::F64 | FloatKind::F32 => result,
            _ => tr
                .builder
                .build_cast(InstructionOpcode::FPTrunc, result, lane.get_type(), "")?,
        })
    })?;
    tr.set_result(op, 0, value)
}

macro_rules! libm_ops {
    ($($name:ident => $function:literal),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            libm(tr, op, $function)
        })*
    };
}

libm_ops! {
    erfc => "erfc",
    cbrt => "cbrt",
    expm1 => "expm1",
    log1p => "log1p",
    asinh => "asinh",
    acosh => "acosh",
    atanh => "atanh",
}

/// `f32` scalars and vectors use the inline approximation of [`super::math_approx`], which
/// vectorizes; other widths call `fallback`.
fn approximated_f32(
    tr: &mut Translator,
    op: OpId,
    approximation: for<'a, 'ctx> fn(
        &Translator<'a, 'ctx>,
        BasicValueEnum<'ctx>,
    ) -> TResult<BasicValueEnum<'ctx>>,
    fallback: fn(&mut Translator, OpId) -> TResult,
) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let element = element_type(tr.ir, tr.operand_type(op, 0)?);
    if !matches!(tr.ir.type_kind(element), TypeKind::Float(FloatKind::F32)) {
        return fallback(tr, op);
    }
    let x = tr.operand(op, 0)?;
    let value = approximation(tr, x)?;
    tr.set_result(op, 0, value)
}

fn exp(tr: &mut Translator, op: OpId) -> TResult {
    approximated_f32(tr, op, super::math_approx::exp_f32, |tr, op| {
        intrinsic(tr, op, "llvm.exp")
    })
}

fn erf(tr: &mut Translator, op: OpId) -> TResult {
    approximated_f32(tr, op, super::math_approx::erf_f32, |tr, op| {
        libm(tr, op, "erf")
    })
}

/// A float constant (or a splat of it) of the type of `like`.
fn float_like<'ctx>(
    tr: &Translator<'_, 'ctx>,
    like: BasicTypeEnum<'ctx>,
    value: f64,
) -> TResult<BasicValueEnum<'ctx>> {
    let scalar = match like {
        BasicTypeEnum::FloatType(t) => return Ok(t.const_float(value).into()),
        BasicTypeEnum::VectorType(v) => v.get_element_type().into_float_type().const_float(value),
        _ => return Err("expects a float operand".into()),
    };
    splat(tr, scalar.into(), like)
}

fn rsqrt(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let x = tr.operand(op, 0)?;
    let root = tr.call_intrinsic("llvm.sqrt", &[x.get_type()], &[x])?;
    let one = float_like(tr, x.get_type(), 1.0)?;
    let value = tr
        .builder
        .build_binop(InstructionOpcode::FDiv, one, root, "")?;
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

/// `x ** n` for an integer `n`: `pow(x, (float) n)`, as exact as `powf`.
fn fpowi(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, true)?;
    expect_kind(tr, op, 1, false)?;
    let x = tr.operand(op, 0)?;
    let n = tr.operand(op, 1)?;
    let n = tr
        .builder
        .build_cast(InstructionOpcode::SIToFP, n, x.get_type(), "")?;
    let value = tr.call_intrinsic("llvm.pow", &[x.get_type()], &[x, n])?;
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

/// An integer constant (or a splat of it) of the type of `like`.
fn int_like<'ctx>(
    tr: &Translator<'_, 'ctx>,
    like: BasicTypeEnum<'ctx>,
    value: i64,
) -> TResult<BasicValueEnum<'ctx>> {
    let scalar = match like {
        BasicTypeEnum::IntType(t) => return Ok(t.const_int(value as u64, true).into()),
        BasicTypeEnum::VectorType(v) => v
            .get_element_type()
            .into_int_type()
            .const_int(value as u64, true),
        _ => return Err("expects an integer operand".into()),
    };
    splat(tr, scalar.into(), like)
}

/// Integer power by squaring over every bit of the exponent (straight-line code, one step
/// per bit). Negative exponents give 0, except for bases 1 and -1, as MLIR's expansion.
fn ipowi(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, false)?;
    expect_kind(tr, op, 1, false)?;
    let base = tr.operand(op, 0)?;
    let exponent = tr.operand(op, 1)?;
    let ty = base.get_type();
    let width = match ty {
        BasicTypeEnum::IntType(t) => t.get_bit_width(),
        BasicTypeEnum::VectorType(v) => v.get_element_type().into_int_type().get_bit_width(),
        _ => return Err("expects integer operands".into()),
    };
    let b = &tr.builder;
    let one = int_like(tr, ty, 1)?;
    let zero = int_like(tr, ty, 0)?;
    let minus_one = int_like(tr, ty, -1)?;
    let (mut result, mut square, mut rest) = (one, base, exponent);
    for _ in 0..width {
        let low = b.build_binop(InstructionOpcode::And, rest, one, "")?;
        let odd = icmp(tr, IntPredicate::NE, low, zero)?;
        let times = b.build_binop(InstructionOpcode::Mul, result, square, "")?;
        result = select(tr, odd, times, result)?;
        square = b.build_binop(InstructionOpcode::Mul, square, square, "")?;
        rest = b.build_binop(InstructionOpcode::LShr, rest, one, "")?;
    }
    // exponent < 0: 1 for base 1, (-1)^exponent for base -1, 0 otherwise.
    let negative = icmp(tr, IntPredicate::SLT, exponent, zero)?;
    let low = b.build_binop(InstructionOpcode::And, exponent, one, "")?;
    let odd = icmp(tr, IntPredicate::NE, low, zero)?;
    let sign = select(tr, odd, minus_one, one)?;
    let is_one = icmp(tr, IntPredicate::EQ, base, one)?;
    let is_minus_one = icmp(tr, IntPredicate::EQ, base, minus_one)?;
    let for_negative = select(tr, is_minus_one, sign, zero)?;
    let for_negative = select(tr, is_one, one, for_negative)?;
    let value = select(tr, negative, for_negative, result)?;
    tr.set_result(op, 0, value)
}

/// `min(max(x, lo), hi)` with IEEE maximum/minimum: a NaN value or bound gives NaN, as
/// MLIR's expansion of `math.clampf` does.
fn clampf(tr: &mut Translator, op: OpId) -> TResult {
    for i in 0..3 {
        expect_kind(tr, op, i, true)?;
    }
    let (x, lo, hi) = (tr.operand(op, 0)?, tr.operand(op, 1)?, tr.operand(op, 2)?);
    let ty = x.get_type();
    let raised = tr.call_intrinsic("llvm.maximum", &[ty], &[x, lo])?;
    apply_fast_math(tr, op, raised);
    let value = tr.call_intrinsic("llvm.minimum", &[ty], &[raised, hi])?;
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

/// Sine and cosine of one operand, as two results.
fn sincos(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let x = tr.operand(op, 0)?;
    for (i, name) in [(0, "llvm.sin"), (1, "llvm.cos")] {
        let value = tr.call_intrinsic(name, &[x.get_type()], &[x])?;
        apply_fast_math(tr, op, value);
        tr.set_result(op, i, value)?;
    }
    Ok(())
}

fn isnan(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let x = tr.operand(op, 0)?;
    let value = fcmp(tr, FloatPredicate::UNO, x, x)?;
    tr.set_result(op, 0, value)
}

/// Compares `|x|` with +infinity.
fn compare_magnitude_with_infinity(tr: &mut Translator, op: OpId, p: FloatPredicate) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let x = tr.operand(op, 0)?;
    let magnitude = tr.call_intrinsic("llvm.fabs", &[x.get_type()], &[x])?;
    let infinity = float_like(tr, x.get_type(), f64::INFINITY)?;
    let value = fcmp(tr, p, magnitude, infinity)?;
    tr.set_result(op, 0, value)
}

fn isinf(tr: &mut Translator, op: OpId) -> TResult {
    compare_magnitude_with_infinity(tr, op, FloatPredicate::OEQ)
}

fn isfinite(tr: &mut Translator, op: OpId) -> TResult {
    // `one` is false for NaN, which is not finite.
    compare_magnitude_with_infinity(tr, op, FloatPredicate::ONE)
}

fn isnormal(tr: &mut Translator, op: OpId) -> TResult {
    expect_kind(tr, op, 0, true)?;
    let x = tr.operand(op, 0)?;
    // fcPosNormal | fcNegNormal in `llvm.is.fpclass`'s test mask.
    let mask = tr
        .llvm
        .i32_type()
        .const_int(0x108, false)
        .as_basic_value_enum();
    let value = tr.call_intrinsic("llvm.is.fpclass", &[x.get_type()], &[x, mask])?;
    tr.set_result(op, 0, value)
}
