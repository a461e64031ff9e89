//! Folders of the `memref` ops: sizes and ranks known from types or from the operands
//! that allocated them, and views that change nothing. Folds MLIR performs in place
//! (taking a cast's source as operand) are patterns in `canonicalize`.

use tb_ir::attributes::AttrKind;
use tb_ir::ods::operand_group;
use tb_ir::registry::FoldResult;
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, OpId};

use super::layout::MemRef;
use super::offsets::{Slice, static_lists};
use super::subview::dynamic_size_of_result_dim;

fn index_constant(ctx: &Context, op: OpId, value: i64) -> Option<Vec<FoldResult>> {
    let ty = ctx.value_type(*ctx.op(op).results.first()?);
    Some(vec![FoldResult::NewAttr(AttrKind::Integer {
        value: value as i128,
        ty,
    })])
}

/// `dim` of a static size is that size; of a dynamic one, the operand that gave it to
/// the allocation, view or subview that made the memref.
pub(crate) fn dim(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let index = match ctx.attr_kind(c.get(1).copied().flatten()?) {
        AttrKind::Integer { value, .. } => *value,
        _ => return None,
    };
    let source = ctx.op(op).operands[0];
    let memref = MemRef::of(ctx, ctx.value_type(source))?;
    // Out-of-range indices are undefined behaviour, not invalid IR: leave them.
    let index = usize::try_from(index).ok().filter(|&i| i < memref.rank())?;
    if memref.shape[index] != DYNAMIC {
        return index_constant(ctx, op, memref.shape[index]);
    }
    let def = ctx.defining_op(source)?;
    let size = match ctx.op_name(def) {
        super::ALLOC | super::ALLOCA => operand_group(ctx, def, 0)
            .get(memref.dynamic_index(index))
            .copied(),
        super::VIEW => operand_group(ctx, def, 2)
            .get(memref.dynamic_index(index))
            .copied(),
        super::SUBVIEW => dynamic_size_of_result_dim(ctx, def, index),
        _ => None,
    }?;
    Some(vec![FoldResult::Value(size)])
}

/// The rank of a ranked memref.
pub(crate) fn rank(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let memref = MemRef::of(ctx, ctx.value_type(ctx.op(op).operands[0]))?;
    index_constant(ctx, op, memref.rank() as i64)
}

/// A cast to its own type is its operand, and so is a cast back to the type a cast
/// came from.
pub(crate) fn cast(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let (source, result_ty) = (data.operands[0], ctx.value_type(*data.results.first()?));
    if ctx.value_type(source) == result_ty {
        return Some(vec![FoldResult::Value(source)]);
    }
    let inner = ctx
        .defining_op(source)
        .filter(|&p| ctx.op_name(p) == super::CAST)?;
    let inner_source = ctx.op(inner).operands[0];
    let ty = ctx.value_type(inner_source);
    (MemRef::of(ctx, ty).is_some() && ty == result_ty)
        .then(|| vec![FoldResult::Value(inner_source)])
}

/// A subview of the whole of a static memref, to the same type, is the memref; so is a
/// subview that re-slices a subview with zero offsets, unit strides and equal sizes.
pub(crate) fn subview(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let source = data.operands[0];
    let (source_ty, result_ty) = (
        ctx.value_type(source),
        ctx.value_type(*data.results.first()?),
    );
    let result = MemRef::of(ctx, result_ty)?;
    let static_layout = match result.layout.map(|l| ctx.attr_kind(l)) {
        Some(AttrKind::Strided { strides, offset }) => {
            *offset != DYNAMIC && !strides.contains(&DYNAMIC)
        }
        _ => true,
    };
    if source_ty == result_ty && !result.shape.contains(&DYNAMIC) && static_layout {
        return Some(vec![FoldResult::Value(source)]);
    }
    let inner = ctx
        .defining_op(source)
        .filter(|&p| ctx.op_name(p) == super::SUBVIEW)?;
    let (outer, inner_slice) = (Slice::of(ctx, op)?, Slice::of(ctx, inner)?);
    let trivial = outer.offsets.iter().all(|o| o.constant(ctx) == Some(0))
        && outer.strides.iter().all(|s| s.constant(ctx) == Some(1))
        && outer.sizes == inner_slice.sizes;
    (trivial && source_ty == result_ty).then(|| vec![FoldResult::Value(source)])
}

/// A reinterpret_cast to the source's own static type at offset 0 is the source. (Casts
/// of casts and views are taken apart in place, by a pattern, before this applies.)
pub(crate) fn reinterpret_cast(
    ctx: &Context,
    op: OpId,
    _: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let source = data.operands[0];
    if super::canonicalize_views::reinterpret_source(ctx, op).is_some() {
        return None;
    }
    let result_ty = ctx.value_type(*data.results.first()?);
    let result = MemRef::of(ctx, result_ty)?;
    let [offsets, _, _] = static_lists(ctx, op)?;
    (!result.shape.contains(&DYNAMIC)
        && ctx.value_type(source) == result_ty
        && offsets.first() == Some(&0))
    .then(|| vec![FoldResult::Value(source)])
}

/// A reshape to the same type is its source, and so is the inverse reshape of a
/// reshape back to the type it started from.
pub(crate) fn reshape(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let source = data.operands[0];
    let result_ty = ctx.value_type(*data.results.first()?);
    if ctx.value_type(source) == result_ty {
        return Some(vec![FoldResult::Value(source)]);
    }
    let inverse = match ctx.op_name(op) {
        super::EXPAND_SHAPE => super::COLLAPSE_SHAPE,
        _ => super::EXPAND_SHAPE,
    };
    let inner = ctx
        .defining_op(source)
        .filter(|&p| ctx.op_name(p) == inverse)?;
    let inner_source = ctx.op(inner).operands[0];
    (ctx.value_type(inner_source) == result_ty).then(|| vec![FoldResult::Value(inner_source)])
}

/// A view at byte 0 of a static buffer with the buffer's own type is the buffer.
pub(crate) fn view(ctx: &Context, op: OpId, c: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let source = data.operands[0];
    let result_ty = ctx.value_type(*data.results.first()?);
    let zero_shift = matches!(
        c.get(1).copied().flatten().map(|a| ctx.attr_kind(a)),
        Some(AttrKind::Integer { value: 0, .. })
    );
    let static_shape = MemRef::of(ctx, result_ty).is_some_and(|m| !m.shape.contains(&DYNAMIC));
    (zero_shift && static_shape && ctx.value_type(source) == result_ty)
        .then(|| vec![FoldResult::Value(source)])
}
