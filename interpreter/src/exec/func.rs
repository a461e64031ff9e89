//! `func` ops: calls between functions of the module (`func.return` ends a block and is
//! handled by the block runner), and pass-through of `builtin.unrealized_conversion_cast`.

use tb_dialects::func::FuncOp;
use tb_ir::{AttrKind, BlockId, Context, OpId, Type};

use super::{Env, ExecError, ExecResult, Handler, Interpreter};

/// The handler of a func op; `func.func` and `func.return` are not executed as ops.
pub(super) fn handler(kind: FuncOp) -> Option<Handler> {
    match kind {
        FuncOp::Call => Some(call),
        FuncOp::Func | FuncOp::Return | FuncOp::Constant => None,
    }
}

/// The body block of a `func.func`, `None` for a declaration.
pub(super) fn body(ctx: &Context, func: OpId) -> Option<BlockId> {
    ctx.op(func)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
}

/// The argument and result types of a `func.func` (the dialect's own reading of them).
pub fn signature(ctx: &Context, func: OpId) -> Option<(Vec<Type>, Vec<Type>)> {
    tb_dialects::func::signature(ctx, func)
}

fn call(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let callee = ctx
        .op_inherent_or_attr(op, "callee")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::SymbolRef { root, nested } if nested.is_empty() => Some(root.clone()),
            _ => None,
        })
        .ok_or("has no flat @callee symbol")?;
    let func = interp
        .function(&callee)
        .ok_or_else(|| format!("calls @{callee}, which is not a function of the module"))?;
    let args = (0..ctx.op(op).operands.len())
        .map(|i| interp.arg(env, op, i).cloned())
        .collect::<ExecResult<Vec<_>>>()?;
    let results = interp
        .call(func, args)
        .map_err(|d| ExecError::Located(Box::new(d)))?;
    if results.len() != ctx.op(op).results.len() {
        return Err(format!(
            "@{callee} returned {} values, the call expects {}",
            results.len(),
            ctx.op(op).results.len()
        )
        .into());
    }
    for (i, value) in results.into_iter().enumerate() {
        interp.set_result(env, op, i, value)?;
    }
    Ok(())
}

/// `builtin.unrealized_conversion_cast` with one operand and one result: the run-time value
/// is the same on both sides (a tensor and the buffer a lowering maps it to hold the same
/// elements), so the value is converted between tensor and buffer as the types say.
pub(super) fn forward_cast(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    if ctx.op(op).operands.len() != 1 || ctx.op(op).results.len() != 1 {
        return Err("only one-to-one casts are supported by the interpreter".into());
    }
    let value = interp.arg(env, op, 0)?.clone();
    let to = interp.result_type(op, 0);
    let converted = super::attr::convert_for_type(ctx, to, value)?;
    interp.set_result(env, op, 0, converted)
}
