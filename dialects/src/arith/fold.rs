//! Folders of the `arith` ops: constant evaluation in the operands' bit width and float
//! format, and the algebraic identities MLIR folds (`x + 0`, `x * 1`, `x - x`, ...).
//! Splat vector and tensor constants fold like scalars.

use super::attrs::{CmpFPredicate, CmpIPredicate, FastMathFlags};
use super::elements::{self, Elements};
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
    if let Some(kind) = elements::attr_kind(ctx, ty, Elements::One(value)) {
        return FoldResult::NewAttr(kind);
    }
    // A dynamically shaped type: the splat names every element.
    FoldResult::NewAttr(AttrKind::DenseElements {
        ty,
        data: DenseData {
            splat: true,
            elements: vec![match value {
                Scalar::Int(i) => DenseElement::Int(i),
                Scalar::Float(b) => DenseElement::Float(b),
            }],
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
    let (a, b) = (
        elements::elements(ctx, c[0])?,
        elements::elements(ctx, c[1])?,
    );
    let r = elements::zip(&a, &b, |a, b| match (a, b) {
        (Scalar::Int(a), Scalar::Int(b)) => eval(a, b, width).map(|r| Scalar::Int(wrap(r, width))),
        _ => None,
    })?;
    Some(vec![elements::fold_result(ctx, ty, r)?])
}

/// The op named `name` that defines `v`, if any.
pub(super) fn producer(ctx: &Context, v: Value, name: &str) -> Option<OpId> {
    match ctx.value(v).def {
        tb_ir::value::ValueDef::Result { op, .. } if ctx.op_name(op) == name => Some(op),
        _ => None,
    }
}

/// The constant `v` is, when a constant-like op defines it.
pub(super) fn value_constant(ctx: &Context, v: Value) -> Option<Attr> {
    match ctx.value(v).def {
        tb_ir::value::ValueDef::Result { op, .. } => {
            tb_ir::rewrite::folder::constant_value(ctx, op)
        }
        _ => None,
    }
}

/// The two operands of the op named `name` that defines `v`.
fn producer_operands(ctx: &Context, v: Value, name: &str) -> Option<(Value, Value)> {
    let op = producer(ctx, v, name)?;
    let operands = &ctx.op(op).operands;
    Some((operands[0], operands[1]))
}

pub(crate) fn addi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, _) = operands(ctx, op);
    // (a - b) + b and b + (a - b) are a.
    if let Some((a, b)) = producer_operands(ctx, lhs, "arith.subi")
        && b == rhs
        && int_of(ctx, c[1]) != Some(0)
    {
        return value(a);
    }
    if let Some((a, b)) = producer_operands(ctx, rhs, "arith.subi")
        && b == lhs
        && int_of(ctx, c[1]) != Some(0)
    {
        return value(a);
    }
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
    // A zero of a dynamically shaped type has no constant to spell it.
    if lhs == rhs && !has_dynamic_shape(ctx, ty) {
        return Some(vec![constant(ctx, ty, Scalar::Int(0))]);
    }
    if int_of(ctx, c[1]) == Some(0) {
        return value(lhs);
    }
    // (a + b) - b is a, (a + b) - a is b.
    if let Some((a, b)) = producer_operands(ctx, lhs, "arith.addi") {
        if rhs == b {
            return value(a);
        }
        if rhs == a {
            return value(b);
        }
    }
    int_binary(
        ctx,
        op,
        c,
        |_, _, _, _, _| None,
        |a, b, _| Some(a.wrapping_sub(b)),
    )
}

fn has_dynamic_shape(ctx: &Context, ty: Type) -> bool {
    match ctx.type_kind(ty) {
        TypeKind::UnrankedTensor { .. } => true,
        kind => kind.shape().is_some_and(|s| s.contains(&DYNAMIC)),
    }
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

/// `(a * b) / b` is `a` when the multiplication cannot wrap (`nuw` for an unsigned
/// division, `nsw` for a signed one).
fn div_of_mul(ctx: &Context, op: OpId, signed: bool) -> Option<Value> {
    let (lhs, rhs, _) = operands(ctx, op);
    let mul = producer(ctx, lhs, "arith.muli")?;
    let flags = super::attrs::OverflowFlags::of(ctx, mul);
    if !(if signed { flags.nsw } else { flags.nuw }) {
        return None;
    }
    let (a, b) = (ctx.op(mul).operands[0], ctx.op(mul).operands[1]);
    if a == rhs {
        Some(b)
    } else if b == rhs {
        Some(a)
    } else {
        None
    }
}

pub(crate) fn divsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    if int_of(ctx, c[1]) != Some(1)
        && let Some(v) = div_of_mul(ctx, op, true)
    {
        return value(v);
    }
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
    if int_of(ctx, c[1]) != Some(1)
        && let Some(v) = div_of_mul(ctx, op, false)
    {
        return value(v);
    }
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

/// Whether constant `attr` has every bit set in `width` bits (scalar or splat).
fn all_ones(ctx: &Context, attr: Option<Attr>, width: u32) -> bool {
    int_of(ctx, attr).is_some_and(|v| wrap(v, width) == wrap(-1, width))
}

/// Whether `v` is `xori(x, all ones)`, the complement of `x`.
fn is_not_of(ctx: &Context, v: Value, x: Value, width: u32) -> bool {
    producer_operands(ctx, v, "arith.xori")
        .is_some_and(|(a, ones)| a == x && all_ones(ctx, value_constant(ctx, ones), width))
}

pub(crate) fn andi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    let width = int_width(ctx, ty)?;
    if lhs == rhs {
        return value(lhs);
    }
    if int_of(ctx, c[1]) == Some(0) {
        return value(rhs);
    }
    if all_ones(ctx, c[1], width) {
        return value(lhs);
    }
    // x & ~x is zero.
    if (is_not_of(ctx, rhs, lhs, width) || is_not_of(ctx, lhs, rhs, width))
        && !has_dynamic_shape(ctx, ty)
    {
        return Some(vec![constant(ctx, ty, Scalar::Int(0))]);
    }
    // and(and(x, y), y) and and(y, and(x, y)) are the inner `and`.
    let inner_has = |v: Value, other: Value| {
        producer_operands(ctx, v, "arith.andi").is_some_and(|(a, b)| a == other || b == other)
    };
    if inner_has(lhs, rhs) {
        return value(lhs);
    }
    if inner_has(rhs, lhs) {
        return value(rhs);
    }
    int_binary(ctx, op, c, |_, _, _, _, _| None, |a, b, _| Some(a & b))
}

pub(crate) fn ori(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return value(lhs);
    }
    let width = int_width(ctx, ty)?;
    if all_ones(ctx, c[1], width) {
        return value(rhs);
    }
    // x | ~x is all ones: the complement's constant.
    for (x, not) in [(lhs, rhs), (rhs, lhs)] {
        if is_not_of(ctx, not, x, width) {
            return value(ctx.op(producer(ctx, not, "arith.xori")?).operands[1]);
        }
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
    if int_of(ctx, c[1]) == Some(0) {
        return value(lhs);
    }
    if lhs == rhs {
        return Some(vec![constant(ctx, ty, Scalar::Int(0))]);
    }
    // x ^ a ^ a is x, whichever side each `a` is on.
    if let Some((x, a)) = producer_operands(ctx, lhs, "arith.xori") {
        if a == rhs {
            return value(x);
        }
        if x == rhs {
            return value(a);
        }
    }
    if let Some((x, a)) = producer_operands(ctx, rhs, "arith.xori") {
        if a == lhs {
            return value(x);
        }
        if x == lhs {
            return value(a);
        }
    }
    int_binary(ctx, op, c, |_, _, _, _, _| None, |a, b, _| Some(a ^ b))
}

/// Folds a min/max op: `op(x, x)` is `x`; a constant operand at the end of the range the
/// op moves toward (`absorbing`) is the result, one at the other end (`neutral`) leaves
/// `x`.
fn min_max(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    extremes: fn(u32) -> (i128, i128),
    pick: fn(i128, i128, u32) -> i128,
) -> Option<Vec<FoldResult>> {
    let (lhs, rhs, ty) = operands(ctx, op);
    if lhs == rhs {
        return value(rhs);
    }
    let width = int_width(ctx, ty)?;
    if let Some(b) = int_of(ctx, c[1]) {
        let (absorbing, neutral) = extremes(width);
        if wrap(b, width) == wrap(absorbing, width) {
            return value(rhs);
        }
        if wrap(b, width) == wrap(neutral, width) {
            return value(lhs);
        }
    }
    int_binary(
        ctx,
        op,
        c,
        |_, _, _, _, _| None,
        |a, b, w| Some(pick(a, b, w)),
    )
}

/// The largest signed `width`-bit value.
fn signed_max(width: u32) -> i128 {
    if width == 1 {
        0
    } else {
        i128::MAX >> (128 - width)
    }
}

pub(crate) fn maxsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(
        ctx,
        op,
        c,
        |w| (signed_max(w), signed_min(w)),
        |a, b, w| {
            if signed_operand(a, w) >= signed_operand(b, w) {
                a
            } else {
                b
            }
        },
    )
}

pub(crate) fn minsi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(
        ctx,
        op,
        c,
        |w| (signed_min(w), signed_max(w)),
        |a, b, w| {
            if signed_operand(a, w) <= signed_operand(b, w) {
                a
            } else {
                b
            }
        },
    )
}

pub(crate) fn maxui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(
        ctx,
        op,
        c,
        |_| (-1, 0),
        |a, b, w| {
            if unsigned(a, w) >= unsigned(b, w) {
                a
            } else {
                b
            }
        },
    )
}

pub(crate) fn minui(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    min_max(
        ctx,
        op,
        c,
        |_| (0, -1),
        |a, b, w| {
            if unsigned(a, w) <= unsigned(b, w) {
                a
            } else {
                b
            }
        },
    )
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
    let (a, b) = (
        elements::elements(ctx, c[0])?,
        elements::elements(ctx, c[1])?,
    );
    let r = elements::zip(&a, &b, |a, b| match (a, b) {
        (Scalar::Float(a), Scalar::Float(b)) => {
            eval_binary(kind, kind_of_op, a, b).map(Scalar::Float)
        }
        _ => None,
    })?;
    Some(vec![elements::fold_result(ctx, ty, r)?])
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
    let data = ctx.op(op);
    // -(-x) is x.
    if let Some(inner) = producer(ctx, data.operands[0], "arith.negf") {
        return value(ctx.op(inner).operands[0]);
    }
    let ty = ctx.value_type(data.results[0]);
    let kind = float_kind(ctx, ty)?;
    // Negation flips the sign bit, whatever the format.
    let sign = 1u128 << (kind.width() - 1);
    let r = elements::map(&elements::elements(ctx, c[0])?, |x| match x {
        Scalar::Float(bits) => Some(Scalar::Float(bits ^ sign)),
        Scalar::Int(_) => None,
    })?;
    Some(vec![elements::fold_result(ctx, ty, r)?])
}

// ---- comparisons and selection ----

/// The result of a comparison is `i1`-typed and shaped like the operands (MLIR's
/// `TypesMatchWith` predicate, with its message).
pub(crate) fn verify_cmp(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let operand = ctx.value_type(data.operands[0]);
    let result = ctx.value_type(data.results[0]);
    let shape = |t: Type| ctx.type_kind(t).shape().map(|s| s.to_vec());
    let encoding = |t: Type| match ctx.type_kind(t) {
        TypeKind::RankedTensor { encoding, .. } => *encoding,
        _ => None,
    };
    // Vectors compare with vectors, tensors with tensors; scalars carry no container.
    let container = |t: Type| {
        let kind = ctx.type_kind(t);
        kind.shape().map(|_| std::mem::discriminant(kind))
    };
    if shape(operand) != shape(result)
        || container(operand) != container(result)
        || encoding(operand) != encoding(result)
    {
        return Err(Diagnostic::error(
            data.loc,
            format!(
                "'{}' op failed to verify that result type has i1 element type and same shape as operands",
                ctx.op_name(op)
            ),
        ));
    }
    Ok(())
}

/// The element type of `v`'s type is `i1`.
fn is_bool_like(ctx: &Context, v: Value) -> bool {
    let ty = element_or_self(ctx, ctx.value_type(v));
    matches!(ctx.type_kind(ty), TypeKind::Integer { width: 1, .. })
}

pub(crate) fn cmpi(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    use CmpIPredicate as P;
    let data = ctx.op(op);
    let (lhs, rhs) = (data.operands[0], data.operands[1]);
    let ty = ctx.value_type(data.results[0]);
    let pred = CmpIPredicate::of(ctx, op)?;
    let width = int_width(ctx, ctx.value_type(lhs))?;
    let bool_const = |b: bool| vec![constant(ctx, ty, Scalar::Int(b as i128))];
    if lhs == rhs {
        // eq, sle, sge, ule, uge hold for equal operands; the others do not.
        return Some(bool_const(matches!(
            pred,
            P::Eq | P::Sle | P::Sge | P::Ule | P::Uge
        )));
    }
    if int_of(ctx, c[1]) == Some(0) && pred == P::Ne {
        // An extended `i1` differs from zero exactly when it is true.
        for ext in ["arith.extsi", "arith.extui"] {
            if let Some(ext) = producer(ctx, lhs, ext) {
                let x = ctx.op(ext).operands[0];
                if is_bool_like(ctx, x) {
                    return value(x);
                }
            }
        }
        if is_bool_like(ctx, lhs) {
            return value(lhs);
        }
    }
    if int_of(ctx, c[1]) == Some(1) && pred == P::Eq && is_bool_like(ctx, lhs) {
        return value(lhs);
    }
    let (a, b) = (
        elements::elements(ctx, c[0])?,
        elements::elements(ctx, c[1])?,
    );
    let r = elements::zip(&a, &b, |a, b| match (a, b) {
        (Scalar::Int(a), Scalar::Int(b)) => Some(Scalar::Int(super::predicate::compare_ints(
            pred, a, b, width,
        ) as i128)),
        _ => None,
    })?;
    Some(vec![elements::fold_result(ctx, ty, r)?])
}

/// Folds `cmpf` on scalar constants; a NaN on one side decides the comparison alone.
pub(crate) fn cmpf(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let ty = ctx.value_type(data.results[0]);
    let pred = CmpFPredicate::of(ctx, op)?;
    let kind = float_kind(ctx, ctx.value_type(data.operands[0]))?;
    let scalar_float = |attr: Option<Attr>| match ctx.attr_kind(attr?) {
        AttrKind::Float { bits, .. } => bits_to_f64(kind, *bits),
        _ => None,
    };
    let (mut a, mut b) = (scalar_float(c[0]), scalar_float(c[1]));
    if a.is_some_and(f64::is_nan) {
        b = a;
    }
    if b.is_some_and(f64::is_nan) {
        a = b;
    }
    let result = super::predicate::compare_floats(pred, a?, b?);
    Some(vec![constant(ctx, ty, Scalar::Int(result as i128))])
}

pub(crate) fn select(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let (condition, t, f) = (data.operands[0], data.operands[1], data.operands[2]);
    let ty = ctx.value_type(data.results[0]);
    if t == f {
        return value(t);
    }
    match int_of(ctx, c[0]) {
        Some(0) => return value(f),
        Some(_) => return value(t),
        None => {}
    }
    // select(%c, true, false) on i1 is %c.
    if matches!(ctx.type_kind(ty), TypeKind::Integer { width: 1, .. })
        && int_of(ctx, c[1]) == Some(1)
        && int_of(ctx, c[2]) == Some(0)
    {
        return value(condition);
    }
    // select(a == b, a, b) is b; select(a != b, a, b) is a.
    if let Some(cmp) = producer(ctx, condition, "arith.cmpi") {
        let pred = CmpIPredicate::of(ctx, cmp);
        let (a, b) = (ctx.op(cmp).operands[0], ctx.op(cmp).operands[1]);
        if matches!(pred, Some(CmpIPredicate::Eq | CmpIPredicate::Ne))
            && ((a == t && b == f) || (b == t && a == f))
        {
            return value(if pred == Some(CmpIPredicate::Ne) {
                t
            } else {
                f
            });
        }
    }
    // A constant mask over constant vectors picks element by element.
    let Elements::Each(mask) = elements::elements(ctx, c[0])? else {
        return None;
    };
    let (on_true, on_false) = (
        elements::elements(ctx, c[1])?,
        elements::elements(ctx, c[2])?,
    );
    let nth = |e: &Elements, i: usize| match e {
        Elements::One(x) => Some(*x),
        Elements::Each(xs) => xs.get(i).copied(),
    };
    let picked = mask
        .iter()
        .enumerate()
        .map(|(i, m)| match m {
            Scalar::Int(0) => nth(&on_false, i),
            _ => nth(&on_true, i),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(vec![elements::fold_result(
        ctx,
        ty,
        Elements::Each(picked),
    )?])
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
            let is_index = |t: Type| {
                let element = match ctx.type_kind(t) {
                    TypeKind::MemRef { element, .. } => *element,
                    _ => element_or_self(ctx, t),
                };
                matches!(ctx.type_kind(element), TypeKind::Index)
            };
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
    let (input, from, to) = (
        data.operands[0],
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    if from == to {
        return value(input);
    }
    if let Some(v) = cast_of_cast(ctx, op, input, to) {
        return value(v);
    }
    let name = ctx.op_name(op);
    let elements = elements::elements(ctx, c[0])?;
    // A bitcast of a non-shaped constant keeps its bits; other casts convert the value.
    let result = elements::map(&elements, |x| cast_scalar(ctx, name, x, from, to))?;
    Some(vec![elements::fold_result(ctx, to, result)?])
}

/// Casts that undo the cast producing their input, as MLIR folds them:
/// `index_cast(index_cast(x))` (and `index_castui`) back to `x`'s type through a type at
/// least as wide, `trunci(ext(x))` back to `x`'s type, `truncf(extf(x))` back to `x`'s
/// type through a format that holds every `x`, and `extf(truncf(x))` when both allow
/// contraction.
fn cast_of_cast(ctx: &Context, op: OpId, input: Value, to: Type) -> Option<Value> {
    let name = ctx.op_name(op);
    let inner_of = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| producer(ctx, input, n))
            .map(|inner| ctx.op(inner).operands[0])
    };
    let width = |t: Type| int_width(ctx, t).or_else(|| float_kind(ctx, t).map(|k| k.width()));
    match name {
        "arith.index_cast" | "arith.index_castui" => {
            let x = inner_of(&[name])?;
            let x_ty = ctx.value_type(x);
            (x_ty == to && width(ctx.value_type(input))? >= width(x_ty)?).then_some(x)
        }
        "arith.trunci" => {
            let x = inner_of(&["arith.extui", "arith.extsi"])?;
            (ctx.value_type(x) == to).then_some(x)
        }
        "arith.truncf" => {
            let ext = producer(ctx, input, "arith.extf")?;
            let x = ctx.op(ext).operands[0];
            let (src, mid) = (
                float_kind(ctx, ctx.value_type(x))?,
                float_kind(ctx, ctx.value_type(input))?,
            );
            (ctx.value_type(x) == to && float_eval::represents(mid, src)).then_some(x)
        }
        "arith.extf" => {
            let trunc = producer(ctx, input, "arith.truncf")?;
            let x = ctx.op(trunc).operands[0];
            let contract = |o: OpId| FastMathFlags::of(ctx, o).contains(FastMathFlags::CONTRACT);
            (ctx.value_type(x) == to && contract(trunc) && contract(op)).then_some(x)
        }
        _ => None,
    }
}

/// One element of a cast's constant operand, converted as cast `name` converts it.
fn cast_scalar(ctx: &Context, name: &str, x: Scalar, from: Type, to: Type) -> Option<Scalar> {
    Some(match (name, x) {
        ("arith.bitcast", Scalar::Int(v)) => match float_kind(ctx, to) {
            Some(_) => Scalar::Float(unsigned(v, int_width(ctx, from)?)),
            None => Scalar::Int(v),
        },
        ("arith.bitcast", Scalar::Float(bits)) => match int_width(ctx, to) {
            Some(w) => Scalar::Int(wrap(bits as i128, w)),
            None => Scalar::Float(bits),
        },
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
            let signed = name == "arith.fptosi";
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
    })
}

fn float_scalar(kind: FloatKind, v: f64) -> Option<Scalar> {
    Some(Scalar::Float(match kind {
        FloatKind::F32 => (v as f32).to_bits() as u128,
        FloatKind::F64 => v.to_bits() as u128,
        _ => bits_from_f64(kind, v)?,
    }))
}
