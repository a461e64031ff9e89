//! Verifiers of the `gpu` ops, with MLIR 22's messages where MLIR checks the same thing.

use tb_ir::printer::type_to_string;
use tb_ir::{Context, Diagnostic, OpId, TypeKind};

use super::{LAUNCH, LAUNCH_BODY_ARGS, launch_body};

fn op_error(ctx: &Context, op: OpId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.into()),
    )
}

pub(super) fn launch(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if tb_ir::ods::segment_sizes(ctx, op).and_then(|s| s.first().copied()) != Some(0) {
        return Err(op_error(ctx, op, "async launches are not supported yet"));
    }
    let Some(body) = launch_body(ctx, op) else {
        return Err(op_error(ctx, op, "requires a body with one block"));
    };
    let args = &ctx.block(body).args;
    let workgroup = match ctx
        .op_attr(op, super::WORKGROUP_ATTRIBUTIONS)
        .map(|a| ctx.attr_kind(a))
    {
        None => 0,
        Some(tb_ir::AttrKind::Integer { value, .. }) if *value >= 0 => *value as usize,
        Some(_) => {
            return Err(op_error(
                ctx,
                op,
                "requires 'workgroup_attributions' to be a non-negative integer",
            ));
        }
    };
    if args.len() != LAUNCH_BODY_ARGS + workgroup
        || args[..LAUNCH_BODY_ARGS.min(args.len())]
            .iter()
            .any(|&a| !matches!(ctx.type_kind(ctx.value_type(a)), TypeKind::Index))
    {
        return Err(op_error(
            ctx,
            op,
            format!(
                "requires {LAUNCH_BODY_ARGS} index body arguments (block ids, thread ids, grid and block sizes) and {workgroup} workgroup buffers, found {} arguments",
                args.len()
            ),
        ));
    }
    for &buffer in &args[LAUNCH_BODY_ARGS..] {
        let ty = ctx.value_type(buffer);
        let TypeKind::MemRef { memory_space, .. } = ctx.type_kind(ty) else {
            return Err(op_error(ctx, op, "expected memref type in attribution"));
        };
        if let Some(space) = memory_space.and_then(|s| super::address_space(ctx, s))
            && space != "workgroup"
        {
            return Err(op_error(
                ctx,
                op,
                "expected memory space workgroup in attribution",
            ));
        }
    }
    let ends_in_terminator = ctx
        .block(body)
        .last
        .is_some_and(|t| ctx.op_name(t) == super::TERMINATOR);
    if !ends_in_terminator {
        return Err(op_error(
            ctx,
            op,
            "expected body to end with 'gpu.terminator'",
        ));
    }
    Ok(())
}

pub(super) fn terminator(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    match ctx.parent_op(op) {
        Some(parent) if ctx.op_name(parent) == LAUNCH => Ok(()),
        _ => Err(op_error(ctx, op, format!("expects parent op '{LAUNCH}'"))),
    }
}

/// The shuffled value is a 32- or 64-bit integer or float, as NVIDIA's `shfl.sync` moves
/// 32-bit words.
pub(super) fn shuffle(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let operands = &ctx.op(op).operands;
    let results = &ctx.op(op).results;
    let (Some(&value), Some(&result)) = (operands.first(), results.first()) else {
        return Ok(());
    };
    let ty = ctx.value_type(value);
    let width = match ctx.type_kind(ty) {
        TypeKind::Integer { width, .. } => Some(*width),
        TypeKind::Float(kind) => Some(kind.width()),
        _ => None,
    };
    if !matches!(width, Some(32 | 64)) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand #0 must be a 32- or 64-bit integer or float, but got '{}'",
                type_to_string(ctx, ty)
            ),
        ));
    }
    if ctx.value_type(result) != ty {
        return Err(op_error(
            ctx,
            op,
            "requires the same type for the value and the result",
        ));
    }
    Ok(())
}
