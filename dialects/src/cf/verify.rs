//! Verifiers of the `cf` branches: successor counts, branch weights, switch cases, and the
//! operands each successor receives against its block arguments (MLIR's
//! `BranchOpInterface` checks, with its messages).

use tb_ir::printer::type_to_string;
use tb_ir::{Context, Diagnostic, OpId};

use super::{branch_weights, case_operand_segments, case_values, successor_operands};

fn op_error(ctx: &Context, op: OpId, message: String) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    )
}

fn require_successors(ctx: &Context, op: OpId, count: usize) -> Result<(), Diagnostic> {
    let found = ctx.op(op).successors.len();
    if found == count {
        return Ok(());
    }
    let noun = if count == 1 {
        "successor"
    } else {
        "successors"
    };
    Err(op_error(
        ctx,
        op,
        format!("requires {count} {noun} but found {found}"),
    ))
}

fn check_weights(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(weights) = branch_weights(ctx, op) else {
        return Ok(());
    };
    let successors = ctx.op(op).successors.len();
    if weights.len() != successors {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            format!(
                "expects number of branch weights to match number of successors: {} vs {successors}",
                weights.len()
            ),
        ));
    }
    if !weights.is_empty() && weights.iter().all(|&w| w == 0) {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            "branch weights cannot all be zero",
        ));
    }
    Ok(())
}

/// Each successor receives as many values as it has arguments, of the same types.
fn check_successor_operands(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    for (index, &block) in ctx.op(op).successors.iter().enumerate() {
        let operands = successor_operands(ctx, op, index).ok_or_else(|| {
            op_error(
                ctx,
                op,
                format!("has malformed operand segments for successor #{index}"),
            )
        })?;
        let params = &ctx.block(block).args;
        if operands.len() != params.len() {
            return Err(Diagnostic::error(
                loc,
                format!(
                    "branch has {} operands for successor #{index}, but target block has {}",
                    operands.len(),
                    params.len()
                ),
            ));
        }
        for (arg, (&value, &param)) in operands.iter().zip(params).enumerate() {
            if ctx.value_type(value) != ctx.value_type(param) {
                return Err(Diagnostic::error(
                    loc,
                    format!("type mismatch for bb argument #{arg} of successor #{index}"),
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn br(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    require_successors(ctx, op, 1)?;
    check_successor_operands(ctx, op)
}

pub(crate) fn cond_br(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    require_successors(ctx, op, 2)?;
    check_weights(ctx, op)?;
    check_successor_operands(ctx, op)
}

pub(crate) fn switch(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let successors = ctx.op(op).successors.len();
    if successors == 0 {
        return Err(op_error(
            ctx,
            op,
            "requires at least 1 successors but found 0".into(),
        ));
    }
    let destinations = successors - 1;
    let values = case_values(ctx, op)
        .ok_or_else(|| op_error(ctx, op, "has malformed 'case_values'".into()))?;
    if values.len() != destinations {
        return Err(op_error(
            ctx,
            op,
            format!(
                "number of case values ({}) should match number of case destinations ({destinations})",
                values.len()
            ),
        ));
    }
    let flag_type = ctx.value_type(ctx.op(op).operands[0]);
    if let Some(attr) = ctx.op_inherent_or_attr(op, "case_values")
        && let tb_ir::AttrKind::DenseElements { ty, .. } = ctx.attr_kind(attr)
        && let Some(element) = ctx.type_kind(*ty).element()
        && element != flag_type
    {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'flag' type ('{}') should match case value type ('{}')",
                type_to_string(ctx, flag_type),
                type_to_string(ctx, element)
            ),
        ));
    }
    let segments = case_operand_segments(ctx, op).ok_or_else(|| {
        op_error(
            ctx,
            op,
            "requires 'case_operand_segments' of non-negative sizes".into(),
        )
    })?;
    let case_operands = tb_ir::ods::segment_sizes(ctx, op)
        .and_then(|sizes| sizes.get(2).copied())
        .unwrap_or(0);
    let total: usize = segments.iter().sum();
    if case_operands != total {
        return Err(op_error(
            ctx,
            op,
            format!(
                "caseOperands count ({case_operands}) does not match with the total size ({total}) specified in attribute 'case_operand_segments'"
            ),
        ));
    }
    // MLIR reads past the end of a shorter list; here it is an error.
    if segments.len() < destinations {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'case_operand_segments' has {} entries for {destinations} case destinations",
                segments.len()
            ),
        ));
    }
    check_weights(ctx, op)?;
    check_successor_operands(ctx, op)
}
