//! `expand_shape` and `collapse_shape` of a `memref.cast` that only forgets static
//! information reshape the cast's source instead, as MLIR 22's cast folders do: the
//! reshape then sees the more static type (and constant output sizes become static); a
//! cast restores the old result type when the new one differs.

use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, OpId, Value};

use super::canonicalize::{create, replace_with_cast};
use super::constraint::reassociation;
use super::index_list::{Mixed, i64_array, mixed, split};
use super::layout::{MemRef, cast_only_erases, mul};
use super::reshape::{collapsed_type, expanded_type};

/// The source of the cast defining `op`'s first operand, if the cast only forgets
/// static information about a ranked memref.
fn foldable_cast_source(ctx: &Context, op: OpId) -> Option<Value> {
    let operand = ctx.op(op).operands[0];
    let cast = ctx
        .defining_op(operand)
        .filter(|&c| ctx.op_name(c) == super::CAST)?;
    let source = ctx.op(cast).operands[0];
    cast_only_erases(ctx, ctx.value_type(source), ctx.value_type(operand)).then_some(source)
}

fn groups_of(ctx: &Context, op: OpId) -> Option<Vec<Vec<i64>>> {
    reassociation(ctx, ctx.op_inherent_or_attr(op, "reassociation")?)
}

struct ExpandOfCast;

impl RewritePattern for ExpandOfCast {
    fn debug_name(&self) -> &'static str {
        "ExpandShapeOpMemRefCastFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::EXPAND_SHAPE)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(source) = foldable_cast_source(ctx, op) else {
            return false;
        };
        let (Some(source_ty), Some(groups), Some(output)) = (
            MemRef::of(ctx, ctx.value_type(source)),
            groups_of(ctx, op),
            mixed(ctx, op, "static_output_shape", 1),
        ) else {
            return false;
        };
        if groups.len() != source_ty.rank() {
            return false;
        }
        // Constant output sizes become static.
        let output: Vec<Mixed> = output
            .iter()
            .map(|&e| e.constant(ctx).map_or(e, Mixed::Static))
            .collect();
        let (_, sizes) = split(&output);
        // A group must stay dynamic exactly where the cast's source dimension is.
        for (i, group) in groups.iter().enumerate() {
            let dynamic = group
                .iter()
                .any(|&d| sizes.get(d as usize).is_none_or(|&s| s == DYNAMIC));
            if dynamic != (source_ty.shape[i] == DYNAMIC) {
                return false;
            }
        }
        let Some(new_ty) = expanded_type(ctx, &source_ty, &sizes, &groups) else {
            return false;
        };
        let result = ctx.op(op).results[0];
        if new_ty.is(ctx, ctx.value_type(result)) {
            rewriter.set_operand(op, 0, source);
            return true;
        }
        let new_ty = new_ty.build(rewriter.ctx_mut());
        let (values, statics) = split(&output);
        let ctx = rewriter.ctx_mut();
        let reassociation = ctx
            .op_inherent_or_attr(op, "reassociation")
            .expect("read above");
        let props = vec![
            ("reassociation".to_string(), reassociation),
            ("static_output_shape".to_string(), i64_array(ctx, &statics)),
        ];
        let operands = std::iter::once(source).chain(values).collect();
        let expand = create(
            rewriter,
            op,
            super::EXPAND_SHAPE,
            operands,
            vec![new_ty],
            props,
        );
        let value = rewriter.ctx().op(expand).results[0];
        replace_with_cast(rewriter, op, value);
        true
    }
}

struct CollapseOfCast;

impl RewritePattern for CollapseOfCast {
    fn debug_name(&self) -> &'static str {
        "CollapseShapeOpMemRefCastFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::COLLAPSE_SHAPE)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(source) = foldable_cast_source(ctx, op) else {
            return false;
        };
        let (Some(source_ty), Some(groups)) =
            (MemRef::of(ctx, ctx.value_type(source)), groups_of(ctx, op))
        else {
            return false;
        };
        let mut shape = Vec::with_capacity(groups.len());
        for group in &groups {
            let mut size = 1;
            for &d in group {
                let Some(&dim) = source_ty.shape.get(d as usize) else {
                    return false;
                };
                size = mul(size, dim);
            }
            shape.push(size);
        }
        let Some(new_ty) = collapsed_type(ctx, &source_ty, &shape, &groups) else {
            return false;
        };
        let result = ctx.op(op).results[0];
        if new_ty.is(ctx, ctx.value_type(result)) {
            rewriter.set_operand(op, 0, source);
            return true;
        }
        let new_ty = new_ty.build(rewriter.ctx_mut());
        let reassociation = rewriter
            .ctx()
            .op_inherent_or_attr(op, "reassociation")
            .expect("read above");
        let props = vec![("reassociation".to_string(), reassociation)];
        let collapse = create(
            rewriter,
            op,
            super::COLLAPSE_SHAPE,
            vec![source],
            vec![new_ty],
            props,
        );
        let value = rewriter.ctx().op(collapse).results[0];
        replace_with_cast(rewriter, op, value);
        true
    }
}

pub(crate) fn expand_shape(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExpandOfCast));
}

pub(crate) fn collapse_shape(patterns: &mut PatternSet) {
    patterns.add(Box::new(CollapseOfCast));
}
