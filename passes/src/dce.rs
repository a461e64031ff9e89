//! `dce`: removes pure operations whose results are unused, repeatedly, so chains of
//! dead computations disappear entirely.

use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "dce",
        description: "Remove pure operations whose results are never used",
        options: &[],
        create: |_: &PassOptions| Box::new(Dce),
    }
}

struct Dce;

impl Pass for Dce {
    fn argument(&self) -> &'static str {
        "dce"
    }

    fn display_name(&self) -> &'static str {
        "DCE"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut nested = Vec::new();
        ctx.walk_nested(op, &mut |inner| nested.push(inner));
        // Users come after their operands in pre-order; walking backwards frees an op's
        // operands before they are visited.
        for inner in nested.into_iter().rev() {
            if !ctx.op(inner).erased && is_trivially_dead(ctx, inner) {
                ctx.erase_op(inner);
            }
        }
        Ok(())
    }
}

fn is_trivially_dead(ctx: &Context, op: OpId) -> bool {
    crate::is_pure(ctx, op)
        && ctx
            .op(op)
            .results
            .iter()
            .all(|&r| ctx.value(r).uses.is_empty())
}
