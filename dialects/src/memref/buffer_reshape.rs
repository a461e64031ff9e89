//! `memref.realloc` and `memref.reshape`: a buffer resized, and a buffer read with a shape
//! held in another memref. Their verifiers use MLIR 22's checks and messages.

use tb_ir::printer::type_to_string;
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

use super::layout::MemRef;
use super::verify::{error, op_error};

fn memref_parts(ctx: &Context, ty: Type) -> Option<(Type, Option<tb_ir::Attr>)> {
    match ctx.type_kind(ty) {
        TypeKind::MemRef {
            element,
            memory_space,
            ..
        }
        | TypeKind::UnrankedMemRef {
            element,
            memory_space,
        } => Some((*element, *memory_space)),
        _ => None,
    }
}

/// Both 1-D buffers with the identity layout, in one memory space, of one element type; one
/// size operand exactly when the result's size is dynamic.
pub(crate) fn verify_realloc(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (source_ty, result_ty) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    let (Some(source), Some(result)) = (MemRef::of(ctx, source_ty), MemRef::of(ctx, result_ty))
    else {
        return Ok(());
    };
    let text = |t: Type| format!("'{}'", type_to_string(ctx, t));
    if !source.has_identity_layout(ctx) {
        return error(
            ctx,
            op,
            format!(
                "unsupported layout for source memref type {}",
                text(source_ty)
            ),
        );
    }
    if !result.has_identity_layout(ctx) {
        return error(
            ctx,
            op,
            format!(
                "unsupported layout for result memref type {}",
                text(result_ty)
            ),
        );
    }
    let pair = format!(
        "source memref type {} and result memref type {}",
        text(source_ty),
        text(result_ty)
    );
    if source.memory_space != result.memory_space {
        return error(
            ctx,
            op,
            format!("different memory spaces specified for {pair}"),
        );
    }
    if source.element != result.element {
        return error(
            ctx,
            op,
            format!("different element types specified for {pair}"),
        );
    }
    let has_size = data.operands.len() > 1;
    if result.dynamic_dims() > 0 && !has_size {
        return error(
            ctx,
            op,
            format!(
                "missing dimension operand for result type {}",
                text(result_ty)
            ),
        );
    }
    if result.dynamic_dims() == 0 && has_size {
        return error(
            ctx,
            op,
            format!(
                "unnecessary dimension operand for result type {}",
                text(result_ty)
            ),
        );
    }
    Ok(())
}

/// Same element type; identity layouts; a ranked result needs a shape operand of static
/// length equal to its rank.
pub(crate) fn verify_reshape(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (source_ty, shape_ty, result_ty) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.operands[1]),
        ctx.value_type(data.results[0]),
    );
    let (Some((source_element, _)), Some((result_element, _))) =
        (memref_parts(ctx, source_ty), memref_parts(ctx, result_ty))
    else {
        return Ok(());
    };
    if source_element != result_element {
        return op_error(
            ctx,
            op,
            "element types of source and destination memref types should be the same".into(),
        );
    }
    if let Some(source) = MemRef::of(ctx, source_ty)
        && !source.has_identity_layout(ctx)
    {
        return op_error(
            ctx,
            op,
            "source memref type should have identity affine map".into(),
        );
    }
    let shape_length = MemRef::of(ctx, shape_ty).and_then(|m| m.shape.first().copied());
    if let Some(result) = MemRef::of(ctx, result_ty) {
        if !result.has_identity_layout(ctx) {
            return op_error(
                ctx,
                op,
                "result memref type should have identity affine map".into(),
            );
        }
        if shape_length == Some(DYNAMIC) {
            return op_error(
                ctx,
                op,
                "cannot use shape operand with dynamic length to reshape to statically-ranked memref type".into(),
            );
        }
        if shape_length != Some(result.rank() as i64) {
            return op_error(
                ctx,
                op,
                "length of shape operand differs from the result's memref rank".into(),
            );
        }
    }
    Ok(())
}
