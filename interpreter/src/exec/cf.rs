//! `cf` ops: a branch chooses the next block of its region and passes it values (the block
//! runner in `exec/mod.rs` follows it); `cf.assert` fails the run with its message when its
//! condition is false, as MLIR's lowering to a runtime abort does.

use tb_dialects::cf::{self, CfOp};
use tb_ir::ods::OpKind;
use tb_ir::{BlockId, Diagnostic, OpId, TypeKind};

use super::value::{RtValue, Scalar};
use super::{Env, ExecResult, Handler, Interpreter};

pub(super) fn handler(kind: CfOp) -> Option<Handler> {
    match kind {
        CfOp::Assert => Some(assert),
        // Branches end their block; `Interpreter::run_block` follows them.
        CfOp::Br | CfOp::CondBr | CfOp::Switch => None,
    }
}

fn assert(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    if interp.scalar_arg(env, op, 0)?.as_int() != 0 {
        return Ok(());
    }
    let message = interp
        .ctx
        .op_inherent_or_attr(op, "msg")
        .and_then(|m| interp.ctx.attr_as_str(m))
        .unwrap_or("");
    Err(format!("failed: {message}").into())
}

/// The block the branch `op` goes to, with the values for its arguments.
pub(super) fn successor(
    interp: &Interpreter,
    env: &Env,
    op: OpId,
) -> Result<(BlockId, Vec<RtValue>), Diagnostic> {
    let ctx = interp.ctx;
    let located = |message: String| {
        Diagnostic::error(
            ctx.op(op).loc,
            format!("'{}' op {message}", ctx.op_name(op)),
        )
    };
    let index = match CfOp::of(ctx, op) {
        Some(CfOp::Br) => 0,
        Some(CfOp::CondBr) => {
            let condition = interp
                .scalar_arg(env, op, 0)
                .map_err(|_| located("has no computed condition".into()))?;
            if condition.as_int() != 0 { 0 } else { 1 }
        }
        Some(CfOp::Switch) => switch_index(interp, env, op).map_err(located)?,
        _ => {
            return Err(located(
                "branches to other blocks, which the interpreter runs only for cf ops".into(),
            ));
        }
    };
    let block = ctx.op(op).successors[index];
    let values = cf::successor_operands(ctx, op, index)
        .ok_or_else(|| located("has malformed operand segments".into()))?
        .into_iter()
        .map(|v| {
            env.get(&v)
                .cloned()
                .ok_or_else(|| located("passes a value that has not been computed".into()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((block, values))
}

/// 0 for the default destination, `1 + case` for the first case equal to the flag.
fn switch_index(interp: &Interpreter, env: &Env, op: OpId) -> Result<usize, String> {
    let ctx = interp.ctx;
    let flag = match interp.scalar_arg(env, op, 0) {
        Ok(Scalar::Int(v)) => v,
        _ => return Err("has no computed integer flag".into()),
    };
    let width = match ctx.type_kind(ctx.value_type(ctx.op(op).operands[0])) {
        TypeKind::Integer { width, .. } => *width,
        _ => return Err("has a flag that is not an integer".into()),
    };
    let values = cf::case_values(ctx, op).ok_or("has malformed case values")?;
    let same = |a: i128, b: i128| {
        if width >= 128 {
            a == b
        } else {
            let mask = (1u128 << width) - 1;
            (a as u128) & mask == (b as u128) & mask
        }
    };
    Ok(values
        .iter()
        .position(|&v| same(v, i128::from(flag)))
        .map_or(0, |case| case + 1))
}
