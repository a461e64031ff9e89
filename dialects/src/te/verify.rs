//! Verifiers and the folder of the `te` ops.

use tb_ir::affine::{AffineMap, Interval, expr_interval};
use tb_ir::attributes::AttrKind;
use tb_ir::printer::type_to_string;
use tb_ir::registry::FoldResult;
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, Diagnostic, OpId, Type, TypeKind};

use super::{COMPUTE, READ, READ_AT, YIELD};

fn error<T>(ctx: &Context, op: OpId, message: String) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
}

/// The interval `[0, extent - 1]` of a static, non-empty extent.
fn extent_interval(extent: i64) -> Option<Interval> {
    (extent != DYNAMIC && extent > 0).then(|| Interval {
        lo: 0,
        hi: extent - 1,
    })
}

/// Checks that `map`'s image of the box `domain` lies within `shape`, naming `what`
/// (`input #1 ('tensor<4x8xf32>')`) and the dimension in the error. Result `i` also
/// covers `extra[i]` elements past its value (the lanes of a vector access).
pub(crate) fn check_map_bounds(
    map: &AffineMap,
    domain: &[Option<Interval>],
    shape: &[i64],
    extra: &[i64],
    what: &str,
) -> Result<(), String> {
    for (i, (result, &size)) in map.results.iter().zip(shape).enumerate() {
        if size == DYNAMIC {
            continue;
        }
        let Some(mut range) = expr_interval(&result.simplify(), domain) else {
            continue;
        };
        range.hi = range.hi.saturating_add(extra.get(i).copied().unwrap_or(0));
        if range.lo < 0 || range.hi >= size {
            return Err(format!(
                "index map result #{i} ({result}) takes values in [{}, {}], out of bounds for dimension {i} (size {size}) of {what}",
                range.lo, range.hi
            ));
        }
    }
    Ok(())
}

/// Whether body scalars of type `scalar` are the elements of `shaped`: its element type,
/// signless for integers (see [`super::scalar_type`]).
pub(crate) fn holds_elements_of(ctx: &Context, scalar: Type, shaped: Type) -> bool {
    super::element_type(ctx, shaped).is_some_and(|element| ctx.is_signless_of(scalar, element))
}

pub(crate) fn compute(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let rank = super::result_shape(ctx, op).len();
    let reductions = super::reduction_extents(ctx, op);
    if let Some(&bad) = reductions.iter().find(|&&e| e <= 0) {
        return error(
            ctx,
            op,
            format!("reduction extents must be positive, but got {bad}"),
        );
    }
    let combiner = ctx.op_inherent_or_attr(op, "combiner");
    if let Some(attr) = combiner
        && let Err(why) = super::combiner::combiner_of_attr(ctx, attr)
    {
        return error(ctx, op, why);
    }
    match (combiner, reductions.is_empty()) {
        (Some(_), true) if ctx.op_inherent_or_attr(op, "reduction_extents").is_some() => {
            return error(
                ctx,
                op,
                "requires at least one reduction axis with a combiner".into(),
            );
        }
        (Some(_), true) => {
            return error(ctx, op, "has a combiner but no reduction axes".into());
        }
        (None, false) => {
            return error(ctx, op, "has reduction axes but no combiner".into());
        }
        _ => {}
    }
    let Some(body) = data.regions.first().and_then(|&r| ctx.entry_block(r)) else {
        return error(ctx, op, "requires a body block".into());
    };
    let args = &ctx.block(body).args;
    if args.len() != rank + reductions.len() {
        return error(
            ctx,
            op,
            format!(
                "expects {} index block arguments ({rank} result dimensions and {} reduction axes), but the body has {}",
                rank + reductions.len(),
                reductions.len(),
                args.len()
            ),
        );
    }
    for (i, &arg) in args.iter().enumerate() {
        let ty = ctx.value_type(arg);
        if !matches!(ctx.type_kind(ty), TypeKind::Index) {
            return error(
                ctx,
                op,
                format!(
                    "block argument #{i} must be of index type, but got '{}'",
                    type_to_string(ctx, ty)
                ),
            );
        }
    }
    match ctx.block(body).last {
        Some(last) if ctx.op_name(last) == YIELD => Ok(()),
        _ => error(ctx, op, format!("body must end with '{YIELD}'")),
    }
}

pub(crate) fn read(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(compute) = super::enclosing_compute(ctx, op) else {
        return error(ctx, op, format!("expects to be nested in a '{COMPUTE}'"));
    };
    let data = ctx.op(op);
    let input = data.operands[0];
    let Some(position) = ctx.op(compute).operands.iter().position(|&v| v == input) else {
        return error(
            ctx,
            op,
            format!("operand is not an input of the enclosing '{COMPUTE}'"),
        );
    };
    let input_ty = ctx.value_type(input);
    let what = format!("input #{position} ('{}')", type_to_string(ctx, input_ty));
    let shape = ctx.type_kind(input_ty).shape().unwrap_or(&[]).to_vec();
    let Some(map) = super::read_map(ctx, op) else {
        return error(ctx, op, "requires attribute 'map'".into());
    };
    let domain = super::domain(ctx, compute);
    if map.num_symbols != 0 {
        return error(ctx, op, "index map must not have symbols".into());
    }
    if map.num_dims as usize != domain.len() {
        return error(
            ctx,
            op,
            format!(
                "index map has {} dimensions, but the iteration domain of the enclosing '{COMPUTE}' has {}",
                map.num_dims,
                domain.len()
            ),
        );
    }
    if map.num_results() != shape.len() {
        return error(
            ctx,
            op,
            format!(
                "index map has {} results, but {what} has rank {}",
                map.num_results(),
                shape.len()
            ),
        );
    }
    let result_ty = ctx.value_type(data.results[0]);
    if !holds_elements_of(ctx, result_ty, input_ty) {
        return error(
            ctx,
            op,
            format!(
                "result type '{}' must be the (signless) element type of {what}",
                type_to_string(ctx, result_ty)
            ),
        );
    }
    if let Some(padding) = super::read_padding(ctx, op) {
        // A padded read may leave the input: that is what the padding is for.
        let padding_ty = match ctx.attr_kind(padding) {
            AttrKind::Integer { ty, .. } | AttrKind::Float { ty, .. } => Some(*ty),
            _ => None,
        };
        return match padding_ty {
            Some(ty) if ty == result_ty => Ok(()),
            _ => error(
                ctx,
                op,
                format!(
                    "padding must be a {} attribute, the type of the result",
                    type_to_string(ctx, result_ty)
                ),
            ),
        };
    }
    let boxes: Vec<Option<Interval>> = domain.iter().map(|&e| extent_interval(e)).collect();
    check_map_bounds(map, &boxes, &shape, &[], &what).or_else(|m| error(ctx, op, m))
}

pub(crate) fn read_at(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(compute) = super::enclosing_compute(ctx, op) else {
        return error(ctx, op, format!("expects to be nested in a '{COMPUTE}'"));
    };
    let data = ctx.op(op);
    let input = data.operands[0];
    if !ctx.op(compute).operands.contains(&input) {
        return error(
            ctx,
            op,
            format!("operand is not an input of the enclosing '{COMPUTE}'"),
        );
    }
    indexed_element(ctx, op, "an input")
}

/// `op %tensor[%i, ...] -> element`: one index per dimension of the tensor (`what` names
/// it in the error), the (signless) element type as result.
fn indexed_element(ctx: &Context, op: OpId, what: &str) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let tensor_ty = ctx.value_type(data.operands[0]);
    let rank = ctx.type_kind(tensor_ty).shape().map_or(0, <[i64]>::len);
    if data.operands.len() - 1 != rank {
        return error(
            ctx,
            op,
            format!(
                "has {} indices for {what} of rank {rank}",
                data.operands.len() - 1
            ),
        );
    }
    let result_ty = ctx.value_type(data.results[0]);
    if !holds_elements_of(ctx, result_ty, tensor_ty) {
        return error(
            ctx,
            op,
            format!(
                "result type '{}' must be the (signless) element type of '{}'",
                type_to_string(ctx, result_ty),
                type_to_string(ctx, tensor_ty)
            ),
        );
    }
    Ok(())
}

/// `te.extract`: outside any `te.compute` (a body reads with `te.read_at`), one index per
/// dimension, the (signless) element type as result.
pub(crate) fn extract(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if super::enclosing_compute(ctx, op).is_some() {
        return error(
            ctx,
            op,
            format!("must not be nested in a '{COMPUTE}'; a body reads with '{READ_AT}'"),
        );
    }
    indexed_element(ctx, op, "a tensor")
}

pub(crate) fn yield_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let parent = ctx.parent_op(op).filter(|&p| ctx.op_name(p) == COMPUTE);
    let Some(parent) = parent else {
        return error(ctx, op, format!("expects parent op '{COMPUTE}'"));
    };
    let value_ty = ctx.value_type(ctx.op(op).operands[0]);
    let result_ty = ctx.value_type(ctx.op(parent).results[0]);
    if !holds_elements_of(ctx, value_ty, result_ty) {
        return error(
            ctx,
            op,
            format!(
                "type '{}' of the yielded value must be the (signless) element type of the result '{}'",
                type_to_string(ctx, value_ty),
                type_to_string(ctx, result_ty)
            ),
        );
    }
    Ok(())
}

/// A `te.compute` without reduction whose body only yields a read of an input through the
/// identity map is that input.
pub(crate) fn fold_compute(
    ctx: &Context,
    op: OpId,
    _constants: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    if !super::reduction_extents(ctx, op).is_empty() {
        return None;
    }
    let body = super::body(ctx, op)?;
    let first = ctx.block(body).first?;
    let last = ctx.block(body).last?;
    if ctx.op_name(first) != READ || ctx.op_name(last) != YIELD || ctx.op(first).next != Some(last)
    {
        return None;
    }
    let read_value = *ctx.op(first).results.first()?;
    if ctx.op(last).operands.first() != Some(&read_value) {
        return None;
    }
    let map = super::read_map(ctx, first)?;
    let input = ctx.op(first).operands[0];
    let result = ctx.op(op).results[0];
    let identity = map.num_symbols == 0 && *map == AffineMap::identity(map.num_dims);
    (identity && ctx.value_type(input) == ctx.value_type(result))
        .then(|| vec![FoldResult::Value(input)])
}
