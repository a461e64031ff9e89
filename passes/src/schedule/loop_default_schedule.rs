//! `loop-default-schedule{cores,vector-bytes}`: gives every loop nest that has no
//! `#loop.schedule` the default one ([`super::loop_nest_schedule`]) for the target, so
//! `loop-apply-schedule` then tiles, orders, threads and vectorizes every kernel, and a
//! schedule the tuner attached earlier is kept. A reduction whose loads stream along its
//! innermost loop (a row sum, a matrix-vector product) is vectorized along that loop
//! ([`super::reduction_vector`]). Nests whose trip counts are not constant,
//! or that are not of a recognised form, are left without one.

use tb_dialects::loop_;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

use super::nest::{LoopNest, outermost_nests};
use super::target::Target;
use super::{loop_nest_schedule, reduction_vector};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "cores",
        kind: OptionKind::Int,
        default: "0",
        help: "Cores the schedules may use (0: the host's)",
    },
    PassOptionInfo {
        name: "vector-bytes",
        kind: OptionKind::Int,
        default: "0",
        help: "Bytes in one vector register (0: the host's)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-default-schedule",
        description: "Attach the default #loop.schedule to every loop nest without one",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(LoopDefaultSchedule {
                cores: o.int("cores"),
                vector_bytes: o.int("vector-bytes"),
            })
        },
    }
}

struct LoopDefaultSchedule {
    cores: i64,
    vector_bytes: i64,
}

impl Pass for LoopDefaultSchedule {
    fn argument(&self) -> &'static str {
        "loop-default-schedule"
    }

    fn display_name(&self) -> &'static str {
        "LoopDefaultSchedule"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if self.cores < 0 || self.vector_bytes < 0 {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-default-schedule: cores ({}) and vector-bytes ({}) must not be negative",
                    self.cores, self.vector_bytes
                ),
            ));
        }
        let mut target = Target::host();
        if self.cores > 0 {
            target.cores = self.cores;
        }
        if self.vector_bytes > 0 {
            target.vector_bytes = self.vector_bytes;
        }
        for root in outermost_nests(ctx, op) {
            if loop_::schedule(ctx, root).is_some() {
                continue;
            }
            let Ok(nest) = LoopNest::of(ctx, root) else {
                continue;
            };
            let Some(shape) = nest.shape(ctx) else {
                continue;
            };
            let mut schedule = loop_nest_schedule(&shape, &target);
            if nest.innermost_reduction_streams(ctx) {
                schedule.vector = reduction_vector(&shape, &target);
            }
            let attr = ctx.typed_attr_of(schedule);
            let attrs = ctx.op(root).attributes;
            let mut entries = ctx.dictionary_entries(attrs).to_vec();
            entries.retain(|(n, _)| n != loop_::SCHEDULE_ATTR);
            entries.push((loop_::SCHEDULE_ATTR.to_string(), attr));
            let dict = ctx.dictionary_attr(entries);
            ctx.op_mut(root).attributes = dict;
        }
        Ok(())
    }
}
