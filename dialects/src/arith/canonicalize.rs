//! Canonicalization patterns of `arith`'s extended ops (`addui_extended`,
//! `mul*_extended`): an unused carry or high half leaves the plain op.

use tb_ir::attributes::AttrKind;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, TypeKind, Value};

use super::rules::emit;

/// An extended op whose second result (carry or high half) is unused is the plain op:
/// `addui_extended` → `addi`, `mul*_extended` → `muli`.
struct ExtendedToPlain {
    op_name: &'static str,
    debug_name: &'static str,
    plain: &'static str,
}

impl RewritePattern for ExtendedToPlain {
    fn debug_name(&self) -> &'static str {
        self.debug_name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.op_name)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (first, second) = (data.results[0], data.results[1]);
        if !ctx.value(second).uses.is_empty() {
            return false;
        }
        let operands = data.operands.to_vec();
        let ty = ctx.value_type(first);
        let none = tb_ir::ods::default_value(rewriter.ctx_mut(), "#arith.overflow<none>");
        let properties = vec![("overflowFlags".to_string(), none)];
        let plain = emit(rewriter, op, self.plain, operands, ty, properties);
        rewriter.replace_all_uses(first, plain);
        rewriter.erase_op(op);
        true
    }
}

/// `mulsi_extended(x, 1)` is `x`, with `x`'s sign as the high half:
/// `extsi(cmpi slt, x, 0)`.
struct MulSIExtendedByOne;

impl RewritePattern for MulSIExtendedByOne {
    fn debug_name(&self) -> &'static str {
        "MulSIExtendedRHSOne"
    }

    fn root(&self) -> Option<&'static str> {
        Some("arith.mulsi_extended")
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (x, one) = (data.operands[0], data.operands[1]);
        let ty = ctx.value_type(x);
        let element = tb_ir::ods::constraint::element_or_self(ctx, ty);
        // `index` has no sign extension to spell the high half with.
        if !matches!(ctx.type_kind(element), TypeKind::Integer { .. }) || !is_one(ctx, one) {
            return false;
        }
        let ctx = rewriter.ctx_mut();
        let zero_attr = match ctx.type_kind(ty) {
            TypeKind::Integer { .. } => ctx.integer_attr(0, ty),
            _ => ctx.intern_attr(AttrKind::DenseElements {
                ty,
                data: tb_ir::attributes::DenseData {
                    splat: true,
                    elements: vec![tb_ir::attributes::DenseElement::Int(0)],
                },
            }),
        };
        let i1 = ctx.i1();
        let bool_ty = super::fold::with_element(ctx, ty, i1);
        let i64_ty = ctx.integer_type(64, tb_ir::Signedness::Signless);
        let predicate = ctx.integer_attr(super::attrs::CmpIPredicate::Slt as i128, i64_ty);
        let zero = emit(
            rewriter,
            op,
            "arith.constant",
            vec![],
            ty,
            vec![("value".to_string(), zero_attr)],
        );
        let negative = emit(
            rewriter,
            op,
            "arith.cmpi",
            vec![x, zero],
            bool_ty,
            vec![("predicate".to_string(), predicate)],
        );
        let high = emit(rewriter, op, "arith.extsi", vec![negative], ty, vec![]);
        rewriter.replace_op(op, &[x, high]);
        true
    }
}

/// Whether `v` is a constant one (scalar or splat).
fn is_one(ctx: &Context, v: Value) -> bool {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return false;
    };
    let Some(attr) = constant_value(ctx, op) else {
        return false;
    };
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => *value == 1,
        AttrKind::DenseElements { data, .. } => {
            data.splat
                && matches!(
                    data.elements.first(),
                    Some(tb_ir::attributes::DenseElement::Int(1))
                )
        }
        _ => false,
    }
}

pub(crate) fn addui_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.addui_extended",
        debug_name: "AddUIExtendedToAddI",
        plain: "arith.addi",
    }));
}

pub(crate) fn mulsi_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.mulsi_extended",
        debug_name: "MulSIExtendedToMulI",
        plain: "arith.muli",
    }));
    patterns.add(Box::new(MulSIExtendedByOne));
}

pub(crate) fn mului_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.mului_extended",
        debug_name: "MulUIExtendedToMulI",
        plain: "arith.muli",
    }));
}
