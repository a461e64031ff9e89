//! Folders of the `arith` ops: constant evaluation in the operands' bit width and float
//! format, and the algebraic identities MLIR folds (`x + 0`, `x * 1`, `x - x`, ...).
//! Splat vector and tensor constants fold like scalars.

use super::attrs::{CmpFPredicate, CmpIPredicate, FastMathFlags};
use super::float_eval::{self, FloatBinary, eval_binary};
use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::ods::constraint::element_or_self;
use tb_ir::printer::type_to_string;
use tb_ir::registry::FoldResult;
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, Diagnostic, FloatKind, OpId, Type, TypeKind, Value};

/// A scalar constant, or the value of a splat: integers sign-extended (bools 0/1),
/// floats as raw bits of their format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Scalar {
    Int(i128),
    Float(u128),
}

fn scalar(ctx: &Context, attr: Attr) -> Option<Scalar> {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => Some(Scalar::Int(*value)),
        AttrKind::Float { bits, .. } => Some(Scalar::Float(*bits)),
        AttrKind::DenseElements { data, .. } if data.splat || data.elements.len() == 1 => {
            match data.elements.first()? {
                DenseElement::Int(v) => Some(Scalar::Int(*v)),
                DenseElement::Float(b) => Some(Scalar::Float(*b)),
                _ => None,
            }
        }
        _ => None,
    }
}

pub(super) fn int_of(ctx: &Context, attr: Option<Attr>) -> Option<i128> {
    match scalar(ctx, attr?)? {
        Scalar::Int(v) => Some(v),
        Scalar::Float(_) => None,
    }
}

fn float_of(ctx: &Context, attr: Option<Attr>, kind: FloatKind) -> Option<f64> {
    match scalar(ctx, attr?)? {
        Scalar::Float(bits) => bits_to_f64(kind, bits),
        Scalar::Int(_) => None,
    }
}

/// Bit width of an integer-like element type (index is 64 bits).
pub(super) fn int_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_kind(element_or_self(ctx, ty)) {
        TypeKind::Integer { width, .. } => Some(*width),
        TypeKind::Index => Some(64),
        _ => None,
    }
}

fn float_kind(ctx: &Context, ty: Type) -> Option<FloatKind> {
    match ctx.type_kind(element_or_self(ctx, ty)) {
        TypeKind::Float(k) => Some(*k),
        _ => None,
    }
}

/// `v` truncated to `width` bits in the canonical form attributes keep.
pub(crate) fn wrap(v: i128, width: u32) -> i128 {
    if width == 1 {
        return v & 1;
    }
    if width >= 128 {
        return v;
    }
    let shift = 128 - width;
    (v << shift) >> shift
}

use super::predicate::unsigned_value as unsigned;

/// `ty` with its element replaced by `element` (for comparison results).
pub(crate) fn with_element(ctx: &mut Context, ty: Type, element: Type) -> Type {
    match ctx.type_kind(ty).clone() {
        TypeKind::Vector {
            shape, scalable, ..
        } => ctx.intern_type(TypeKind::Vector {
            shape,
            scalable,
            element,
        }),
        TypeKind::RankedTensor {
            shape, encoding, ..
        } => ctx.intern_type(TypeKind::RankedTensor {
            shape,
            element,
            encoding,
        }),
        TypeKind::UnrankedTensor { .. } => ctx.intern_type(TypeKind::UnrankedTensor { element }),
        _ => element,
    }
}

/// A constant of `ty` (scalar, or a splat of a shaped type) holding `value`.
pub(super) fn constant(ctx: &Context, ty: Type, value: Scalar) -> FoldResult {
    let shaped = matches!(
        ctx.type_kind(ty),
        TypeKind::Vector { .. } | TypeKind::RankedTensor { .. }
    );
    FoldResult::NewAttr(match (shaped, value) {
        (false, Scalar::Int(value)) => AttrKind::Integer { value, ty },
        (false, Scalar::Float(bits)) => AttrKind::Float { bits, ty },
        (true, v) => AttrKind::DenseElements {
            ty,
            data: DenseData {
                splat: true,
                elements: vec![match v {
                    Scalar::Int(i) => DenseElement::Int(i),
                    Scalar::Float(b) => DenseElement::Float(b),
                }],
            },
        },
    })
}

fn operands(ctx: &Context, op: OpId) -> (Value, Value, Type) {
    let data = ctx.op(op);
    (
        data.operands[0],
        data.operands[1],
        ctx.value_type(data.results[0]),
    )
}

pub(super) fn value(v: Value) -> Option<Vec<FoldResult>> {
    Some(vec![FoldResult::Value(v)])
}

/// Folds a binary integer op: identities first, then constant evaluation.
fn int_binary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    identity: impl Fn(Value, Value, Option<i128>, Option<i128>, u32) -> Option<FoldResult>,
    eval: impl Fn(i128, i128, u32) -> Option<i128>,
) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    let width = int_width(ctx, ty)?;
    let (a, b) = (int_of(ctx, c[0]), int_of(ctx, c[1]));
    if let Some(r) = identity(lhs, rhs, a, b, width) {
        return Some(vec![r]);
    }
    let r = eval(a?, b?, width)?;
    Some(vec![constant(ctx, ty, Scalar::Int(wrap(r, width)))])
}

pub(crate) fn addi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(0)).then_some(FoldResult::Value(l)),
        |a, b, _| Some(a.wrapping_add(b)),
    )
}

pub(crate) fn subi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return Some(vec![constant(ctx, ty, Scalar::Int(0))]);
    }
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(0)).then_some(FoldResult::Value(l)),
        |a, b, _| Some(a.wrapping_sub(b)),
    )
}

pub(crate) fn muli(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    // x * 0 is the zero operand itself, as MLIR folds it.
    if int_of(ctx, c[1]) == Some(0) {
        return value(ctx.op(op).operands[1]);
    }
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, _| Some(a.wrapping_mul(b)),
    )
}

pub(crate) fn divsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let (a, b) = (signed_operand(a, w), signed_operand(b, w));
            // Division by zero and the one overflowing quotient do not fold.
            if b == 0 || (a == signed_min(w) && b == -1) {
                return None;
            }
            Some(a / b)
        },
    )
}

pub(crate) fn divui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let (a, b) = (unsigned(a, w), unsigned(b, w));
            (b != 0).then(|| (a / b) as i128)
        },
    )
}

/// The signed value of a `width`-bit constant (i1 `true` is -1).
fn signed_operand(v: i128, width: u32) -> i128 {
    super::predicate::signed_value(v, width)
}

/// The minimum signed `width`-bit value, the one whose negation overflows.
fn signed_min(width: u32) -> i128 {
    i128::MIN >> (128 - width)
}

/// `ceildivsi` as MLIR folds it: not by zero, and not when negating an operand or the
/// quotient would overflow (so never with the minimum value as an operand).
pub(crate) fn ceildivsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let (a, b) = (signed_operand(a, w), signed_operand(b, w));
            if b == 0 {
                return None;
            }
            if a == 0 {
                return Some(0);
            }
            if (a < 0 || b < 0) && (a == signed_min(w) || b == signed_min(w)) {
                return None;
            }
            let (q, r) = (a / b, a % b);
            // Truncation rounded toward zero; a positive inexact quotient rounds up.
            Some(if r != 0 && (a < 0) == (b < 0) {
                q + 1
            } else {
                q
            })
        },
    )
}

pub(crate) fn ceildivui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let (a, b) = (unsigned(a, w), unsigned(b, w));
            if b == 0 {
                return None;
            }
            Some((a / b + u128::from(a % b != 0)) as i128)
        },
    )
}

/// `floordivsi`: not by zero, and not the one overflowing quotient `MIN / -1`.
pub(crate) fn floordivsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(1)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let (a, b) = (signed_operand(a, w), signed_operand(b, w));
            if b == 0 || (a == signed_min(w) && b == -1) {
                return None;
            }
            let (q, r) = (a / b, a % b);
            // Truncation rounded toward zero; a negative inexact quotient rounds down.
            Some(if r != 0 && (a < 0) != (b < 0) {
                q - 1
            } else {
                q
            })
        },
    )
}

pub(crate) fn remsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |_, _, _, _, _| None,
        |a, b, _| (b != 0).then(|| a.wrapping_rem(b)),
    )
    .or_else(|| {
        let ty = ctx.value_type(ctx.op(op).results[0]);
        (int_of(ctx, c[1]) == Some(1)).then(|| vec![constant(ctx, ty, Scalar::Int(0))])
    })
}

pub(crate) fn remui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |_, _, _, _, _| None,
        |a, b, w| {
            let (a, b) = (unsigned(a, w), unsigned(b, w));
            (b != 0).then(|| (a % b) as i128)
        },
    )
    .or_else(|| {
        let ty = ctx.value_type(ctx.op(op).results[0]);
        (int_of(ctx, c[1]) == Some(1)).then(|| vec![constant(ctx, ty, Scalar::Int(0))])
    })
}

pub(crate) fn andi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, _) = operands(ctx, op);
    if lhs == rhs {
        return value(lhs);
    }
    if int_of(ctx, c[1]) == Some(0) {
        return value(rhs);
    }
    // and(and(x, y), y) and and(y, and(x, y)) are the inner `and`.
    let inner_has = |v: Value, other: Value| match ctx.value(v).def {
        tb_ir::value::ValueDef::Result { op: inner, .. } => {
            ctx.op_name(inner) == "arith.andi" && ctx.op(inner).operands.contains(&other)
        }
        _ => false,
    };
    if inner_has(lhs, rhs) {
        return value(lhs);
    }
    if inner_has(rhs, lhs) {
        return value(rhs);
    }
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, w| {
            (b.map(|b| wrap(b, w)) == Some(wrap(-1, w))).then_some(FoldResult::Value(l))
        },
        |a, b, _| Some(a & b),
    )
}

pub(crate) fn ori(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return value(lhs);
    }
    let width = int_width(ctx, ty)?;
    if int_of(ctx, c[1]).map(|b| wrap(b, width)) == Some(wrap(-1, width)) {
        return value(rhs);
    }
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(0)).then_some(FoldResult::Value(l)),
        |a, b, _| Some(a | b),
    )
}

pub(crate) fn xori(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return Some(vec![constant(ctx, ty, Scalar::Int(0))]);
    }
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(0)).then_some(FoldResult::Value(l)),
        |a, b, _| Some(a ^ b),
    )
}

fn min_max(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    pick: fn(i128, i128, u32) -> i128,
) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, _) = operands(ctx, op);
    if lhs == rhs {
        return value(lhs);
    }
    int_binary(
        ctx,
        op,
        c,
        |_, _, _, _, _| None,
        |a, b, w| Some(pick(a, b, w)),
    )
}

pub(crate) fn maxsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(ctx, op, c, |a, b, _| a.max(b))
}

pub(crate) fn minsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(ctx, op, c, |a, b, _| a.min(b))
}

pub(crate) fn maxui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(ctx, op, c, |a, b, w| {
        if unsigned(a, w) >= unsigned(b, w) {
            a
        } else {
            b
        }
    })
}

pub(crate) fn minui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(ctx, op, c, |a, b, w| {
        if unsigned(a, w) <= unsigned(b, w) {
            a
        } else {
            b
        }
    })
}

/// Shifts by the width or more are poison: they do not fold.
fn shift(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    eval: fn(i128, u32, u32) -> i128,
) -> Option<Vec<FoldResult>> {
    int_binary(
        ctx,
        op,
        c,
        |l, _, _, b, _| (b == Some(0)).then_some(FoldResult::Value(l)),
        |a, b, w| {
            let amount = u32::try_from(unsigned(b, w)).ok().filter(|&s| s < w)?;
            Some(eval(a, amount, w))
        },
    )
}

pub(crate) fn shli(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    shift(ctx, op, c, |a, s, _| a << s)
}

pub(crate) fn shrsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    shift(ctx, op, c, |a, s, _| a >> s)
}

pub(crate) fn shrui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    shift(ctx, op, c, |a, s, w| (unsigned(a, w) >> s) as i128)
}

// ---- floats ----

/// Folds a binary float op on constant operands through [`eval_binary`], which gives
/// `APFloat`'s bits (NaNs included) on any host.
fn float_binary(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    kind_of_op: FloatBinary,
) -> Option<Vec<FoldResult>> {
    let (_, _, ty) = operands(ctx, op);
    let kind = float_kind(ctx, ty)?;
    let (a, b) = (float_bits(ctx, c[0])?, float_bits(ctx, c[1])?);
    let bits = eval_binary(kind, kind_of_op, a, b)?;
    Some(vec![constant(ctx, ty, Scalar::Float(bits))])
}

fn float_bits(ctx: &Context, attr: Option<Attr>) -> Option<u128> {
    match scalar(ctx, attr?)? {
        Scalar::Float(bits) => Some(bits),
        Scalar::Int(_) => None,
    }
}

/// Whether constant `attr` is the float `want` (bit-exact, so -0.0 differs from 0.0).
fn is_float(ctx: &Context, attr: Option<Attr>, ty: Type, want: f64) -> bool {
    let Some(kind) = float_kind(ctx, ty) else {
        return false;
    };
    float_bits(ctx, attr).is_some_and(|bits| bits_from_f64(kind, want) == Some(bits))
}

/// Whether constant `attr` is a NaN of any sign and payload.
fn is_nan_constant(ctx: &Context, attr: Option<Attr>, ty: Type) -> bool {
    let Some(kind) = float_kind(ctx, ty) else {
        return false;
    };
    float_bits(ctx, attr).is_some_and(|bits| float_eval::is_nan(kind, bits))
}

pub(crate) fn addf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, _, ty) = operands(ctx, op);
    if is_float(ctx, c[1], ty, -0.0) {
        return value(lhs);
    }
    float_binary(ctx, op, c, FloatBinary::Add)
}

pub(crate) fn subf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, _, ty) = operands(ctx, op);
    if is_float(ctx, c[1], ty, 0.0) {
        return value(lhs);
    }
    float_binary(ctx, op, c, FloatBinary::Sub)
}

pub(crate) fn mulf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if is_float(ctx, c[1], ty, 1.0) {
        return value(lhs);
    }
    // x * 0 is 0 only when NaNs and the sign of zero may be ignored.
    let fastmath = FastMathFlags::of(ctx, op);
    if fastmath.contains(FastMathFlags::NNAN)
        && fastmath.contains(FastMathFlags::NSZ)
        && (is_float(ctx, c[1], ty, 0.0) || is_float(ctx, c[1], ty, -0.0))
    {
        return value(rhs);
    }
    float_binary(ctx, op, c, FloatBinary::Mul)
}

pub(crate) fn divf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, _, ty) = operands(ctx, op);
    if is_float(ctx, c[1], ty, 1.0) {
        return value(lhs);
    }
    float_binary(ctx, op, c, FloatBinary::Div)
}

pub(crate) fn remf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    float_binary(ctx, op, c, FloatBinary::Rem)
}

/// `op(x, x)` is `x`; `op(x, neutral)` is `x`, where `neutral` is the constant that never
/// wins (-inf for maximumf, NaN for maxnumf, ...).
fn min_max_f(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    kind_of_op: FloatBinary,
    neutral: impl Fn(Option<Attr>, Type) -> bool,
) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return value(rhs);
    }
    if neutral(c[1], ty) {
        return value(lhs);
    }
    float_binary(ctx, op, c, kind_of_op)
}

pub(crate) fn maximumf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max_f(ctx, op, c, FloatBinary::Maximum, |a, ty| {
        is_float(ctx, a, ty, f64::NEG_INFINITY)
    })
}

pub(crate) fn minimumf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max_f(ctx, op, c, FloatBinary::Minimum, |a, ty| {
        is_float(ctx, a, ty, f64::INFINITY)
    })
}

pub(crate) fn maxnumf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max_f(ctx, op, c, FloatBinary::MaxNum, |a, ty| {
        is_nan_constant(ctx, a, ty)
    })
}

pub(crate) fn minnumf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max_f(ctx, op, c, FloatBinary::MinNum, |a, ty| {
        is_nan_constant(ctx, a, ty)
    })
}

pub(crate) fn negf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let ty = ctx.value_type(ctx.op(op).results[0]);
    let kind = float_kind(ctx, ty)?;
    let Scalar::Float(bits) = scalar(ctx, c[0]?)? else {
        return None;
    };
    // Negation flips the sign bit, whatever the format.
    let sign = 1u128 << (kind.width() - 1);
    Some(vec![constant(ctx, ty, Scalar::Float(bits ^ sign))])
}

// ---- comparisons and selection ----

pub(crate) fn verify_cmp(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let operand = ctx.value_type(data.operands[0]);
    let result = ctx.value_type(data.results[0]);
    let shape = |t: Type| ctx.type_kind(t).shape().map(|s| s.to_vec());
    if shape(operand) != shape(result) {
        return Err(Diagnostic::error(
            data.loc,
            format!(
                "'{}' op result type '{}' must be shaped like the operands '{}'",
                ctx.op_name(op),
                type_to_string(ctx, result),
                type_to_string(ctx, operand)
            ),
        ));
    }
    Ok(())
}

pub(crate) fn cmpi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let ty = ctx.value_type(data.results[0]);
    let pred = CmpIPredicate::of(ctx, op)?;
    let width = int_width(ctx, ctx.value_type(data.operands[0]))?;
    let bool_const = |b: bool| vec![constant(ctx, ty, Scalar::Int(b as i128))];
    if data.operands[0] == data.operands[1] {
        // eq, sle, sge, ule, uge hold for equal operands; the others do not.
        use CmpIPredicate as P;
        return Some(bool_const(matches!(
            pred,
            P::Eq | P::Sle | P::Sge | P::Ule | P::Uge
        )));
    }
    let (a, b) = (int_of(ctx, c[0])?, int_of(ctx, c[1])?);
    let result = super::predicate::compare_ints(pred, a, b, width);
    Some(bool_const(result))
}

pub(crate) fn cmpf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let ty = ctx.value_type(data.results[0]);
    let pred = CmpFPredicate::of(ctx, op)?;
    let bool_const = |b: bool| vec![constant(ctx, ty, Scalar::Int(b as i128))];
    match pred {
        CmpFPredicate::False => return Some(bool_const(false)),
        CmpFPredicate::True => return Some(bool_const(true)),
        _ => {}
    }
    let kind = float_kind(ctx, ctx.value_type(data.operands[0]))?;
    let (a, b) = (float_of(ctx, c[0], kind)?, float_of(ctx, c[1], kind)?);
    let result = super::predicate::compare_floats(pred, a, b);
    Some(bool_const(result))
}

pub(crate) fn select(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let (t, f) = (data.operands[1], data.operands[2]);
    if t == f {
        return value(t);
    }
    match int_of(ctx, c[0])? {
        0 => value(f),
        _ => value(t),
    }
}

// ---- casts ----

/// MLIR's checks of a cast, in MLIR's order: the tensor dimensions of input and output
/// (an ODS predicate, verified with the operand constraints), then the shape trait (static
/// sizes, rank and scalable dimensions), then the op's own cast compatibility (widths and
/// encodings).
pub(crate) fn verify_cast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (from, to) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    let fail = |message: String| {
        Err(Diagnostic::error(
            data.loc,
            format!("'{}' op {message}", ctx.op_name(op)),
        ))
    };
    let tensor_dims = |t: Type| match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, .. } => shape.clone(),
        _ => Vec::new(),
    };
    if tensor_dims(from) != tensor_dims(to) {
        return fail(
            "failed to verify that input and output have the same tensor dimensions".into(),
        );
    }
    if !compatible_shapes(ctx, from, to) {
        return fail("requires the same shape for all operands and results".into());
    }
    let incompatible = || {
        fail(format!(
            "operand type '{}' and result type '{}' are cast incompatible",
            type_to_string(ctx, from),
            type_to_string(ctx, to)
        ))
    };
    let shape = |t: Type| ctx.type_kind(t).shape().map(|s| s.to_vec());
    let encoding = |t: Type| match ctx.type_kind(t) {
        TypeKind::RankedTensor { encoding, .. } => *encoding,
        _ => None,
    };
    // The container (vector, tensor, memref) must stay the same; scalars carry none.
    let container = |t: Type| {
        let kind = ctx.type_kind(t);
        kind.shape().map(|_| std::mem::discriminant(kind))
    };
    if shape(from) != shape(to)
        || encoding(from) != encoding(to)
        || container(from) != container(to)
    {
        return incompatible();
    }
    let (wf, wt) = (
        int_width(ctx, from).or_else(|| float_kind(ctx, from).map(|k| k.width())),
        int_width(ctx, to).or_else(|| float_kind(ctx, to).map(|k| k.width())),
    );
    let ok = match ctx.op_name(op) {
        "arith.extsi" | "arith.extui" | "arith.extf" => wf < wt,
        "arith.trunci" | "arith.truncf" => wf > wt,
        "arith.bitcast" => wf == wt,
        // One side is `index`, the other a fixed-width integer.
        "arith.index_cast" | "arith.index_castui" => {
            let is_index =
                |t: Type| matches!(ctx.type_kind(element_or_self(ctx, t)), TypeKind::Index);
            is_index(from) != is_index(to)
        }
        _ => true,
    };
    if !ok {
        return incompatible();
    }
    Ok(())
}

/// MLIR's `verifyCompatibleShape`: both shaped or neither; an unranked side matches any
/// shape; otherwise equal ranks, sizes equal or dynamic, and the same scalable dimensions.
pub(crate) fn compatible_shapes(ctx: &Context, a: Type, b: Type) -> bool {
    let (ka, kb) = (ctx.type_kind(a), ctx.type_kind(b));
    let shaped = |k: &TypeKind| {
        matches!(
            k,
            TypeKind::RankedTensor { .. }
                | TypeKind::UnrankedTensor { .. }
                | TypeKind::MemRef { .. }
                | TypeKind::UnrankedMemRef { .. }
                | TypeKind::Vector { .. }
        )
    };
    if !shaped(ka) || !shaped(kb) {
        return shaped(ka) == shaped(kb);
    }
    let (Some(sa), Some(sb)) = (ka.shape(), kb.shape()) else {
        return true;
    };
    let scalable = |k: &TypeKind| match k {
        TypeKind::Vector { scalable, .. } => scalable.iter().any(|&s| s).then(|| scalable.clone()),
        _ => None,
    };
    sa.len() == sb.len()
        && sa
            .iter()
            .zip(sb)
            .all(|(&x, &y)| x == y || x == DYNAMIC || y == DYNAMIC)
        && scalable(ka) == scalable(kb)
}

/// `arith.select`: a condition other than `i1` must be shaped like the result (MLIR checks
/// the shape as an ODS predicate, then the exact shaped type without its element type).
pub(crate) fn verify_select(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (condition, result) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    if matches!(ctx.type_kind(condition), TypeKind::Integer { .. }) {
        return Ok(());
    }
    let shape = |t: Type| ctx.type_kind(t).shape().map(|s| s.to_vec());
    if shape(condition) != shape(result) {
        return Err(Diagnostic::error(
            data.loc,
            "'arith.select' op failed to verify that condition is signless i1 or has matching shape",
        ));
    }
    let kind = |t: Type| std::mem::discriminant(ctx.type_kind(t));
    let encoding = |t: Type| match ctx.type_kind(t) {
        TypeKind::RankedTensor { encoding, .. } => *encoding,
        _ => None,
    };
    let scalable = |t: Type| match ctx.type_kind(t) {
        TypeKind::Vector { scalable, .. } => scalable.clone(),
        _ => Vec::new(),
    };
    if kind(condition) != kind(result)
        || encoding(condition) != encoding(result)
        || scalable(condition) != scalable(result)
    {
        return Err(Diagnostic::error(
            data.loc,
            "'arith.select' op expected condition type to have the same shape as the result type",
        ));
    }
    Ok(())
}

/// `scaling_extf` widens and `scaling_truncf` narrows its input, keeping its shape (the
/// scale's type is free, as in MLIR).
pub(crate) fn verify_scaling_cast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (input, scale, out) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.operands[1]),
        ctx.value_type(data.results[0]),
    );
    let shape = |t: Type| ctx.type_kind(t).shape().map(|s| s.to_vec());
    let width = |t: Type| float_kind(ctx, t).map(|k| k.width());
    let widens = width(out) > width(input);
    let ok = shape(input) == shape(out)
        && if ctx.op_name(op) == "arith.scaling_extf" {
            widens
        } else {
            width(out) < width(input)
        };
    if ok {
        return Ok(());
    }
    Err(Diagnostic::error(
        data.loc,
        format!(
            "'{}' op operand types '{}', '{}' and result type '{}' are cast incompatible",
            ctx.op_name(op),
            type_to_string(ctx, input),
            type_to_string(ctx, scale),
            type_to_string(ctx, out)
        ),
    ))
}

pub(crate) fn fold_cast(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let (from, to) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    if from == to {
        return value(data.operands[0]);
    }
    let input = scalar(ctx, c[0]?)?;
    let result = match (ctx.op_name(op), input) {
        ("arith.extsi" | "arith.index_cast" | "arith.trunci", Scalar::Int(v)) => {
            let from_w = int_width(ctx, from)?;
            // Read signed first: i1 `true` sign-extends to -1.
            let v = super::predicate::signed_value(wrap(v, from_w), from_w);
            Scalar::Int(wrap(v, int_width(ctx, to)?))
        }
        ("arith.extui" | "arith.index_castui", Scalar::Int(v)) => {
            let from_w = int_width(ctx, from)?;
            Scalar::Int(wrap(unsigned(v, from_w) as i128, int_width(ctx, to)?))
        }
        ("arith.sitofp", Scalar::Int(v)) => {
            let from_w = int_width(ctx, from)?;
            float_scalar(float_kind(ctx, to)?, wrap(v, from_w) as f64)?
        }
        ("arith.uitofp", Scalar::Int(v)) => {
            let from_w = int_width(ctx, from)?;
            float_scalar(float_kind(ctx, to)?, unsigned(v, from_w) as f64)?
        }
        ("arith.extf" | "arith.truncf", Scalar::Float(bits)) => {
            // Only exact conversions fold, so the rounding mode never matters.
            let (from, to) = (float_kind(ctx, from)?, float_kind(ctx, to)?);
            Scalar::Float(float_eval::convert_exact(from, bits, to)?)
        }
        ("arith.fptosi" | "arith.fptoui", Scalar::Float(bits)) => {
            let v = bits_to_f64(float_kind(ctx, from)?, bits)?.trunc();
            let w = int_width(ctx, to)?;
            let signed = ctx.op_name(op) == "arith.fptosi";
            let (lo, hi) = if signed {
                (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1) - 1.0)
            } else {
                (0.0, 2f64.powi(w as i32) - 1.0)
            };
            // Out-of-range conversions are poison: leave them alone.
            if !(lo..=hi).contains(&v) {
                return None;
            }
            Scalar::Int(wrap(v as i128, w))
        }
        _ => return None,
    };
    Some(vec![constant(ctx, to, result)])
}

fn float_scalar(kind: FloatKind, v: f64) -> Option<Scalar> {
    Some(Scalar::Float(match kind {
        FloatKind::F32 => (v as f32).to_bits() as u128,
        FloatKind::F64 => v.to_bits() as u128,
        _ => bits_from_f64(kind, v)?,
    }))
}
