//! What the conversion accepts: the target's legality (after the conversion no op touches
//! a tensor) and the checks each pattern makes before it builds anything, so that
//! unsupported input gets an error at the op (or function) responsible.
//!
//! Tensors must be ranked and of static shape; they may only be produced and consumed by
//! `te.compute` (in a function body, or in the regions of `scf.if`/`scf.for`/`scf.while`
//! there), read by `te.read`/`te.read_at` inside one or `te.extract` outside, defined by
//! `arith.constant` with a `dense` or `dense_resource` value, given, carried and yielded
//! by `scf.if`/`scf.for`/`scf.while`, passed to and from `func.call`, and returned. Scalar
//! ops are left as they are.

use tb_dialects::{func, scf, te};
use tb_ir::printer::type_to_string;
use tb_ir::rewrite::conversion::op_failure;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

use super::combiner::Combiner;
use super::signature::is_tensor;
use super::{constants, reads};

const PASS: &str = "convert-te-to-loop";

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

/// Whether `op` neither takes nor gives a tensor (what every op must be afterwards).
pub(super) fn touches_no_tensors(ctx: &Context, op: OpId) -> bool {
    let data = ctx.op(op);
    !data
        .operands
        .iter()
        .chain(&data.results)
        .any(|&v| is_tensor(ctx, ctx.value_type(v)))
}

/// `func.func` is legal when its type has no tensor (its body is checked op by op).
pub(super) fn function_is_legal(ctx: &Context, function: OpId) -> bool {
    func::signature(ctx, function)
        .is_none_or(|(inputs, results)| !inputs.iter().chain(&results).any(|&t| is_tensor(ctx, t)))
}

/// The ops of a `te.compute` body go away with it: they are legal there.
pub(super) fn in_compute_body(ctx: &Context, op: OpId) -> bool {
    ctx.parent_op(op)
        .is_some_and(|parent| ctx.op_name(parent) == te::COMPUTE)
}

/// Checks that the signature and body shape of `function` (a `func.func`) can be
/// converted.
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
                return Err(op_failure(ctx, function, format!("{what}: {why}")));
            }
        }
    }
    let Some(&region) = ctx.op(function).regions.first() else {
        return Ok(());
    };
    if ctx.region(region).blocks.len() > 1 {
        return Err(op_failure(
            ctx,
            function,
            format!("has several blocks; {PASS} converts single-block function bodies"),
        ));
    }
    Ok(())
}

/// Checks that the tensors `op` takes and gives can become buffers.
pub(super) fn check_types(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    for &value in data.operands.iter().chain(&data.results) {
        if let Some(why) = unsupported_tensor(ctx, ctx.value_type(value)) {
            return Err(op_failure(ctx, op, why));
        }
    }
    Ok(())
}

/// Whether `op` is `scf.if`, `scf.for` or `scf.while`, whose regions may hold buffers.
fn is_structured_control_flow(ctx: &Context, op: OpId) -> bool {
    matches!(ctx.op_name(op), scf::IF | scf::FOR | scf::WHILE)
}

/// `op` must be in a single-block function body, directly or in the regions of
/// `scf.if`/`scf.for`/`scf.while` ops there (where its buffer is allocated and freed).
fn check_in_function_body(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let mut parent = ctx.parent_op(op);
    while let Some(p) = parent.filter(|&p| is_structured_control_flow(ctx, p)) {
        parent = ctx.parent_op(p);
    }
    let function = parent.filter(|&parent| ctx.op_name(parent) == func::FUNC);
    let Some(function) = function else {
        return Err(op_failure(
            ctx,
            op,
            format!(
                "must be in a function body or in scf.if/scf.for/scf.while regions there for {PASS}"
            ),
        ));
    };
    let blocks = ctx
        .op(function)
        .regions
        .first()
        .map_or(0, |&r| ctx.region(r).blocks.len());
    if blocks > 1 {
        return Err(op_failure(
            ctx,
            op,
            format!(
                "is in a function of several blocks; {PASS} converts single-block function bodies"
            ),
        ));
    }
    Ok(())
}

/// Checks that the control-flow op `op` (`scf.if`/`scf.for`/`scf.while` on tensors, or the
/// `scf.yield`/`scf.condition` ending one of their regions) can hold buffers: it is where
/// buffers can be, and its regions have one block each.
pub(super) fn check_control_flow(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if matches!(ctx.op_name(op), scf::YIELD | scf::CONDITION) {
        return match ctx.parent_op(op) {
            Some(parent) if is_structured_control_flow(ctx, parent) => Ok(()),
            _ => Err(op_failure(
                ctx,
                op,
                format!(
                    "passes tensors out of a region {PASS} does not convert (only scf.if, scf.for and scf.while carry tensors)"
                ),
            )),
        };
    }
    check_in_function_body(ctx, op)?;
    for &region in &ctx.op(op).regions {
        if ctx.region(region).blocks.len() > 1 {
            return Err(op_failure(
                ctx,
                op,
                format!("has a region of several blocks; {PASS} converts single-block regions"),
            ));
        }
    }
    Ok(())
}

/// Checks that `compute` and its body can be lowered.
pub(super) fn check_compute(ctx: &Context, compute: OpId) -> Result<(), Diagnostic> {
    check_types(ctx, compute)?;
    check_in_function_body(ctx, compute)?;
    let mut result = Ok(());
    ctx.walk_nested(compute, &mut |op| {
        if result.is_err() {
            return;
        }
        result = check_types(ctx, op).and_then(|()| {
            if ctx.op_name(op) != te::READ {
                return Ok(());
            }
            match reads::unsupported_padded_read(ctx, op) {
                Some(why) => Err(op_failure(ctx, op, why)),
                None => Ok(()),
            }
        });
    });
    result?;
    check_reduction(ctx, compute)
}

/// Checks that the tensor constant `op` can become a global; gives its initializer.
pub(super) fn check_constant(ctx: &Context, op: OpId) -> Result<tb_ir::Attr, Diagnostic> {
    check_types(ctx, op)?;
    check_in_function_body(ctx, op)?;
    constants::initializer(ctx, op).map_err(|why| op_failure(ctx, op, why))
}

/// Why `op`, which touches tensors and has no conversion, cannot be converted.
pub(super) fn not_convertible(ctx: &Context, op: OpId) -> Diagnostic {
    match check_types(ctx, op) {
        Err(unsupported) => unsupported,
        Ok(()) => op_failure(
            ctx,
            op,
            format!(
                "operates on tensors, which {PASS} only converts for te.compute, te.extract, tensor arith.constant, scf.if, scf.for, scf.while, func.call and func.return"
            ),
        ),
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
        .map_err(|why| op_failure(ctx, compute, why))
}
