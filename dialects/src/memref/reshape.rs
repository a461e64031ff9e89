//! `memref.expand_shape` and `memref.collapse_shape`: reassociation groups map each
//! collapsed dimension to a run of expanded ones; the layout of the result follows
//! from the source's strides, as MLIR computes it.

use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId};

use super::constraint::reassociation;
use super::index_list::static_list;
use super::layout::{Described, MemRef, mul};
use super::verify::op_error;

/// MLIR's checks that `groups` map `expanded` onto `collapsed`.
fn verify_collapsed_shape(
    ctx: &Context,
    op: OpId,
    collapsed: &[i64],
    expanded: &[i64],
    groups: &[Vec<i64>],
) -> Result<(), Diagnostic> {
    if collapsed.len() != groups.len() {
        return op_error(
            ctx,
            op,
            format!(
                "invalid number of reassociation groups: found {}, expected {}",
                groups.len(),
                collapsed.len()
            ),
        );
    }
    let mut next = 0i64;
    for (collapsed_dim, group) in groups.iter().enumerate() {
        let mut dynamic = false;
        for &dim in group {
            if dim != next {
                return op_error(ctx, op, "reassociation indices must be contiguous".into());
            }
            next += 1;
            let Some(&size) = usize::try_from(dim).ok().and_then(|d| expanded.get(d)) else {
                return op_error(
                    ctx,
                    op,
                    format!("reassociation index {dim} is out of bounds"),
                );
            };
            dynamic |= size == DYNAMIC;
        }
        if (collapsed[collapsed_dim] == DYNAMIC) != dynamic {
            return op_error(
                ctx,
                op,
                format!(
                    "collapsed dim ({collapsed_dim}) must be dynamic if and only if reassociation group is dynamic"
                ),
            );
        }
        if !dynamic {
            let size: i64 = group.iter().map(|&d| expanded[d as usize]).product();
            if size != collapsed[collapsed_dim] {
                return op_error(
                    ctx,
                    op,
                    format!(
                        "collapsed dim size ({}) must equal reassociation group size ({size})",
                        collapsed[collapsed_dim]
                    ),
                );
            }
        }
    }
    if collapsed.is_empty() {
        if expanded.iter().any(|&d| d != 1) {
            return op_error(
                ctx,
                op,
                "rank 0 memrefs can only be extended/collapsed with/from ones".into(),
            );
        }
    } else if next != expanded.len() as i64 {
        return op_error(
            ctx,
            op,
            format!(
                "expanded rank ({}) inconsistent with number of reassociation indices ({next})",
                expanded.len()
            ),
        );
    }
    Ok(())
}

/// The type `source` expands to with `shape`: contiguous stays contiguous; otherwise
/// each group's first dimension keeps the source stride and the others multiply out.
pub(crate) fn expanded_type(
    ctx: &Context,
    source: &MemRef,
    shape: &[i64],
    groups: &[Vec<i64>],
) -> Option<Described> {
    let strided = if source.has_identity_layout(ctx) {
        None
    } else {
        let (source_strides, offset) = source.strides_and_offset(ctx)?;
        let mut strides = vec![1; shape.len()];
        let mut dim = shape.len();
        for (group, &stride) in groups.iter().zip(&source_strides).rev() {
            let mut current = stride;
            for _ in group {
                dim = dim.checked_sub(1)?;
                strides[dim] = current;
                current = mul(current, shape[dim]);
            }
        }
        Some((strides, offset))
    };
    Some(Described {
        shape: shape.to_vec(),
        element: source.element,
        strided,
        memory_space: source.memory_space,
    })
}

/// The type `source` collapses to with `shape`: a group's stride is that of its last
/// non-unit dimension; `None` if a group is visibly not contiguous.
pub(crate) fn collapsed_type(
    ctx: &Context,
    source: &MemRef,
    shape: &[i64],
    groups: &[Vec<i64>],
) -> Option<Described> {
    let strided = if source.has_identity_layout(ctx) {
        None
    } else {
        let (source_strides, offset) = source.strides_and_offset(ctx)?;
        let dims = &source.shape;
        let mut strides = Vec::with_capacity(groups.len());
        for group in groups {
            if group.is_empty() {
                return None;
            }
            let mut end = group.len();
            while end > 1 && dims[group[end - 1] as usize] == 1 {
                end -= 1;
            }
            let last = group[end - 1] as usize;
            strides.push(if dims[last] != DYNAMIC || end == 1 {
                source_strides[last]
            } else {
                DYNAMIC
            });
        }
        for (group, &group_stride) in groups.iter().zip(&strides) {
            let mut stride = group_stride;
            for &dim in group.iter().skip(1).rev() {
                let dim = dim as usize;
                stride = mul(stride, dims[dim]);
                let source_stride = source_strides[dim - 1];
                if dims[dim - 1] == 1 {
                    continue;
                }
                if stride != DYNAMIC && source_stride != DYNAMIC && stride != source_stride {
                    return None;
                }
            }
        }
        Some((strides, offset))
    };
    Some(Described {
        shape: shape.to_vec(),
        element: source.element,
        strided,
        memory_space: source.memory_space,
    })
}

fn parts(ctx: &Context, op: OpId) -> Option<(MemRef, MemRef, Vec<Vec<i64>>)> {
    let data = ctx.op(op);
    let source = MemRef::of(ctx, ctx.value_type(data.operands[0]))?;
    let result = MemRef::of(ctx, ctx.value_type(*data.results.first()?))?;
    let groups = reassociation(ctx, ctx.op_inherent_or_attr(op, "reassociation")?)?;
    Some((source, result, groups))
}

pub(crate) fn verify_expand(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some((source, result, groups)) = parts(ctx, op) else {
        return Ok(());
    };
    let result_ty = ctx.value_type(ctx.op(op).results[0]);
    if source.rank() > result.rank() {
        let (r0, r1) = (source.rank(), result.rank());
        return op_error(
            ctx,
            op,
            format!(
                "has source rank {r0} and result rank {r1}. This is not an expansion ({r0} > {r1})."
            ),
        );
    }
    verify_collapsed_shape(ctx, op, &source.shape, &result.shape, &groups)?;
    let Some(expected) = expanded_type(ctx, &source, &result.shape, &groups) else {
        return op_error(ctx, op, "invalid source layout map".into());
    };
    if !expected.is(ctx, result_ty) {
        return op_error(
            ctx,
            op,
            format!(
                "expected expanded type to be '{}' but found '{}'",
                expected.to_text(ctx),
                tb_ir::printer::type_to_string(ctx, result_ty)
            ),
        );
    }
    let Some(output_shape) = static_list(ctx, op, "static_output_shape") else {
        return Ok(());
    };
    if output_shape.len() != result.rank() {
        return op_error(
            ctx,
            op,
            format!(
                "expected number of static shape bounds to be equal to the output rank ({}) but found {} inputs instead",
                result.rank(),
                output_shape.len()
            ),
        );
    }
    let dynamic = output_shape.iter().filter(|&&d| d == DYNAMIC).count();
    let values = ctx.op(op).operands.len() - 1;
    if values != dynamic {
        return op_error(
            ctx,
            op,
            format!(
                "mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has {dynamic} dynamic dims while output_shape has {values} values"
            ),
        );
    }
    for (pos, (&size, &given)) in result.shape.iter().zip(&output_shape).enumerate() {
        if size != DYNAMIC && size != given {
            return op_error(
                ctx,
                op,
                format!("invalid output shape provided at pos {pos}"),
            );
        }
    }
    Ok(())
}

pub(crate) fn verify_collapse(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some((source, result, groups)) = parts(ctx, op) else {
        return Ok(());
    };
    let result_ty = ctx.value_type(ctx.op(op).results[0]);
    if source.rank() < result.rank() {
        let (r0, r1) = (source.rank(), result.rank());
        return op_error(
            ctx,
            op,
            format!(
                "has source rank {r0} and result rank {r1}. This is not a collapse ({r0} < {r1})."
            ),
        );
    }
    verify_collapsed_shape(ctx, op, &result.shape, &source.shape, &groups)?;
    let Some(expected) = collapsed_type(ctx, &source, &result.shape, &groups) else {
        return op_error(
            ctx,
            op,
            "invalid source layout map or collapsing non-contiguous dims".into(),
        );
    };
    if !expected.is(ctx, result_ty) {
        return op_error(
            ctx,
            op,
            format!(
                "expected collapsed type to be '{}' but found '{}'",
                expected.to_text(ctx),
                tb_ir::printer::type_to_string(ctx, result_ty)
            ),
        );
    }
    Ok(())
}
