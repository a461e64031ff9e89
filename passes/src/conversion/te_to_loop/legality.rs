//! What the conversion accepts, checked before anything changes, so that unsupported input
//! gets an error at the op (or function) responsible and the module is left as it was.
//!
//! Tensors must be ranked and of static shape; they may only be produced and consumed by
//! `te.compute` (directly in a function body), read by `te.read`/`te.read_at` inside one,
//! defined by `arith.constant` with a `dense` or `dense_resource` value, passed to and
//! from `func.call`, and returned. Scalar ops are left as they are.

use tb_dialects::{func, te};
use tb_ir::printer::type_to_string;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

use super::combiner::Combiner;
use super::signature::is_tensor;
use super::{constants, reads};

const PASS: &str = "convert-te-to-loop";

fn op_error(ctx: &Context, op: OpId, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    )
}

/// Why `ty` cannot become a buffer, if it is a tensor that cannot.
fn unsupported_tensor(ctx: &Context, ty: Type) -> Option<String> {
    let shown = || type_to_string(ctx, ty);
    match ctx.type_kind(ty) {
        TypeKind::UnrankedTensor { .. } => Some(format!("'{}' is unranked", shown())),
        TypeKind::RankedTensor { shape, .. } if shape.iter().any(|&d| d < 0) => Some(format!(
            "'{}' has a dynamic shape; {PASS} needs static shapes",
            shown()
        )),
        _ => None,
    }
}

/// Checks that `function` (a `func.func`) can be converted.
pub(super) fn check_function(ctx: &Context, function: OpId) -> Result<(), Diagnostic> {
    if let Some((inputs, results)) = func::signature(ctx, function) {
        let named = inputs
            .iter()
            .enumerate()
            .map(|(i, &t)| (format!("argument #{i}"), t))
            .chain(
                results
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (format!("result #{i}"), t)),
            );
        for (what, ty) in named {
            if let Some(why) = unsupported_tensor(ctx, ty) {
                return Err(op_error(ctx, function, format!("{what}: {why}")));
            }
        }
    }
    let Some(&region) = ctx.op(function).regions.first() else {
        return Ok(());
    };
    if ctx.region(region).blocks.len() > 1 {
        return Err(op_error(
            ctx,
            function,
            format!("has several blocks; {PASS} converts single-block function bodies"),
        ));
    }
    let mut result = Ok(());
    ctx.walk_nested(function, &mut |op| {
        if result.is_ok() {
            result = check_op(ctx, function, op);
        }
    });
    result
}

fn check_op(ctx: &Context, function: OpId, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    for &value in data.operands.iter().chain(&data.results) {
        if let Some(why) = unsupported_tensor(ctx, ctx.value_type(value)) {
            return Err(op_error(ctx, op, why));
        }
    }
    let in_function_body = ctx.parent_op(op) == Some(function);
    let name = ctx.op_name(op);
    match name {
        te::COMPUTE => {
            if !in_function_body {
                return Err(op_error(
                    ctx,
                    op,
                    format!("must be directly in a function body for {PASS}"),
                ));
            }
            check_reduction(ctx, op)
        }
        te::READ => match reads::unsupported_padded_read(ctx, op) {
            Some(why) => Err(op_error(ctx, op, why)),
            None => Ok(()),
        },
        te::READ_AT | te::YIELD | func::CALL | func::RETURN => Ok(()),
        _ if constants::is_tensor_constant(ctx, op) => {
            if !in_function_body {
                return Err(op_error(
                    ctx,
                    op,
                    format!("must be directly in a function body for {PASS}"),
                ));
            }
            constants::initializer(ctx, op)
                .map(|_| ())
                .map_err(|why| op_error(ctx, op, why))
        }
        _ => {
            let touches_tensors = data
                .operands
                .iter()
                .chain(&data.results)
                .any(|&v| is_tensor(ctx, ctx.value_type(v)));
            if touches_tensors {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "operates on tensors, which {PASS} only converts for te.compute, tensor arith.constant, func.call and func.return"
                    ),
                ));
            }
            Ok(())
        }
    }
}

/// A reduction's combiner must accumulate the result's element type with arith.
fn check_reduction(ctx: &Context, compute: OpId) -> Result<(), Diagnostic> {
    if te::reduction_extents(ctx, compute).is_empty() {
        return Ok(());
    }
    let Some(kind) = te::ComputeOp(compute).combiner(ctx) else {
        return Ok(());
    };
    let result = ctx.op(compute).results[0];
    let Some(element) = ctx.type_kind(ctx.value_type(result)).element() else {
        return Ok(());
    };
    Combiner::new(ctx, kind, element)
        .map(|_| ())
        .map_err(|why| op_error(ctx, compute, why))
}
