//! `memref.generic_atomic_rmw` and its terminator `memref.atomic_yield`: an atomic
//! read-modify-write of one element whose new value a region computes from the current
//! one, with MLIR 22's syntax and verifiers.
//!
//! ```mlir
//! %x = memref.generic_atomic_rmw %buf[%i] : memref<10xf32> {
//!   ^bb0(%current: f32):
//!     %inc = arith.addf %current, %one : f32
//!     memref.atomic_yield %inc : f32
//! }
//! ```

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::parser::PResult;
use tb_ir::printer::type_to_string;
use tb_ir::{Context, Diagnostic, OpId, TypeKind};

use super::asm::{parse_attr_dict, parse_memref_type, resolve_indices};
use super::verify::{error, op_error};
use super::{ATOMIC_YIELD, GENERIC_ATOMIC_RMW};

/// `%memref[%indices] : memref-type region attr-dict`; the result is the element type.
pub(crate) fn parse(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let memref = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    p.parse_literal(":")?;
    let (ty, element) = parse_memref_type(p)?;
    state.operands = vec![p.resolve_operand(&memref, ty)?];
    state.operands.extend(resolve_indices(p, &indices)?);
    let body = p.new_region();
    p.parse_region(body, Vec::new())?;
    state.regions.push(body);
    parse_attr_dict(p, state)?;
    state.result_types = vec![element];
    Ok(())
}

pub(crate) fn print(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str("[");
    p.print_values(&operands[1..]);
    p.print_str("] : ");
    let ty = p.ctx().value_type(operands[0]);
    p.print_type(ty);
    p.print_str(" ");
    if let Some(&body) = p.ctx().op(op).regions.first() {
        p.print_region(body, true, false);
    }
    p.print_optional_attr_dict(op, &[], false);
}

/// The result has the memref's element type, the body takes the current value as its one
/// argument (of the result type), and nothing in the body has a side effect.
pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (Some(&memref), Some(&result), Some(&body)) = (
        data.operands.first(),
        data.results.first(),
        data.regions.first(),
    ) else {
        return Ok(());
    };
    let result_ty = ctx.value_type(result);
    if let TypeKind::MemRef { element, .. } = ctx.type_kind(ctx.value_type(memref))
        && *element != result_ty
    {
        return op_error(
            ctx,
            op,
            "failed to verify that result type matches element type of memref".into(),
        );
    }
    let args = ctx
        .entry_block(body)
        .map_or(&[][..], |block| &ctx.block(block).args[..]);
    if args.len() != 1 {
        return op_error(
            ctx,
            op,
            "expected single number of entry block arguments".into(),
        );
    }
    if ctx.value_type(args[0]) != result_ty {
        return op_error(
            ctx,
            op,
            "expected block argument of the same type result type".into(),
        );
    }
    if let Some(effectful) = first_effectful_op(ctx, op) {
        return error(
            ctx,
            effectful,
            format!(
                "body of '{GENERIC_ATOMIC_RMW}' should contain only operations with no side effects"
            ),
        );
    }
    check_terminator(ctx, op)
}

/// The first op nested in `op`, in MLIR's post-order walk (nested ops before the op that
/// holds them), that may have a side effect. Only ops registered as pure are known to
/// have none; an op with regions is reached after its nested ops, so it is reported only
/// when those are effect-free and it is not pure itself.
fn first_effectful_op(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut preorder = Vec::new();
    ctx.walk_nested(op, &mut |inner| preorder.push(inner));
    // Of two ops in pre-order, the later one comes first in post-order exactly when it is
    // nested in the earlier one.
    let mut best: Option<OpId> = None;
    for &inner in &preorder {
        if is_effect_free(ctx, inner) {
            continue;
        }
        best = match best {
            None => Some(inner),
            Some(b) if is_ancestor(ctx, b, inner) => Some(inner),
            keep => keep,
        };
    }
    best
}

/// Whether `ancestor` holds `op` in one of its regions, at any depth.
fn is_ancestor(ctx: &Context, ancestor: OpId, op: OpId) -> bool {
    let mut current = ctx.parent_op(op);
    while let Some(parent) = current {
        if parent == ancestor {
            return true;
        }
        current = ctx.parent_op(parent);
    }
    false
}

fn is_effect_free(ctx: &Context, op: OpId) -> bool {
    ctx.op_traits(op).is_some_and(|t| t.pure)
}

/// The body ends with `memref.atomic_yield` (MLIR's `SingleBlockImplicitTerminator`),
/// checked only when the block ends with a terminator at all: a block that does not is
/// reported by the block's own check, as in MLIR.
fn check_terminator(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(block) = ctx.op(op).regions.first().and_then(|&r| ctx.entry_block(r)) else {
        return Ok(());
    };
    let Some(last) = ctx.block(block).last else {
        return Ok(());
    };
    let is_terminator = ctx.op_traits(last).is_none_or(|t| t.terminator);
    if !is_terminator || ctx.op_name(last) == ATOMIC_YIELD {
        return Ok(());
    }
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!(
            "'{GENERIC_ATOMIC_RMW}' op expects regions to end with '{ATOMIC_YIELD}', found '{}'",
            ctx.op_name(last)
        ),
    )
    .with_note(
        ctx.op(op).loc,
        format!("in custom textual format, the absence of terminator implies '{ATOMIC_YIELD}'"),
    ))
}

/// Yields a value of the parent's result type, from a `memref.generic_atomic_rmw` body.
pub(crate) fn verify_yield(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let parent = ctx.parent_op(op);
    if parent.is_none_or(|p| ctx.op_name(p) != GENERIC_ATOMIC_RMW) {
        return op_error(ctx, op, format!("expects parent op '{GENERIC_ATOMIC_RMW}'"));
    }
    let (Some(parent), Some(&value)) = (parent, ctx.op(op).operands.first()) else {
        return Ok(());
    };
    let Some(&parent_result) = ctx.op(parent).results.first() else {
        return Ok(());
    };
    let (yielded, expected) = (ctx.value_type(value), ctx.value_type(parent_result));
    if yielded != expected {
        return op_error(
            ctx,
            op,
            format!(
                "types mismatch between yield op: '{}' and its parent: '{}'",
                type_to_string(ctx, yielded),
                type_to_string(ctx, expected)
            ),
        );
    }
    Ok(())
}
