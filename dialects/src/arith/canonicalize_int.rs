//! Canonicalization patterns of `arith`'s integer ops, as MLIR 22 registers them:
//! constants gathered through chains of `addi`/`subi`/`muli`, negation by `muli -1` turned
//! into `subi`, bitwise ops and equality tests moved inside matching extensions, a negated
//! comparison folded into its predicate, and constants moved to the right of `cmpi`.

use super::attrs::{CmpIPredicate, OverflowFlags};
use super::fold::{Scalar, wrap};
use super::rules::{
    add_rules, def, emit, emit_constant, int_or_splat, merged_overflow, overflow_prop, replace,
    scalar_int, ty, width,
};
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{OpId, TypeKind};

/// `outer(inner(..), ..)` with a scalar constant in each op, rebuilt as one op with the
/// combined constant (MLIR's `AddIAddConstant`, `SubILHSSubConstantRHS`, ...).
struct ConstantChain {
    name: &'static str,
    outer: &'static str,
    inner: &'static str,
    /// Which operand of the outer op the inner op is (the other is a constant).
    inner_at: usize,
    /// Which operand of the inner op is a constant (the other is `x`).
    constant_at: usize,
    /// The op built, with the constant on its left or right of `x`.
    result: &'static str,
    constant_left: bool,
    /// The new constant from the inner constant `c0` and the outer one `c1`.
    combine: fn(i128, i128) -> i128,
    /// Whether the result keeps the flags both ops carry (else none).
    merge_flags: bool,
}

impl RewritePattern for ConstantChain {
    fn debug_name(&self) -> &'static str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.outer)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let operands = &ctx.op(op).operands;
        let (inner_value, outer_constant) = (operands[self.inner_at], operands[1 - self.inner_at]);
        let Some(c1) = scalar_int(ctx, outer_constant) else {
            return false;
        };
        let Some((inner, inner_operands)) = def(ctx, inner_value, self.inner) else {
            return false;
        };
        let (Some(c0), x) = (
            scalar_int(ctx, inner_operands[self.constant_at]),
            inner_operands[1 - self.constant_at],
        ) else {
            return false;
        };
        let result_ty = ctx.value_type(ctx.op(op).results[0]);
        // The constants must have the result's type (not a vector splat).
        if !matches!(
            ctx.type_kind(result_ty),
            TypeKind::Integer { .. } | TypeKind::Index
        ) {
            return false;
        }
        let Some(w) = width(ctx, x) else {
            return false;
        };
        let flags = if self.merge_flags {
            merged_overflow(ctx, inner, op)
        } else {
            OverflowFlags::default()
        };
        let value = wrap((self.combine)(c0, c1), w);
        let Some(c) = emit_constant(rewriter, op, result_ty, Scalar::Int(value)) else {
            return false;
        };
        let operands = if self.constant_left {
            vec![c, x]
        } else {
            vec![x, c]
        };
        let props = overflow_prop(rewriter.ctx_mut(), flags);
        let new = emit(rewriter, op, self.result, operands, result_ty, props);
        replace(rewriter, op, new)
    }
}

#[allow(clippy::too_many_arguments)]
const fn chain(
    name: &'static str,
    outer: &'static str,
    inner: &'static str,
    inner_at: usize,
    constant_at: usize,
    result: &'static str,
    constant_left: bool,
    combine: fn(i128, i128) -> i128,
    merge_flags: bool,
) -> ConstantChain {
    ConstantChain {
        name,
        outer,
        inner,
        inner_at,
        constant_at,
        result,
        constant_left,
        combine,
        merge_flags,
    }
}

const ADD: &str = "arith.addi";
const SUB: &str = "arith.subi";
const MUL: &str = "arith.muli";

fn sum(a: i128, b: i128) -> i128 {
    a.wrapping_add(b)
}

fn c0_minus_c1(c0: i128, c1: i128) -> i128 {
    c0.wrapping_sub(c1)
}

fn c1_minus_c0(c0: i128, c1: i128) -> i128 {
    c1.wrapping_sub(c0)
}

fn product(a: i128, b: i128) -> i128 {
    a.wrapping_mul(b)
}

/// `addi(x, muli(y, -1))` → `subi(x, y)`, and `addi(muli(x, -1), y)` → `subi(y, x)`.
fn add_of_negation(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    for (negated_at, other_at) in [(1, 0), (0, 1)] {
        let Some((_, mul)) = def(ctx, operands[negated_at], MUL) else {
            continue;
        };
        let Some(w) = width(ctx, mul[0]) else {
            continue;
        };
        if int_or_splat(ctx, mul[1]).map(|v| wrap(v, w)) != Some(wrap(-1, w)) {
            continue;
        }
        let result_ty = ty(ctx, operands[other_at]);
        let props = overflow_prop(rewriter.ctx_mut(), OverflowFlags::default());
        let new = emit(
            rewriter,
            op,
            SUB,
            vec![operands[other_at], mul[0]],
            result_ty,
            props,
        );
        return replace(rewriter, op, new);
    }
    false
}

/// `subi(subi(x, y), x)` → `subi(0, y)`.
fn sub_of_sub_minus_lhs(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let Some((inner, inner_operands)) = def(ctx, operands[0], SUB) else {
        return false;
    };
    if inner_operands[0] != operands[1] {
        return false;
    }
    let flags = merged_overflow(ctx, inner, op);
    let y = inner_operands[1];
    let y_ty = ty(ctx, y);
    let Some(zero) = emit_constant(rewriter, op, y_ty, Scalar::Int(0)) else {
        return false;
    };
    let props = overflow_prop(rewriter.ctx_mut(), flags);
    let new = emit(rewriter, op, SUB, vec![zero, y], y_ty, props);
    replace(rewriter, op, new)
}

/// `op(ext(x), ext(y))` → `ext(op(x, y))` for the same extension of equal types
/// (`andi`, `ori`, `xori` over `extui` or `extsi`).
fn bitwise_of_extensions(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let name = ctx.op_name(op).to_string();
    let operands = ctx.op(op).operands.to_vec();
    for ext in ["arith.extui", "arith.extsi"] {
        let (Some((_, x)), Some((_, y))) = (def(ctx, operands[0], ext), def(ctx, operands[1], ext))
        else {
            continue;
        };
        if ty(ctx, x[0]) != ty(ctx, y[0]) {
            continue;
        }
        let (inner_ty, result_ty) = (ty(ctx, x[0]), ctx.value_type(ctx.op(op).results[0]));
        let inner = emit(rewriter, op, &name, vec![x[0], y[0]], inner_ty, vec![]);
        let new = emit(rewriter, op, ext, vec![inner], result_ty, vec![]);
        return replace(rewriter, op, new);
    }
    false
}

/// `cmpi eq/ne, ext(a), ext(b)` → `cmpi eq/ne, a, b` for the same extension of equal
/// types.
fn compare_extensions(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let Some(pred) = CmpIPredicate::of(ctx, op) else {
        return false;
    };
    if !matches!(pred, CmpIPredicate::Eq | CmpIPredicate::Ne) {
        return false;
    }
    let operands = ctx.op(op).operands.to_vec();
    for ext in ["arith.extsi", "arith.extui"] {
        let (Some((_, a)), Some((_, b))) = (def(ctx, operands[0], ext), def(ctx, operands[1], ext))
        else {
            continue;
        };
        if ty(ctx, a[0]) != ty(ctx, b[0]) {
            continue;
        }
        rewriter.set_operand(op, 0, a[0]);
        rewriter.set_operand(op, 1, b[0]);
        return true;
    }
    false
}

/// `xori(cmpi(p, a, b), true)` → `cmpi(!p, a, b)`.
fn not_of_comparison(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let is_true = matches!(
        ctx.type_kind(ty(ctx, operands[1])),
        TypeKind::Integer { width: 1, .. }
    ) && scalar_int(ctx, operands[1]).is_some_and(|v| v & 1 == 1);
    let Some((cmp, cmp_operands)) = def(ctx, operands[0], "arith.cmpi") else {
        return false;
    };
    let Some(pred) = CmpIPredicate::of(ctx, cmp) else {
        return false;
    };
    if !is_true {
        return false;
    }
    use CmpIPredicate as P;
    let inverse = match pred {
        P::Eq => P::Ne,
        P::Ne => P::Eq,
        P::Slt => P::Sge,
        P::Sge => P::Slt,
        P::Sle => P::Sgt,
        P::Sgt => P::Sle,
        P::Ult => P::Uge,
        P::Uge => P::Ult,
        P::Ule => P::Ugt,
        P::Ugt => P::Ule,
    };
    let result_ty = ctx.value_type(ctx.op(op).results[0]);
    let props = predicate_prop(rewriter, inverse);
    let new = emit(rewriter, op, "arith.cmpi", cmp_operands, result_ty, props);
    replace(rewriter, op, new)
}

fn predicate_prop(rewriter: &mut Rewriter, pred: CmpIPredicate) -> Vec<(String, tb_ir::Attr)> {
    let ctx = rewriter.ctx_mut();
    let i64_ty = ctx.integer_type(64, tb_ir::Signedness::Signless);
    vec![(
        "predicate".to_string(),
        ctx.integer_attr(pred.to_i64() as i128, i64_ty),
    )]
}

/// `cmpi p, c, x` → `cmpi p', x, c` with the predicate mirrored (MLIR does this in
/// `cmpi`'s folder, in place).
fn constant_to_right(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let constant = |v| super::fold::value_constant(ctx, v).is_some();
    if !constant(operands[0]) || constant(operands[1]) {
        return false;
    }
    let Some(pred) = CmpIPredicate::of(ctx, op) else {
        return false;
    };
    use CmpIPredicate as P;
    let mirrored = match pred {
        P::Slt => P::Sgt,
        P::Sgt => P::Slt,
        P::Sle => P::Sge,
        P::Sge => P::Sle,
        P::Ult => P::Ugt,
        P::Ugt => P::Ult,
        P::Ule => P::Uge,
        P::Uge => P::Ule,
        P::Eq => P::Eq,
        P::Ne => P::Ne,
    };
    let props = predicate_prop(rewriter, mirrored);
    rewriter.set_property(op, "predicate", props[0].1);
    rewriter.set_operand(op, 0, operands[1]);
    rewriter.set_operand(op, 1, operands[0]);
    true
}

pub(crate) fn addi(patterns: &mut PatternSet) {
    for c in [
        chain("AddIAddConstant", ADD, ADD, 0, 1, ADD, false, sum, true),
        chain(
            "AddISubConstantRHS",
            ADD,
            SUB,
            0,
            1,
            ADD,
            false,
            c1_minus_c0,
            true,
        ),
        chain("AddISubConstantLHS", ADD, SUB, 0, 0, SUB, true, sum, true),
    ] {
        patterns.add(Box::new(c));
    }
    add_rules(patterns, &[(ADD, "AddIMulNegativeOne", add_of_negation)]);
}

pub(crate) fn subi(patterns: &mut PatternSet) {
    for c in [
        chain(
            "SubIRHSAddConstant",
            SUB,
            ADD,
            0,
            1,
            ADD,
            false,
            c0_minus_c1,
            false,
        ),
        chain(
            "SubILHSAddConstant",
            SUB,
            ADD,
            1,
            1,
            SUB,
            true,
            c1_minus_c0,
            true,
        ),
        chain(
            "SubIRHSSubConstantRHS",
            SUB,
            SUB,
            0,
            1,
            SUB,
            false,
            sum,
            true,
        ),
        chain(
            "SubIRHSSubConstantLHS",
            SUB,
            SUB,
            0,
            0,
            SUB,
            true,
            c0_minus_c1,
            true,
        ),
        chain(
            "SubILHSSubConstantRHS",
            SUB,
            SUB,
            1,
            1,
            SUB,
            true,
            sum,
            true,
        ),
        chain(
            "SubILHSSubConstantLHS",
            SUB,
            SUB,
            1,
            0,
            ADD,
            false,
            c1_minus_c0,
            true,
        ),
    ] {
        patterns.add(Box::new(c));
    }
    add_rules(
        patterns,
        &[(SUB, "SubISubILHSRHSLHS", sub_of_sub_minus_lhs)],
    );
}

pub(crate) fn muli(patterns: &mut PatternSet) {
    patterns.add(Box::new(chain(
        "MulIMulIConstant",
        MUL,
        MUL,
        0,
        1,
        MUL,
        false,
        product,
        true,
    )));
}

pub(crate) fn andi(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.andi", "AndOfExt", bitwise_of_extensions)],
    );
}

pub(crate) fn ori(patterns: &mut PatternSet) {
    add_rules(patterns, &[("arith.ori", "OrOfExt", bitwise_of_extensions)]);
}

pub(crate) fn xori(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.xori", "XOrINotCmpI", not_of_comparison),
            ("arith.xori", "XOrIOfExt", bitwise_of_extensions),
        ],
    );
}

pub(crate) fn cmpi(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.cmpi", "CmpIConstantToRight", constant_to_right),
            ("arith.cmpi", "CmpIExt", compare_extensions),
        ],
    );
}
