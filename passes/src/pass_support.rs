//! Small helpers the module-level passes share.

use tb_ir::pass::PassStatistic;
use tb_ir::{Context, OpId};

/// A statistic as `--mlir-pass-statistics` prints it.
pub(crate) fn stat(name: &'static str, description: &'static str, value: u64) -> PassStatistic {
    PassStatistic {
        name,
        description,
        value,
    }
}

/// `func.func` ops at or under `op`, in order.
pub(crate) fn collect_functions(ctx: &Context, op: OpId, out: &mut Vec<OpId>) {
    if ctx.op_name(op) == "func.func" {
        out.push(op);
        return;
    }
    for &region in &ctx.op(op).regions {
        for &block in &ctx.region(region).blocks {
            for child in ctx.block_ops(block).collect::<Vec<_>>() {
                collect_functions(ctx, child, out);
            }
        }
    }
}
