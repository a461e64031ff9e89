//! Canonicalization patterns of `arith`: reassociating constants so chains of
//! additions or multiplications by constants become one op, as MLIR does.

use super::fold::wrap;
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Attr, Context, OpId, TypeKind, Value};

/// `op(op(x, c0), c1)` → `op(x, c0 ∘ c1)` for an associative integer op.
struct ReassociateConstants {
    op_name: &'static str,
    debug_name: &'static str,
    combine: fn(i128, i128) -> i128,
}

fn scalar_int(ctx: &Context, v: Value) -> Option<(i128, OpId)> {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    let attr: Attr = constant_value(ctx, op)?;
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => Some((*value, op)),
        _ => None,
    }
}

impl RewritePattern for ReassociateConstants {
    fn debug_name(&self) -> &'static str {
        self.debug_name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.op_name)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (inner_value, outer_const) = (data.operands[0], data.operands[1]);
        let Some((c1, _)) = scalar_int(ctx, outer_const) else {
            return false;
        };
        let ValueDef::Result { op: inner, .. } = ctx.value(inner_value).def else {
            return false;
        };
        if ctx.op_name(inner) != self.op_name {
            return false;
        }
        let Some((c0, _)) = scalar_int(ctx, ctx.op(inner).operands[1]) else {
            return false;
        };
        let x = ctx.op(inner).operands[0];
        let ty = ctx.value_type(data.results[0]);
        let width = match ctx.type_kind(ty) {
            TypeKind::Integer { width, .. } => *width,
            TypeKind::Index => 64,
            _ => return false,
        };
        let loc = data.loc;
        let name = data.name;
        let value = wrap((self.combine)(c0, c1), width);
        let ctx = rewriter.ctx_mut();
        let attr = ctx.integer_attr(value, ty);
        let constant_props = ctx.dictionary_attr(vec![("value".to_string(), attr)]);
        let constant_name = ctx.intern_op_name("arith.constant");
        let none = tb_ir::ods::default_value(ctx, "#arith.overflow<none>");
        let props = ctx.dictionary_attr(vec![("overflowFlags".to_string(), none)]);
        let c = rewriter.create_op_before(
            op,
            OperationState {
                name: constant_name,
                operands: vec![],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: Some(constant_props),
                attributes: vec![],
                loc,
            },
        );
        let c = rewriter.ctx().op(c).results[0];
        let new = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: vec![x, c],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: Some(props),
                attributes: vec![],
                loc,
            },
        );
        let result = rewriter.ctx().op(new).results[0];
        rewriter.replace_op(op, &[result]);
        true
    }
}

pub(crate) fn addi(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReassociateConstants {
        op_name: "arith.addi",
        debug_name: "AddIAddConstant",
        combine: i128::wrapping_add,
    }));
}

pub(crate) fn muli(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReassociateConstants {
        op_name: "arith.muli",
        debug_name: "MulIMulIConstant",
        combine: i128::wrapping_mul,
    }));
}
