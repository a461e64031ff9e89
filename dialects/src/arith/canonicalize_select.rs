//! Canonicalization patterns of `arith.select`, as MLIR 22 registers them: a negated
//! condition swaps the arms, a nested select on the same condition is skipped, and selects
//! between the constants 0 and 1 become `xori` or `extui` of the condition.

use super::fold::Scalar;
use super::rules::{add_rules, def, emit, emit_constant, int_or_splat, replace, scalar_int, ty};
use tb_ir::rewrite::{PatternSet, Rewriter};
use tb_ir::{OpId, TypeKind};

/// `select(xori(c, -1), a, b)` → `select(c, b, a)`.
fn negated_condition(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let Some((_, not)) = def(ctx, operands[0], "arith.xori") else {
        return false;
    };
    let all_ones = match (
        scalar_int(ctx, not[1]),
        super::fold::int_width(ctx, ty(ctx, not[1])),
    ) {
        (Some(v), Some(w)) => super::fold::wrap(v, w) == super::fold::wrap(-1, w),
        _ => false,
    };
    if !all_ones {
        return false;
    }
    rewriter.set_operand(op, 0, not[0]);
    rewriter.set_operand(op, 1, operands[2]);
    rewriter.set_operand(op, 2, operands[1]);
    true
}

/// `select(c, select(c, a, b), d)` → `select(c, a, d)`, and
/// `select(c, a, select(c, b, d))` → `select(c, a, d)`.
fn redundant_select(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    for arm in [1, 2] {
        if let Some((_, inner)) = def(ctx, operands[arm], "arith.select")
            && inner[0] == operands[0]
        {
            rewriter.set_operand(op, arm, inner[arm]);
            return true;
        }
    }
    false
}

/// Whether `v` is the scalar `i1` constant `value`.
fn is_bool(rewriter: &Rewriter, v: tb_ir::Value, value: bool) -> bool {
    let ctx = rewriter.ctx();
    matches!(
        ctx.type_kind(ty(ctx, v)),
        TypeKind::Integer { width: 1, .. }
    ) && scalar_int(ctx, v).map(|x| x & 1 == 1) == Some(value)
}

/// `select(c, false, true)` → `xori(c, true)`.
fn select_to_not(op: OpId, rewriter: &mut Rewriter) -> bool {
    let operands = rewriter.ctx().op(op).operands.to_vec();
    if !(is_bool(rewriter, operands[1], false) && is_bool(rewriter, operands[2], true)) {
        return false;
    }
    let condition_ty = ty(rewriter.ctx(), operands[0]);
    let Some(one) = emit_constant(rewriter, op, condition_ty, Scalar::Int(1)) else {
        return false;
    };
    let new = emit(
        rewriter,
        op,
        "arith.xori",
        vec![operands[0], one],
        condition_ty,
        vec![],
    );
    replace(rewriter, op, new)
}

/// `select(c, 1, 0)` → `extui(c)` and `select(c, 0, 1)` → `extui(xori(c, true))`, for a
/// scalar integer result wider than `i1`.
fn select_to_extension(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let result_ty = ctx.value_type(ctx.op(op).results[0]);
    if !matches!(ctx.type_kind(result_ty), TypeKind::Integer { width, .. } if *width > 1) {
        return false;
    }
    let (t, f) = (
        int_or_splat(ctx, operands[1]),
        int_or_splat(ctx, operands[2]),
    );
    let condition = match (t, f) {
        (Some(1), Some(0)) => operands[0],
        (Some(0), Some(1)) => {
            let condition_ty = ty(ctx, operands[0]);
            let Some(one) = emit_constant(rewriter, op, condition_ty, Scalar::Int(1)) else {
                return false;
            };
            emit(
                rewriter,
                op,
                "arith.xori",
                vec![operands[0], one],
                condition_ty,
                vec![],
            )
        }
        _ => return false,
    };
    let new = emit(
        rewriter,
        op,
        "arith.extui",
        vec![condition],
        result_ty,
        vec![],
    );
    replace(rewriter, op, new)
}

pub(crate) fn select(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.select", "RedundantSelect", redundant_select),
            ("arith.select", "SelectNotCond", negated_condition),
            ("arith.select", "SelectI1ToNot", select_to_not),
            ("arith.select", "SelectToExtUI", select_to_extension),
        ],
    );
}
