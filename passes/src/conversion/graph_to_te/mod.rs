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
//! `'graph.xxx' op has no lowering to te: <why>` at its location. The conversion is all or
//! nothing: when any op fails, every failing op is reported and the module is left as it was.
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
        // All or nothing: every op is lowered next to the original, whose uses stay as they
        // are; only when every op succeeded do the new values take the results' place.
        // Otherwise what was built is erased again and every op that failed is reported.
        let mut lowered = Vec::with_capacity(ops.len());
        let mut created = Vec::new();
        let mut failures = Vec::new();
        for op in ops {
            let Some(lower) = lowering(ctx.op_name(op)) else {
                failures.push(error(ctx, op, "has no lowering to te"));
                continue;
            };
            let mut lowering = Lowering::new(ctx, op);
            let result = lower(&mut lowering);
            created.append(&mut lowering.created);
            match result {
                Ok(values) => lowered.push((op, values)),
                Err(message) => failures.push(error(ctx, op, &message)),
            }
        }
        if let Some(diagnostic) = all_failures(failures) {
            for op in created.into_iter().rev() {
                ctx.erase_op(op);
            }
            return Err(diagnostic);
        }
        for (op, values) in lowered {
            replace(ctx, op, &values);
        }
        Ok(())
    }
}

/// One diagnostic for every op that failed to lower: the first, with the others attached
/// as errors of their own (each at its op), in program order.
fn all_failures(mut failures: Vec<Diagnostic>) -> Option<Diagnostic> {
    if failures.is_empty() {
        return None;
    }
    let mut first = failures.remove(0);
    first.notes.extend(failures);
    Some(first)
}

/// Replaces `op`'s results with `values` and erases it.
fn replace(ctx: &mut Context, op: OpId, values: &[Value]) {
    let results = ctx.op(op).results.to_vec();
    for (from, &to) in results.into_iter().zip(values) {
        ctx.replace_all_uses(from, to);
    }
    ctx.erase_op(op);
}

#[cfg(test)]
mod tests {
    use tb_dialects::graph::GraphOp;
    use tb_ir::ods::OpKind;

    /// A graph op added to the dialect without a lowering fails here, not in a user's model.
    #[test]
    fn every_graph_op_has_a_lowering() {
        let missing: Vec<&str> = GraphOp::ALL
            .iter()
            .map(|kind| kind.name())
            .filter(|name| super::lowering(name).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "graph ops without a lowering to te: {missing:?}"
        );
    }
}
