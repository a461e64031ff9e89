//! `loop-apply-schedule`: applies the `#loop.schedule` each band carries on its outermost
//! loop (`loop.schedule` attribute), so a schedule written by hand, by the default
//! heuristic or by the tuner is replayed by one set of transformations. A schedule that
//! does not fit its band is an error at the loop.

use tb_dialects::loop_;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

use super::apply::apply_schedule;
use super::band::Band;

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-apply-schedule",
        description: "Tile, reorder and annotate loop bands as their #loop.schedule says",
        options: &[],
        create: |_: &PassOptions| Box::new(LoopApplySchedule),
    }
}

struct LoopApplySchedule;

impl Pass for LoopApplySchedule {
    fn argument(&self) -> &'static str {
        "loop-apply-schedule"
    }

    fn display_name(&self) -> &'static str {
        "LoopApplySchedule"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut scheduled = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if loop_::schedule(ctx, inner).is_some() {
                scheduled.push(inner);
            }
        });
        for outer in scheduled {
            if ctx.op(outer).erased {
                continue;
            }
            let schedule = loop_::schedule(ctx, outer)
                .expect("collected above")
                .clone();
            let loc = ctx.op(outer).loc;
            let band = Band::of(ctx, outer, schedule.tiles.len()).map_err(|why| {
                Diagnostic::error(loc, format!("cannot apply the schedule: {why}"))
            })?;
            apply_schedule(ctx, &band, &schedule).map_err(|why| {
                Diagnostic::error(loc, format!("cannot apply the schedule: {why}"))
            })?;
        }
        Ok(())
    }
}
