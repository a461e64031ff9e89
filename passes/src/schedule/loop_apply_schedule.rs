//! `loop-apply-schedule`: applies the `#loop.schedule` each nest carries on its outermost
//! loop (`loop.schedule` attribute), so a schedule written by hand, by the default
//! heuristic or by the tuner is replayed by one set of transformations. A nest is a
//! `loop.parallel` with its reduction loops, a reduction loop alone, or a band of
//! perfectly nested `loop.for`s (see [`super::nest`]). A schedule that does not fit its
//! nest is an error at the loop.

use tb_dialects::loop_;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

use super::apply::{apply_schedule, apply_to_nest};
use super::band::Band;
use super::nest::LoopNest;

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
            let fail =
                |why: String| Diagnostic::error(loc, format!("cannot apply the schedule: {why}"));
            if let Ok(nest) = LoopNest::of(ctx, outer) {
                remove_schedule(ctx, outer);
                apply_to_nest(ctx, &nest, &schedule).map_err(fail)?;
                continue;
            }
            let band = Band::of(ctx, outer, schedule.tiles.len()).map_err(fail)?;
            apply_schedule(ctx, &band, &schedule).map_err(fail)?;
        }
        Ok(())
    }
}

/// Drops the schedule attribute of `op`: a nest whose root survives the rewrite (a
/// reduction loop left untiled) must not be scheduled twice.
fn remove_schedule(ctx: &mut Context, op: OpId) {
    let attrs = ctx.op(op).attributes;
    let mut entries = ctx.dictionary_entries(attrs).to_vec();
    entries.retain(|(n, _)| n != loop_::SCHEDULE_ATTR);
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).attributes = dict;
}
