//! `convert-graph-to-te`: lowers every `graph` op (ONNX semantics on tensors) to
//! `te.compute` tensor expressions, `graph.constant` to `arith.constant`.
//!
//! Function signatures stay tensor-typed; each graph op becomes one or more `te.compute`s
//! (softmax: a max reduction, a sum of exponentials and a division ...) located at the op.
//! Bodies follow the graph interpreter's kernels, so results agree within rounding.
//!
//! Bodies use affine `te.read`s, padded reads (convolution and pooling windows, `Pad`)
//! and `te.read_at` for data-dependent lookups (gathers, `Pad`'s reflect/edge modes), and
//! `arith`/`math` scalar ops. An op te cannot express fails the pass with
//! `'graph.xxx' op has no lowering to te: <why>` at its location, before anything changed.
//!
//! One file per operator family; each exposes `lowering(name)`, the function that lowers
//! the graph op `graph.<name>`.

mod builder;
mod conv;
mod elementwise;
mod generators;
mod matmul;
mod normalization;
mod pad;
mod pool;
mod reduce;
mod shape_ops;

use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId, Value};

use builder::{LowerResult, Lowering};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-graph-to-te",
        description: "Lower graph dialect ops to te.compute tensor expressions",
        options: &[],
        create: |_: &PassOptions| Box::new(ConvertGraphToTe),
    }
}

struct ConvertGraphToTe;

/// Lowers one graph op; returns the values that replace its results.
type LowerFn = fn(&mut Lowering) -> LowerResult;

/// The lowering of the graph op named `name` (`graph.conv`), if te can express it.
fn lowering(name: &str) -> Option<LowerFn> {
    let short = name.strip_prefix("graph.")?;
    elementwise::lowering(short)
        .or_else(|| generators::lowering(short))
        .or_else(|| matmul::lowering(short))
        .or_else(|| conv::lowering(short))
        .or_else(|| pool::lowering(short))
        .or_else(|| normalization::lowering(short))
        .or_else(|| reduce::lowering(short))
        .or_else(|| shape_ops::lowering(short))
        .or_else(|| pad::lowering(short))
}

fn error(ctx: &Context, op: OpId, message: &str) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    )
}

impl Pass for ConvertGraphToTe {
    fn argument(&self) -> &'static str {
        "convert-graph-to-te"
    }

    fn display_name(&self) -> &'static str {
        "ConvertGraphToTe"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> Result<(), Diagnostic> {
        let mut ops = Vec::new();
        ctx.walk_nested(root, &mut |op| {
            if ctx.op_name(op).starts_with("graph.") {
                ops.push(op);
            }
        });
        // Report an op without any lowering before changing anything.
        let mut lowerings = Vec::with_capacity(ops.len());
        for &op in &ops {
            match lowering(ctx.op_name(op)) {
                Some(lower) => lowerings.push(lower),
                None => return Err(error(ctx, op, "has no lowering to te")),
            }
        }
        for (op, lower) in ops.into_iter().zip(lowerings) {
            let values = lower(&mut Lowering::new(ctx, op)).map_err(|m| error(ctx, op, &m))?;
            replace(ctx, op, &values);
        }
        Ok(())
    }
}

/// Replaces `op`'s results with `values` and erases it.
fn replace(ctx: &mut Context, op: OpId, values: &[Value]) {
    let results = ctx.op(op).results.to_vec();
    for (from, &to) in results.into_iter().zip(values) {
        ctx.replace_all_uses(from, to);
    }
    ctx.erase_op(op);
}
