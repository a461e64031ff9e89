//! The two-result integer ops: `arith.addui_extended` (sum and carry) and
//! `arith.mulsi_extended`/`arith.mului_extended` (low and high halves of the double-width
//! product). Their folds are MLIR's: identities on a constant right operand, then constant
//! evaluation.

use tb_ir::registry::FoldResult;
use tb_ir::{Attr, Context, Diagnostic, OpId, TypeKind};

use super::fold::{Scalar, constant, int_of, int_width, wrap};
use super::predicate::{signed_value, unsigned_value};

/// MLIR's `ElementwiseMappable` rules for `addui_extended`, whose carry type is not tied to
/// the operands' by a type-equality trait: scalars with scalars, and shaped carries shaped
/// like the operands.
pub(crate) fn verify_addui_extended(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (operand, carry) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[1]),
    );
    let shaped = |t: tb_ir::Type| {
        matches!(
            ctx.type_kind(t),
            TypeKind::Vector { .. }
                | TypeKind::RankedTensor { .. }
                | TypeKind::UnrankedTensor { .. }
        )
    };
    let message = match (shaped(operand), shaped(carry)) {
        (false, true) => "if a result is non-scalar, then at least one operand must be non-scalar",
        (true, false) => "if an operand is non-scalar, then all results must be non-scalar",
        (true, true)
            if std::mem::discriminant(ctx.type_kind(operand))
                != std::mem::discriminant(ctx.type_kind(carry))
                || ctx.type_kind(operand).shape() != ctx.type_kind(carry).shape() =>
        {
            "all non-scalar operands/results must have the same shape and base type"
        }
        _ => return Ok(()),
    };
    Err(Diagnostic::error(
        data.loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
}

/// Results print under their names, `%sum, %overflow = ...`, as MLIR names them.
pub(crate) fn sum_overflow_names(_: &Context, _: OpId) -> Vec<Option<String>> {
    vec![Some("sum".into()), Some("overflow".into())]
}

pub(crate) fn low_high_names(_: &Context, _: OpId) -> Vec<Option<String>> {
    vec![Some("low".into()), Some("high".into())]
}

/// The high half of the `2 * width`-bit product of two `width`-bit values (`width <= 128`).
pub fn mul_high(a: i128, b: i128, width: u32, signed: bool) -> i128 {
    let (ua, ub) = (unsigned_value(a, width), unsigned_value(b, width));
    let (hi, lo) = mul_u128_wide(ua, ub);
    // Bits [width, 2 * width) of the 256-bit product.
    let mut high = if width == 128 {
        hi
    } else {
        (hi << (128 - width)) | (lo >> width)
    };
    if signed {
        // The signed high half corrects the unsigned one by each negative operand times
        // the other operand (mod 2^width).
        if signed_value(a, width) < 0 {
            high = high.wrapping_sub(ub);
        }
        if signed_value(b, width) < 0 {
            high = high.wrapping_sub(ua);
        }
    }
    wrap(high as i128, width)
}

/// The 256-bit product of two `u128` values as (high, low) halves.
fn mul_u128_wide(a: u128, b: u128) -> (u128, u128) {
    let mask = u128::from(u64::MAX);
    let (a_hi, a_lo, b_hi, b_lo) = (a >> 64, a & mask, b >> 64, b & mask);
    let (ll, lh, hl, hh) = (a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi);
    // The middle column, with the carries it makes.
    let middle = (ll >> 64) + (lh & mask) + (hl & mask);
    let low = (ll & mask) | (middle << 64);
    let high = hh + (lh >> 64) + (hl >> 64) + (middle >> 64);
    (high, low)
}

/// Whether `a + b` carries out of `width` bits.
pub fn add_carries(a: i128, b: i128, width: u32) -> bool {
    let sum = unsigned_value(a.wrapping_add(b), width);
    sum < unsigned_value(a, width)
}

fn result_types(ctx: &Context, op: OpId) -> (tb_ir::Type, tb_ir::Type) {
    let results = &ctx.op(op).results;
    (ctx.value_type(results[0]), ctx.value_type(results[1]))
}

/// `addui_extended(x, 0)` is `x` without carry; constants add.
pub(crate) fn addui_extended(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let (sum_ty, carry_ty) = result_types(ctx, op);
    let width = int_width(ctx, sum_ty)?;
    let no_carry = constant(ctx, carry_ty, Scalar::Int(0));
    if int_of(ctx, c[1]) == Some(0) {
        return Some(vec![FoldResult::Value(ctx.op(op).operands[0]), no_carry]);
    }
    let (a, b) = (int_of(ctx, c[0])?, int_of(ctx, c[1])?);
    let carry = add_carries(a, b, width);
    Some(vec![
        constant(ctx, sum_ty, Scalar::Int(wrap(a.wrapping_add(b), width))),
        constant(ctx, carry_ty, Scalar::Int(carry as i128)),
    ])
}

/// Both multiplications by a constant zero are that zero, twice; constants multiply.
fn mul_extended(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
    signed: bool,
) -> Option<Vec<FoldResult>> {
    let (ty, _) = result_types(ctx, op);
    let width = int_width(ctx, ty)?;
    if int_of(ctx, c[1]) == Some(0) {
        let zero = c[1]?;
        return Some(vec![FoldResult::Attr(zero), FoldResult::Attr(zero)]);
    }
    // x * 1 is x with a zero high half when unsigned (MLIR leaves the signed case to
    // a canonicalization, as its high half is x's sign).
    if !signed && int_of(ctx, c[1]) == Some(1) {
        return Some(vec![
            FoldResult::Value(ctx.op(op).operands[0]),
            constant(ctx, ty, Scalar::Int(0)),
        ]);
    }
    let (a, b) = (int_of(ctx, c[0])?, int_of(ctx, c[1])?);
    Some(vec![
        constant(ctx, ty, Scalar::Int(wrap(a.wrapping_mul(b), width))),
        constant(ctx, ty, Scalar::Int(mul_high(a, b, width, signed))),
    ])
}

pub(crate) fn mulsi_extended(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    mul_extended(ctx, op, c, true)
}

pub(crate) fn mului_extended(
    ctx: &Context,
    op: OpId,
    c: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    mul_extended(ctx, op, c, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_halves() {
        // -1 * -1 = 1: high half 0 signed; 0xFF * 0xFF = 0xFE01 unsigned.
        assert_eq!(mul_high(-1, -1, 8, true), 0);
        assert_eq!(mul_high(-1, -1, 8, false), wrap(0xFE, 8));
        // -128 * 2 = -256: high half -1.
        assert_eq!(mul_high(-128, 2, 8, true), -1);
        assert_eq!(mul_high(i64::MIN as i128, -1, 64, true), 0);
        assert_eq!(mul_high(-1, -1, 64, false), -2);
        // 128 bits: (2^128 - 1)^2 = 2^256 - 2^129 + 1; MIN * MIN = 2^254.
        assert_eq!(mul_high(-1, -1, 128, false), -2);
        assert_eq!(mul_high(-1, -1, 128, true), 0);
        assert_eq!(mul_high(i128::MIN, i128::MIN, 128, true), 1 << 126);
        assert_eq!(mul_high(i128::MIN, -3, 128, true), 1);
    }

    #[test]
    fn carries() {
        assert!(add_carries(-1, 1, 8));
        assert!(!add_carries(127, 1, 8));
        assert!(add_carries(-128, -128, 8));
        assert!(add_carries(1, 1, 1));
        assert!(!add_carries(1, 0, 1));
    }
}
