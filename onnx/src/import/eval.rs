//! Import-time evaluation: a node whose inputs are all known constants is built over
//! placeholder values in a scratch block, run once by the reference interpreter, and
//! erased; its outputs become known constants. This is what folds the shape subgraphs
//! exporters emit (`Shape → Gather → Unsqueeze → Concat → Reshape`) before the shapes they
//! compute are needed as attributes.

use tb_interpreter::Tensor;
use tb_interpreter::exec::{Env, Interpreter, RtValue};
use tb_ir::operation::OperationState;
use tb_ir::{Context, Diagnostic, OpId, Type};

use super::sizes::{FOLD_BUDGET, element_count};
use super::types::tensor_parts;

/// Builds the op `build` describes over one placeholder per type in `arg_types`, runs it on
/// `args` and returns its results, or `None` when a result would exceed [`FOLD_BUDGET`]
/// elements; the op is erased again. `module` is only the interpreter's scope: the op does
/// not need to be in it.
pub fn evaluate(
    ctx: &mut Context,
    module: OpId,
    arg_types: &[Type],
    args: &[&Tensor],
    build: impl FnOnce(&mut Context, Vec<tb_ir::Value>) -> Result<OperationState, String>,
) -> Result<Option<Vec<Tensor>>, String> {
    let block = ctx.create_block();
    let placeholders: Vec<_> = arg_types
        .iter()
        .map(|&ty| ctx.add_block_argument(block, ty, None))
        .collect();
    let state = match build(ctx, placeholders.clone()) {
        Ok(s) => s,
        Err(e) => {
            ctx.erase_block(block);
            return Err(e);
        }
    };
    if !state.result_types.iter().all(|&ty| within_budget(ctx, ty)) {
        ctx.erase_block(block);
        return Ok(None);
    }
    let op = ctx.create_op(state);
    ctx.append_op(block, op);
    let result = run(ctx, module, op, &placeholders, args);
    ctx.erase_op(op);
    ctx.erase_block(block);
    result.map(Some).map_err(|d| d.message)
}

fn within_budget(ctx: &Context, ty: Type) -> bool {
    tensor_parts(ctx, ty)
        .and_then(|(shape, _)| element_count(&shape))
        .is_some_and(|n| n <= FOLD_BUDGET)
}

fn run(
    ctx: &Context,
    module: OpId,
    op: OpId,
    placeholders: &[tb_ir::Value],
    args: &[&Tensor],
) -> Result<Vec<Tensor>, Diagnostic> {
    let mut interp = Interpreter::new(ctx, module);
    let mut env = Env::default();
    for (&v, &t) in placeholders.iter().zip(args) {
        env.insert(v, RtValue::Tensor(t.clone()));
    }
    interp.run_op(&mut env, op)?;
    ctx.op(op)
        .results
        .iter()
        .map(|r| match env.remove(r) {
            Some(RtValue::Tensor(t)) => Ok(t),
            _ => Err(Diagnostic::error(
                ctx.op(op).loc,
                "evaluation produced no tensor result",
            )),
        })
        .collect()
}
