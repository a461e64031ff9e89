//! Verifiers of the `math` ops beyond what their definitions declare.

use tb_ir::ods::constraint::element_or_self;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

fn error(ctx: &Context, op: OpId, message: &str) -> Result<(), Diagnostic> {
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
}

fn shape(ctx: &Context, ty: Type) -> Option<Vec<i64>> {
    ctx.type_kind(ty).shape().map(<[i64]>::to_vec)
}

/// A classification result is `i1` shaped like the operand.
pub(crate) fn classification(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (operand, result) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    let i1 = |ty: Type| tb_ir::ods::constraint::is_i1(ctx, element_or_self(ctx, ty));
    let container = |ty: Type| match ctx.type_kind(ty) {
        TypeKind::Vector { .. } => 1,
        TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. } => 2,
        _ => 0,
    };
    if !i1(result)
        || container(operand) != container(result)
        || shape(ctx, operand) != shape(ctx, result)
    {
        return error(
            ctx,
            op,
            "failed to verify that result type has i1 element type and same shape as operands",
        );
    }
    Ok(())
}

/// Operands and results have one shape (scalars, or vectors or tensors alike).
pub(crate) fn same_shape(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let mut shapes = data
        .operands
        .iter()
        .chain(&data.results)
        .map(|&v| shape(ctx, ctx.value_type(v)));
    let first = shapes.next().flatten();
    if shapes.any(|s| s != first) {
        return error(
            ctx,
            op,
            "requires the same shape for all operands and results",
        );
    }
    Ok(())
}
