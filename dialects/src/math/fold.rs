//! Folders of the `math` ops, as MLIR 22 folds them: constant scalars, splats and dense
//! elements are evaluated element by element. Transcendental functions fold for `f32`
//! and `f64` only, through the C library as MLIR does; sign, rounding and classification
//! ops in every float format up to 64 bits (sign ops in all); counting and power ops in
//! integers up to 128 bits.

use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::ods::constraint::element_or_self;
use tb_ir::registry::FoldResult;
use tb_ir::{Attr, Context, FloatKind, OpId, Type, TypeKind};

use super::libm::{self, Binary, Unary};
use crate::arith::wrap;

/// The elements of a constant operand: one for a scalar or a splat.
struct Elements {
    values: Vec<DenseElement>,
    shaped: bool,
}

/// The constant `attr` as elements; `splat_only` refuses dense values that differ.
fn elements(ctx: &Context, attr: Option<Attr>, splat_only: bool) -> Option<Elements> {
    let (values, shaped) = match ctx.attr_kind(attr?) {
        AttrKind::Integer { value, .. } => (vec![DenseElement::Int(*value)], false),
        AttrKind::Float { bits, .. } => (vec![DenseElement::Float(*bits)], false),
        AttrKind::DenseElements { data, .. } if data.splat || !splat_only => {
            (data.elements.clone(), true)
        }
        _ => return None,
    };
    Some(Elements { values, shaped })
}

/// Applies `f` to the elements of every operand in step (a splat standing for each of
/// its elements) and builds the result constant; nothing folds if `f` fails anywhere.
fn fold_elements(
    ctx: &Context,
    op: OpId,
    operands: &[Elements],
    f: impl Fn(&[DenseElement]) -> Option<DenseElement>,
) -> Option<Vec<FoldResult>> {
    let ty = ctx.value_type(*ctx.op(op).results.first()?);
    let len = operands.iter().map(|o| o.values.len()).max()?;
    if operands
        .iter()
        .any(|o| o.values.len() != 1 && o.values.len() != len)
    {
        return None;
    }
    let mut out = Vec::with_capacity(len);
    let mut args = Vec::with_capacity(operands.len());
    for i in 0..len {
        args.clear();
        args.extend(
            operands
                .iter()
                .map(|o| o.values[if o.values.len() == 1 { 0 } else { i }]),
        );
        out.push(f(&args)?);
    }
    let kind = if operands.iter().all(|o| !o.shaped) {
        match out[0] {
            DenseElement::Int(value) => AttrKind::Integer { value, ty },
            DenseElement::Float(bits) => AttrKind::Float { bits, ty },
            _ => return None,
        }
    } else {
        // Equal elements make a splat, as MLIR's dense attributes detect.
        let splat = !out.is_empty() && out.iter().all(|e| *e == out[0]);
        if splat {
            out.truncate(1);
        }
        AttrKind::DenseElements {
            ty,
            data: DenseData {
                splat,
                elements: out,
            },
        }
    };
    Some(vec![FoldResult::NewAttr(kind)])
}

fn operand_type(ctx: &Context, op: OpId) -> Option<Type> {
    Some(ctx.value_type(*ctx.op(op).operands.first()?))
}

fn float_kind(ctx: &Context, ty: Type) -> Option<FloatKind> {
    match ctx.type_kind(element_or_self(ctx, ty)) {
        TypeKind::Float(kind) => Some(*kind),
        _ => None,
    }
}

/// Bit width of an integer-like element type (`index` is 64 bits wide).
fn int_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_kind(element_or_self(ctx, ty)) {
        TypeKind::Integer { width, .. } if *width <= 128 => Some(*width),
        TypeKind::Index => Some(64),
        _ => None,
    }
}

fn float_bits(e: DenseElement) -> Option<u128> {
    match e {
        DenseElement::Float(bits) => Some(bits),
        _ => None,
    }
}

fn int_value(e: DenseElement) -> Option<i128> {
    match e {
        DenseElement::Int(v) => Some(v),
        _ => None,
    }
}

fn sign_mask(kind: FloatKind) -> u128 {
    1 << (kind.width() - 1)
}

/// Whether the sign bit is set (negative numbers, -0.0, -inf and negative NaNs).
fn is_negative(kind: FloatKind, bits: u128) -> bool {
    kind != FloatKind::F8E8M0FNU && bits & sign_mask(kind) != 0
}

/// Folds a float op of one operand with `f` on each element's bits.
fn float_unary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    f: impl Fn(FloatKind, u128) -> Option<u128>,
) -> Option<Vec<FoldResult>> {
    let kind = float_kind(ctx, operand_type(ctx, op)?)?;
    let a = elements(ctx, c[0], false)?;
    fold_elements(ctx, op, &[a], |e| {
        Some(DenseElement::Float(f(kind, float_bits(e[0])?)?))
    })
}

fn float_binary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    f: impl Fn(FloatKind, u128, u128) -> Option<u128>,
) -> Option<Vec<FoldResult>> {
    let kind = float_kind(ctx, operand_type(ctx, op)?)?;
    let (a, b) = (elements(ctx, c[0], false)?, elements(ctx, c[1], false)?);
    fold_elements(ctx, op, &[a, b], |e| {
        Some(DenseElement::Float(f(
            kind,
            float_bits(e[0])?,
            float_bits(e[1])?,
        )?))
    })
}

/// `f` through the C library's `float` or `double` variant; other formats do not fold.
pub(crate) fn eval_unary(f: Unary, kind: FloatKind, bits: u128) -> Option<u128> {
    match kind {
        FloatKind::F32 => Some((f.f32)(f32::from_bits(bits as u32)).to_bits() as u128),
        FloatKind::F64 => Some((f.f64)(f64::from_bits(bits as u64)).to_bits() as u128),
        _ => None,
    }
}

pub(crate) fn eval_binary(f: Binary, kind: FloatKind, a: u128, b: u128) -> Option<u128> {
    match kind {
        FloatKind::F32 => {
            Some((f.f32)(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u128)
        }
        FloatKind::F64 => {
            Some((f.f64)(f64::from_bits(a as u64), f64::from_bits(b as u64)).to_bits() as u128)
        }
        _ => None,
    }
}

/// Rounds to an integral value in the operand's own format. Every format up to 64 bits
/// is exact in `f64`, and an integral value of a format is representable in it.
fn round_integral(kind: FloatKind, bits: u128, round: fn(f64) -> f64) -> Option<u128> {
    if matches!(kind, FloatKind::F80 | FloatKind::F128) {
        return None;
    }
    let value = bits_to_f64(kind, bits)?;
    if !value.is_finite() {
        return Some(bits);
    }
    bits_from_f64(kind, round(value))
}

/// The default quiet NaN of a format (what atan2(0, 0) folds to).
fn quiet_nan(kind: FloatKind) -> Option<u128> {
    match kind {
        FloatKind::F32 => Some(f32::NAN.to_bits() as u128),
        FloatKind::F64 => Some(f64::NAN.to_bits() as u128),
        _ => bits_from_f64(kind, f64::NAN),
    }
}

/// When a C library function is evaluated: always, or only on part of its domain.
#[derive(Clone, Copy)]
enum Domain {
    All,
    /// Not on values with the sign bit set, -0.0 included (log, sqrt).
    NonNegative,
    /// Not where `x + 1` has the sign bit set (log1p).
    AbovePlusOneNegative,
}

fn libm_unary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    f: Unary,
    domain: Domain,
) -> Option<Vec<FoldResult>> {
    float_unary(ctx, op, c, |kind, bits| {
        let excluded = match domain {
            Domain::All => false,
            Domain::NonNegative => is_negative(kind, bits),
            Domain::AbovePlusOneNegative => match kind {
                FloatKind::F32 => (f32::from_bits(bits as u32) + 1.0).is_sign_negative(),
                FloatKind::F64 => (f64::from_bits(bits as u64) + 1.0).is_sign_negative(),
                _ => true,
            },
        };
        if excluded {
            return None;
        }
        eval_unary(f, kind, bits)
    })
}

macro_rules! libm_folds {
    ($($name:ident => $f:expr, $domain:expr;)*) => {
        $(
            pub(crate) fn $name(
                ctx: &Context,
                op: OpId,
                c: &[Option<Attr>],
            ) -> Option<Vec<FoldResult>> {
                libm_unary(ctx, op, c, $f, $domain)
            }
        )*
    };
}

libm_folds! {
    acos => libm::ACOS, Domain::All;
    acosh => libm::ACOSH, Domain::All;
    asin => libm::ASIN, Domain::All;
    asinh => libm::ASINH, Domain::All;
    atan => libm::ATAN, Domain::All;
    atanh => libm::ATANH, Domain::All;
    cos => libm::COS, Domain::All;
    cosh => libm::COSH, Domain::All;
    erf => libm::ERF, Domain::All;
    erfc => libm::ERFC, Domain::All;
    exp => libm::EXP, Domain::All;
    exp2 => libm::EXP2, Domain::All;
    expm1 => libm::EXPM1, Domain::All;
    log => libm::LOG, Domain::NonNegative;
    log10 => libm::LOG10, Domain::NonNegative;
    log1p => libm::LOG1P, Domain::AbovePlusOneNegative;
    log2 => libm::LOG2, Domain::NonNegative;
    round => libm::ROUND, Domain::All;
    sin => libm::SIN, Domain::All;
    sinh => libm::SINH, Domain::All;
    sqrt => libm::SQRT, Domain::NonNegative;
    tan => libm::TAN, Domain::All;
    tanh => libm::TANH, Domain::All;
    trunc => libm::TRUNC, Domain::All;
}

pub(crate) fn absf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_unary(ctx, op, c, |kind, bits| {
        Some(if kind == FloatKind::F8E8M0FNU {
            bits
        } else {
            bits & !sign_mask(kind)
        })
    })
}

pub(crate) fn ceil(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_unary(ctx, op, c, |kind, bits| {
        round_integral(kind, bits, f64::ceil)
    })
}

pub(crate) fn floor(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_unary(ctx, op, c, |kind, bits| {
        round_integral(kind, bits, f64::floor)
    })
}

pub(crate) fn roundeven(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_unary(ctx, op, c, |kind, bits| {
        round_integral(kind, bits, f64::round_ties_even)
    })
}

pub(crate) fn copysign(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_binary(ctx, op, c, |kind, a, b| {
        if kind == FloatKind::F8E8M0FNU {
            return Some(a);
        }
        let sign = sign_mask(kind);
        Some((a & !sign) | (b & sign))
    })
}

pub(crate) fn atan2(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_binary(ctx, op, c, |kind, a, b| {
        let is_zero = |bits: u128| bits_to_f64(kind, bits) == Some(0.0);
        if is_zero(a) && is_zero(b) {
            return quiet_nan(kind);
        }
        eval_binary(libm::ATAN2, kind, a, b)
    })
}

pub(crate) fn powf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_binary(ctx, op, c, |kind, a, b| eval_binary(libm::POW, kind, a, b))
}

// ---- integers ----

/// `v` as an unsigned `width`-bit pattern.
fn unsigned(v: i128, width: u32) -> u128 {
    if width >= 128 {
        return v as u128;
    }
    (v as u128) & ((1u128 << width) - 1)
}

/// `v` read as a signed `width`-bit number (an `i1` true is -1).
fn signed(v: i128, width: u32) -> i128 {
    if width >= 128 {
        return v;
    }
    let shift = 128 - width;
    (v << shift) >> shift
}

fn int_unary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    f: impl Fn(i128, u32) -> i128,
) -> Option<Vec<FoldResult>> {
    let width = int_width(ctx, operand_type(ctx, op)?)?;
    let a = elements(ctx, c[0], false)?;
    fold_elements(ctx, op, &[a], |e| {
        Some(DenseElement::Int(wrap(f(int_value(e[0])?, width), width)))
    })
}

pub(crate) fn absi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_unary(ctx, op, c, |v, w| signed(v, w).wrapping_abs())
}

pub(crate) fn ctlz(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_unary(ctx, op, c, |v, w| {
        (unsigned(v, w).leading_zeros() - (128 - w)) as i128
    })
}

pub(crate) fn cttz(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_unary(ctx, op, c, |v, w| {
        unsigned(v, w).trailing_zeros().min(w) as i128
    })
}

pub(crate) fn ctpop(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_unary(ctx, op, c, |v, w| unsigned(v, w).count_ones() as i128)
}

/// `base ** power` in `width`-bit two's complement; a negative power truncates toward
/// zero, and zero to a negative power does not fold.
pub(crate) fn integer_power(base: i128, power: i128, width: u32) -> Option<i128> {
    let (base, power) = (signed(base, width), signed(power, width));
    let one = signed(1, width);
    if power == 0 {
        return Some(one);
    }
    if power < 0 {
        return match base {
            0 => None,
            b if b == one => Some(one),
            -1 => Some(if power & 1 == 1 { -1 } else { 1 }),
            _ => Some(0),
        };
    }
    let (mut result, mut square, mut rest) = (1i128, base, power as u128);
    while rest != 0 {
        if rest & 1 == 1 {
            result = signed(result.wrapping_mul(square), width);
        }
        square = signed(square.wrapping_mul(square), width);
        rest >>= 1;
    }
    Some(result)
}

pub(crate) fn ipowi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let width = int_width(ctx, operand_type(ctx, op)?)?;
    let (a, b) = (elements(ctx, c[0], false)?, elements(ctx, c[1], false)?);
    fold_elements(ctx, op, &[a, b], |e| {
        let r = integer_power(int_value(e[0])?, int_value(e[1])?, width)?;
        Some(DenseElement::Int(wrap(r, width)))
    })
}

// ---- classification ----

/// The exponent of the smallest normal number of a format.
fn min_normal_exponent(kind: FloatKind) -> i32 {
    use FloatKind::*;
    match kind {
        F16 | F8E5M2 => -14,
        BF16 | TF32 | F32 => -126,
        F64 => -1022,
        F80 | F128 => -16382,
        F8E4M3 | F8E4M3FN => -6,
        F8E3M4 | F6E3M2FN => -2,
        F8E5M2FNUZ => -15,
        F8E4M3FNUZ => -7,
        F8E4M3B11FNUZ => -10,
        F4E2M1FN | F6E2M3FN => 0,
        F8E8M0FNU => -127,
    }
}

/// Folds a classification op on a scalar or splat (MLIR folds no other dense value).
fn classify(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    test: fn(f64, FloatKind) -> bool,
) -> Option<Vec<FoldResult>> {
    let kind = float_kind(ctx, operand_type(ctx, op)?)?;
    if matches!(kind, FloatKind::F80 | FloatKind::F128) {
        return None;
    }
    let a = elements(ctx, c[0], true)?;
    fold_elements(ctx, op, &[a], |e| {
        let value = bits_to_f64(kind, float_bits(e[0])?)?;
        Some(DenseElement::Int(test(value, kind) as i128))
    })
}

pub(crate) fn isnan(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    classify(ctx, op, c, |v, _| v.is_nan())
}

pub(crate) fn isinf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    classify(ctx, op, c, |v, _| v.is_infinite())
}

pub(crate) fn isfinite(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    classify(ctx, op, c, |v, _| v.is_finite())
}

pub(crate) fn isnormal(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    classify(ctx, op, c, |v, kind| {
        v.is_finite() && v != 0.0 && v.abs() >= 2f64.powi(min_normal_exponent(kind))
    })
}
