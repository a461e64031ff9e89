//! `loop-interchange{permutation=...}`: reorders every outermost band of perfectly nested
//! `loop.for`s; new loop `j` runs what loop `permutation[j]` ran. Bands that are too
//! shallow, carry values or are not rectangular are left as they are.

use tb_dialects::loop_::Schedule;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

use super::apply::apply_everywhere;

const OPTIONS: &[PassOptionInfo] = &[PassOptionInfo {
    name: "permutation",
    kind: OptionKind::IntList,
    default: "",
    help: "For each new loop, outermost first, the band loop it runs",
}];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-interchange",
        description: "Reorder bands of perfectly nested loop.for loops",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(LoopInterchange {
                permutation: o.int_list("permutation"),
            })
        },
    }
}

struct LoopInterchange {
    permutation: Vec<i64>,
}

impl Pass for LoopInterchange {
    fn argument(&self) -> &'static str {
        "loop-interchange"
    }

    fn display_name(&self) -> &'static str {
        "LoopInterchange"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let rank = self.permutation.len();
        let order: Vec<usize> = self
            .permutation
            .iter()
            .filter_map(|&p| usize::try_from(p).ok())
            .collect();
        let schedule = Schedule {
            order,
            ..Schedule::identity(rank)
        };
        if let Err(why) = schedule.verify(rank, &vec![false; rank]) {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!("loop-interchange: {why}"),
            ));
        }
        if rank < 2 {
            return Ok(());
        }
        apply_everywhere(ctx, op, &schedule)
    }
}
