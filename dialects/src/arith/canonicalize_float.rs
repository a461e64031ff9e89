//! Canonicalization patterns of `arith`'s float ops, as MLIR 22 registers them: negations
//! cancel in products and quotients, and a comparison of a converted integer with a float
//! constant becomes an integer comparison (or a constant) when the conversion is exact
//! enough to decide it.

use super::attrs::{CmpFPredicate, CmpIPredicate};
use super::fold::Scalar;
use super::fold::value_constant;
use super::rules::{add_rules, def, emit, emit_constant, replace, ty};
use tb_ir::rewrite::{PatternSet, Rewriter};
use tb_ir::{AttrKind, FloatKind, OpId, TypeKind};

/// `op(negf(x), negf(y))` → `op(x, y)` for `mulf` and `divf`, keeping the op's flags.
fn product_of_negations(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let (Some((_, x)), Some((_, y))) = (
        def(ctx, operands[0], "arith.negf"),
        def(ctx, operands[1], "arith.negf"),
    ) else {
        return false;
    };
    if ty(ctx, x[0]) != ty(ctx, y[0]) {
        return false;
    }
    rewriter.set_operand(op, 0, x[0]);
    rewriter.set_operand(op, 1, y[0]);
    true
}

pub(crate) fn mulf(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.mulf", "MulFOfNegF", product_of_negations)],
    );
}

pub(crate) fn divf(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.divf", "DivFOfNegF", product_of_negations)],
    );
}

/// Precision (with the implicit bit) and largest exponent of the formats the comparison
/// rewrite handles.
fn format(kind: FloatKind) -> Option<(i32, i32)> {
    Some(match kind {
        FloatKind::F16 => (11, 15),
        FloatKind::BF16 => (8, 127),
        FloatKind::TF32 => (11, 127),
        FloatKind::F32 => (24, 127),
        FloatKind::F64 => (53, 1023),
        _ => return None,
    })
}

/// `v` rounded to the nearest value of format `kind` (ties to even).
fn round_to(kind: FloatKind, v: f64) -> Option<f64> {
    match kind {
        FloatKind::F64 => Some(v),
        FloatKind::F32 => Some(v as f32 as f64),
        _ => tb_ir::float::bits_to_f64(kind, tb_ir::float::bits_from_f64(kind, v)?),
    }
}

/// The binary exponent of a finite non-zero `v` (C's `ilogb`).
fn ilogb(v: f64) -> i32 {
    let biased = ((v.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        return ilogb(v * 2f64.powi(64)) - 64;
    }
    biased - 1023
}

/// `cmpf p, sitofp(x), c` (or `uitofp`) → `cmpi p', x, trunc(c)`, or a constant when `c`
/// lies beyond `x`'s range, when converting `x` loses nothing that could change the
/// comparison (MLIR's `CmpFIntToFPConst`).
fn compare_converted_integer(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let Some(AttrKind::Float { bits, ty: float_ty }) =
        value_constant(ctx, operands[1]).map(|a| ctx.attr_kind(a).clone())
    else {
        return false;
    };
    let TypeKind::Float(kind) = *ctx.type_kind(float_ty) else {
        return false;
    };
    let (Some((mantissa, max_exponent)), Some(rhs)) =
        (format(kind), tb_ir::float::bits_to_f64(kind, bits))
    else {
        return false;
    };
    if rhs.is_nan() {
        return false;
    }
    let (unsigned, x) = if let Some((_, x)) = def(ctx, operands[0], "arith.sitofp") {
        (false, x[0])
    } else if let Some((_, x)) = def(ctx, operands[0], "arith.uitofp") {
        (true, x[0])
    } else {
        return false;
    };
    let int_ty = ty(ctx, x);
    let TypeKind::Integer { width, .. } = *ctx.type_kind(int_ty) else {
        return false;
    };
    if width > 64 {
        return false;
    }
    let width = width as i32;
    let value_bits = if unsigned { width } else { width - 1 };
    if width > mantissa {
        // The conversion rounds: the comparison must not depend on the lost bits.
        if rhs.is_infinite() {
            if max_exponent < value_bits {
                return false;
            }
        } else if rhs != 0.0 {
            let exponent = ilogb(rhs);
            if mantissa <= exponent && exponent <= value_bits {
                return false;
            }
        }
    }
    use CmpFPredicate as F;
    use CmpIPredicate as I;
    let mut pred = match CmpFPredicate::of(ctx, op) {
        Some(F::Ord) => return replace_with_bool(rewriter, op, true),
        Some(F::Uno) => return replace_with_bool(rewriter, op, false),
        Some(F::Oeq | F::Ueq) => I::Eq,
        Some(F::One | F::Une) => I::Ne,
        Some(F::Ogt | F::Ugt) => {
            if unsigned {
                I::Ugt
            } else {
                I::Sgt
            }
        }
        Some(F::Oge | F::Uge) => {
            if unsigned {
                I::Uge
            } else {
                I::Sge
            }
        }
        Some(F::Olt | F::Ult) => {
            if unsigned {
                I::Ult
            } else {
                I::Slt
            }
        }
        Some(F::Ole | F::Ule) => {
            if unsigned {
                I::Ule
            } else {
                I::Sle
            }
        }
        _ => return false,
    };
    let (min, max) = if unsigned {
        (0.0, 2f64.powi(width) - 1.0)
    } else {
        (-(2f64.powi(width - 1)), 2f64.powi(width - 1) - 1.0)
    };
    let (Some(max), Some(min)) = (round_to(kind, max), round_to(kind, min)) else {
        return false;
    };
    // A constant above every integer: only "different" and "less" hold.
    if max < rhs {
        let holds = matches!(pred, I::Ne | I::Slt | I::Sle | I::Ult | I::Ule);
        return replace_with_bool(rewriter, op, holds);
    }
    if min > rhs {
        let holds = matches!(pred, I::Ne | I::Sgt | I::Sge | I::Ugt | I::Uge);
        return replace_with_bool(rewriter, op, holds);
    }
    let truncated = rhs.trunc();
    let (lo, hi) = if unsigned {
        (0.0, 2f64.powi(width) - 1.0)
    } else {
        (-(2f64.powi(width - 1)), 2f64.powi(width - 1) - 1.0)
    };
    if !(lo..=hi).contains(&truncated) {
        return false;
    }
    let negative = rhs.is_sign_negative();
    if rhs != 0.0 && round_to(kind, truncated) != Some(rhs) {
        // A fractional constant: adjust the predicate to the truncated integer.
        match pred {
            I::Ne => return replace_with_bool(rewriter, op, true),
            I::Eq => return replace_with_bool(rewriter, op, false),
            I::Ule if negative => return replace_with_bool(rewriter, op, false),
            I::Sle if negative => pred = I::Slt,
            I::Ult if negative => return replace_with_bool(rewriter, op, false),
            I::Ult => pred = I::Ule,
            I::Slt if !negative => pred = I::Sle,
            I::Ugt if negative => return replace_with_bool(rewriter, op, true),
            I::Sgt if negative => pred = I::Sge,
            I::Uge if negative => return replace_with_bool(rewriter, op, true),
            I::Uge => pred = I::Ugt,
            I::Sge if !negative => pred = I::Sgt,
            _ => {}
        }
    }
    let value = super::fold::wrap(truncated as i128, width as u32);
    let Some(c) = emit_constant(rewriter, op, int_ty, Scalar::Int(value)) else {
        return false;
    };
    let result_ty = rewriter.ctx().value_type(rewriter.ctx().op(op).results[0]);
    let ctx = rewriter.ctx_mut();
    let i64_ty = ctx.integer_type(64, tb_ir::Signedness::Signless);
    let predicate = ctx.integer_attr(pred.to_i64() as i128, i64_ty);
    let new = emit(
        rewriter,
        op,
        "arith.cmpi",
        vec![x, c],
        result_ty,
        vec![("predicate".to_string(), predicate)],
    );
    replace(rewriter, op, new)
}

/// Replaces comparison `op` with the `i1` constant `value`.
fn replace_with_bool(rewriter: &mut Rewriter, op: OpId, value: bool) -> bool {
    let result_ty = rewriter.ctx().value_type(rewriter.ctx().op(op).results[0]);
    let Some(c) = emit_constant(rewriter, op, result_ty, Scalar::Int(value as i128)) else {
        return false;
    };
    replace(rewriter, op, c)
}

pub(crate) fn cmpf(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.cmpf", "CmpFIntToFPConst", compare_converted_integer)],
    );
}
