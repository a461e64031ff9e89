//! The knobs of a task and its candidates. A candidate is a decision vector (one index per
//! knob), validated before anything is compiled:
//!
//! - a **matmul** nest (one `loop-matmul-microkernel` rewrites) is tuned through the
//!   micro-kernel's parameters: rows `mr`, columns `nr = mult * vector`, the vector width,
//!   the reduction slice `kc`, the packed panel width `nc` and whether B is packed; a
//!   decision is valid when the `mr * mult` accumulators, the `mult` B vectors and the
//!   broadcast register fit the target's vector registers;
//! - a one-group **convolution** nest (one `loop-conv-microkernel` rewrites) is tuned
//!   through its register blocking ([`ConvSpace`]);
//! - any other nest whose schedule `loop-apply-schedule` can apply is tuned through its
//!   [`KnobSpace`] (tiles, order, parallel dimensions, vector, unroll), attached to the nest
//!   as `#loop.schedule` (packing is left to the micro-kernels);
//! - a nest of neither kind keeps the heuristic schedule (it has no knobs).
//!
//! The thread count is part of the target ([`crate::TargetKey`]), not a knob: a record
//! measured on T threads answers only for runs on T threads.

use serde::{Deserialize, Serialize};
use tb_dialects::loop_::{self, Packing, Schedule};
use tb_ir::dialect_attr::TypedAttr;
use tb_ir::{Context, OpId};
use tb_passes::schedule::{KnobSpace, Nest, Rng, Target, loop_nest_schedule};

use crate::task::{Task, parse_module, run_pipeline, task_nest};

/// What follows the knobs of every candidate: the rest of the CPU pipeline.
const BACK_PIPELINE: &str = "plan-buffers";

/// The heuristic candidate: what the CPU pipeline does to a nest after the front half
/// (`tb_passes::pipelines::CPU` between `convert-te-to-loop` and `plan-buffers`).
const HEURISTIC_PIPELINE: &str = "loop-matmul-microkernel, loop-int-matmul-microkernel, loop-conv-microkernel, loop-default-schedule, loop-apply-schedule";

/// The micro-kernel parameters of a matmul task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MicroKernelSpace {
    pub batch: i64,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub vector_registers: i64,
    pub mr: Vec<i64>,
    pub mult: Vec<i64>,
    pub vector: Vec<i64>,
    pub kc: Vec<i64>,
    pub nc: Vec<i64>,
    pub pack: Vec<bool>,
}

/// The micro-kernel parameters one decision spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MicroKernel {
    pub mr: i64,
    pub nr: i64,
    pub vector: i64,
    pub kc: i64,
    pub nc: i64,
    pub pack_rhs: bool,
}

impl MicroKernel {
    /// The pass that applies these parameters.
    pub fn pass(&self) -> String {
        format!(
            "loop-matmul-microkernel{{mr={} nr={} kc={} nc={} vector={} pack-rhs={}}}",
            self.mr, self.nr, self.kc, self.nc, self.vector, self.pack_rhs
        )
    }
}

impl MicroKernelSpace {
    fn new(batch: i64, m: i64, n: i64, k: i64, target: &Target) -> MicroKernelSpace {
        let lanes = target.lanes(4);
        let mut vector = vec![];
        let mut w = 4.min(lanes);
        while w <= lanes {
            vector.push(w);
            w *= 2;
        }
        let mut kc: Vec<i64> = [16, 32, 64, 128, 256, 512]
            .into_iter()
            .filter(|&c| c < k)
            .collect();
        kc.push(k.clamp(1, 1024));
        MicroKernelSpace {
            batch,
            m,
            n,
            k,
            vector_registers: target.vector_registers,
            mr: vec![1, 2, 3, 4, 5, 6, 8],
            mult: vec![1, 2, 3, 4],
            vector,
            kc,
            nc: vec![64, 128, 256, 512],
            pack: vec![true, false],
        }
    }

    fn sizes(&self) -> [usize; 6] {
        [
            self.mr.len(),
            self.mult.len(),
            self.vector.len(),
            self.kc.len(),
            self.nc.len(),
            self.pack.len(),
        ]
    }

    /// The parameters of `decision`, or why it is not a valid one.
    pub fn params(&self, decision: &[usize]) -> Result<MicroKernel, String> {
        let sizes = self.sizes();
        if decision.len() != sizes.len() || decision.iter().zip(sizes).any(|(&d, s)| d >= s) {
            return Err(format!(
                "decision {decision:?} is not one of the micro-kernel space's (sizes {sizes:?})"
            ));
        }
        let (mr, mult) = (self.mr[decision[0]], self.mult[decision[1]]);
        let vector = self.vector[decision[2]];
        let registers = mr * mult + mult + 1;
        if registers > self.vector_registers {
            return Err(format!(
                "{mr} x {mult} accumulators, {mult} B vectors and a broadcast need {registers} vector registers, over {}",
                self.vector_registers
            ));
        }
        Ok(MicroKernel {
            mr,
            nr: mult * vector,
            vector,
            kc: self.kc[decision[3]],
            nc: self.nc[decision[4]],
            pack_rhs: self.pack[decision[5]],
        })
    }
}

/// The register blocking of a convolution task (one group, batch 1) that
/// `loop-conv-microkernel` rewrites: output pixels `mr` per block, output channels
/// `nr = mult * vector`, the vector width, and whether channel blocks and rows run on
/// threads. A decision is valid when `nr` fits the channels and the `mr * mult`
/// accumulators, the `mult` weight vectors and the broadcast fit the vector registers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvSpace {
    /// Output channels, rows and columns, input channels, kernel rows and columns.
    pub extents: Vec<i64>,
    pub vector_registers: i64,
    pub mr: Vec<i64>,
    pub mult: Vec<i64>,
    pub vector: Vec<i64>,
    pub threads: Vec<bool>,
}

/// The convolution blocking one decision spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvKernel {
    pub mr: i64,
    pub nr: i64,
    pub vector: i64,
    pub threads: bool,
}

impl ConvKernel {
    /// The pass that applies this blocking.
    pub fn pass(&self) -> String {
        format!(
            "loop-conv-microkernel{{mr={} nr={} vector={} threads={}}}",
            self.mr,
            self.nr,
            self.vector,
            i64::from(self.threads)
        )
    }
}

impl ConvSpace {
    fn new(extents: Vec<i64>, target: &Target) -> ConvSpace {
        let lanes = target.lanes(4);
        let mut vector = vec![];
        let mut w = 4.min(lanes);
        while w <= lanes {
            vector.push(w);
            w *= 2;
        }
        ConvSpace {
            extents,
            vector_registers: target.vector_registers,
            mr: vec![1, 2, 3, 4, 5, 6, 7, 8, 10, 12],
            mult: vec![1, 2, 3, 4],
            vector,
            // Threads only matter on a target with more than one core.
            threads: if target.cores > 1 {
                vec![true, false]
            } else {
                vec![false]
            },
        }
    }

    fn sizes(&self) -> [usize; 4] {
        [
            self.mr.len(),
            self.mult.len(),
            self.vector.len(),
            self.threads.len(),
        ]
    }

    /// The blocking of `decision`, or why it is not a valid one.
    pub fn params(&self, decision: &[usize]) -> Result<ConvKernel, String> {
        let sizes = self.sizes();
        if decision.len() != sizes.len() || decision.iter().zip(sizes).any(|(&d, s)| d >= s) {
            return Err(format!(
                "decision {decision:?} is not one of the convolution space's (sizes {sizes:?})"
            ));
        }
        let (mr, mult, vector) = (
            self.mr[decision[0]],
            self.mult[decision[1]],
            self.vector[decision[2]],
        );
        let registers = mr * mult + mult + 1;
        if registers > self.vector_registers {
            return Err(format!(
                "{mr} x {mult} accumulators, {mult} weight vectors and a broadcast need {registers} vector registers, over {}",
                self.vector_registers
            ));
        }
        let nr = mult * vector;
        if nr > self.extents[0] {
            return Err(format!(
                "nr={nr} is more than the {} output channels",
                self.extents[0]
            ));
        }
        Ok(ConvKernel {
            mr,
            nr,
            vector,
            threads: self.threads[decision[3]],
        })
    }
}

/// The knobs of one task.
#[derive(Clone, Debug)]
pub enum Space {
    MicroKernel(MicroKernelSpace),
    Conv(ConvSpace),
    Schedule(KnobSpace),
    /// No knobs: the heuristic schedule is all there is.
    Fixed(String),
}

/// A task with its space, ready to be searched.
#[derive(Clone, Debug)]
pub struct TunableTask {
    pub task: Task,
    pub space: Space,
    /// What the task computes, for tables (`matmul 1x64x64x64`, `nest 2x8`).
    pub summary: String,
}

impl TunableTask {
    /// Whether the lowering accepts `decision`: it is applied, with the rest of the CPU
    /// pipeline, to a fresh copy of the task, as the measuring process will before it
    /// compiles; a decision refused here is never worth a trial.
    pub fn lowers(&self, decision: &[usize]) -> Result<(), String> {
        let (mut ctx, module) = parse_module(&self.task.ir)?;
        self.space.lower(&mut ctx, module, Some(decision))
    }
}

impl Space {
    /// The space of `task` on `target`: a matmul's micro-kernel parameters when the
    /// micro-kernel rewrites its nest, else its schedule knobs when `loop-apply-schedule`
    /// applies the default schedule to it, else none.
    pub fn of(task: &Task, target: &Target) -> Result<(Space, String), String> {
        let (mut ctx, module) = parse_module(&task.ir)?;
        let nest = task_nest(&ctx, module).ok_or("the task has no loop nest")?;
        if let Some((batch, m, n, k)) = matmul_shape(&ctx, nest) {
            let (mut probe, probe_module) = parse_module(&task.ir)?;
            run_pipeline(
                &mut probe,
                probe_module,
                "builtin.module(loop-matmul-microkernel{mr=1 nr=4 vector=4})",
            )?;
            if count_ops(&probe, probe_module, loop_::FMA) > 0 {
                return Ok((
                    Space::MicroKernel(MicroKernelSpace::new(batch, m, n, k, target)),
                    format!("matmul {batch}x{m}x{n}x{k}"),
                ));
            }
        }
        let shape = nest_of(&ctx, nest);
        if shape.extents.len() == 6
            && shape.reduction == [false, false, false, true, true, true]
            && is_conv(&task.ir, target)?
        {
            let e = &shape.extents;
            return Ok((
                Space::Conv(ConvSpace::new(shape.extents.clone(), target)),
                format!(
                    "conv {}x{}x{} c{} k{}x{}",
                    e[0], e[1], e[2], e[3], e[4], e[5]
                ),
            ));
        }
        // `nest 64x256 r512`: the spatial extents, then the reductions'.
        let extents = |reduction: bool| {
            (0..shape.extents.len())
                .filter(|&d| shape.reduction[d] == reduction)
                .map(|d| shape.extents[d].to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        let summary = match extents(true) {
            r if r.is_empty() => format!("nest {}", extents(false)),
            r => format!("nest {} r{r}", extents(false)),
        };
        // What `loop-default-schedule` attaches to the nest in the CPU pipeline.
        let schedule = loop_nest_schedule(&shape, target);
        set_schedule(&mut ctx, nest, &schedule);
        match run_pipeline(&mut ctx, module, "builtin.module(loop-apply-schedule)") {
            Ok(()) => Ok((
                Space::Schedule(KnobSpace::new(shape, target.clone(), 2)),
                summary,
            )),
            Err(why) => Ok((
                Space::Fixed(format!("the schedule does not apply: {why}")),
                summary,
            )),
        }
    }

    pub fn is_tunable(&self) -> bool {
        !matches!(self, Space::Fixed(_))
    }

    /// The number of choices of each knob.
    pub fn knob_sizes(&self) -> Vec<usize> {
        match self {
            Space::MicroKernel(s) => s.sizes().to_vec(),
            Space::Conv(s) => s.sizes().to_vec(),
            Space::Schedule(s) => s.knobs().iter().map(|k| k.len()).collect(),
            Space::Fixed(_) => vec![],
        }
    }

    /// A name for the space's kind, stored with records.
    pub fn kind(&self) -> &'static str {
        match self {
            Space::MicroKernel(_) => "microkernel",
            Space::Conv(_) => "conv",
            Space::Schedule(_) => "schedule",
            Space::Fixed(_) => "fixed",
        }
    }

    /// Why `decision` is invalid, if it is.
    pub fn validate(&self, decision: &[usize]) -> Result<(), String> {
        match self {
            Space::MicroKernel(s) => s.params(decision).map(|_| ()),
            Space::Conv(s) => s.params(decision).map(|_| ()),
            Space::Schedule(s) => {
                let schedule = s
                    .validate(decision)
                    .map_err(|v| v.iter().map(|v| v.0.clone()).collect::<Vec<_>>().join("; "))?;
                // Packing is the micro-kernel's, which did not take this nest:
                // `loop-apply-schedule` refuses it.
                if schedule.pack != Packing::None {
                    return Err(format!(
                        "packing ({}) needs the matmul micro-kernel, which does not rewrite this nest",
                        schedule.pack.keyword()
                    ));
                }
                Ok(())
            }
            Space::Fixed(why) => Err(why.clone()),
        }
    }

    /// The validity mask of generation: the choices of knob `prefix.len()` that some valid
    /// decision starting with `prefix` takes, ascending (empty when `prefix` is no valid
    /// decision's beginning, or is already whole). A decoder that picks each knob among
    /// these never reaches a dead end, and every decision it completes validates.
    ///
    /// Micro-kernel and convolution spaces are searched exhaustively (a handful of knobs).
    /// A schedule space is too large for that; a choice is kept when one of a few
    /// completions built to meet the constraints still open validates: every later tile
    /// level of a dimension already tiled is 1 and of the others the extent (the smallest
    /// register block, the widest innermost reduction tile), or every later level the
    /// extent; the first loop order, no threads, no unroll, no packing; and each vector
    /// width in turn (the one knob the register budget and the divisibility of the
    /// innermost tile both bind).
    pub fn allowed_values(&self, prefix: &[usize]) -> Vec<usize> {
        let sizes = self.knob_sizes();
        let Some(&size) = sizes.get(prefix.len()) else {
            return vec![];
        };
        let mut decision = prefix.to_vec();
        (0..size)
            .filter(|&choice| {
                decision.truncate(prefix.len());
                decision.push(choice);
                self.completable(&mut decision)
            })
            .collect()
    }

    /// Whether `partial` extends to a valid decision; `partial` is left as it was.
    fn completable(&self, partial: &mut Vec<usize>) -> bool {
        match self {
            Space::MicroKernel(_) | Space::Conv(_) => {
                let sizes = self.knob_sizes();
                let at = partial.len();
                if at == sizes.len() {
                    return self.validate(partial).is_ok();
                }
                let found = (0..sizes[at]).any(|choice| {
                    partial.push(choice);
                    let ok = self.completable(partial);
                    partial.pop();
                    ok
                });
                partial.truncate(at);
                found
            }
            Space::Schedule(s) => schedule_witnesses(s, partial)
                .into_iter()
                .any(|d| self.validate(&d).is_ok()),
            Space::Fixed(_) => false,
        }
    }

    /// A random valid decision.
    pub fn sample(&self, rng: &mut Rng) -> Option<Vec<usize>> {
        match self {
            Space::MicroKernel(s) => (0..200).find_map(|_| {
                let d: Vec<usize> = s.sizes().iter().map(|&n| rng.below(n)).collect();
                s.params(&d).is_ok().then_some(d)
            }),
            Space::Conv(s) => (0..200).find_map(|_| {
                let d: Vec<usize> = s.sizes().iter().map(|&n| rng.below(n)).collect();
                s.params(&d).is_ok().then_some(d)
            }),
            Space::Schedule(s) => {
                (0..50).find_map(|_| s.sample(rng, 200).filter(|d| self.validate(d).is_ok()))
            }
            Space::Fixed(_) => None,
        }
    }

    /// A valid decision that differs from `decision` in one knob.
    pub fn mutate(&self, decision: &[usize], rng: &mut Rng) -> Option<Vec<usize>> {
        match self {
            Space::Schedule(s) => (0..20).find_map(|_| {
                s.mutate(decision, rng, 50)
                    .filter(|d| self.validate(d).is_ok())
            }),
            Space::MicroKernel(_) | Space::Conv(_) => {
                let sizes = self.knob_sizes();
                (0..50).find_map(|_| {
                    let knob = rng.below(sizes.len());
                    if sizes[knob] < 2 {
                        return None;
                    }
                    let mut d = decision.to_vec();
                    d[knob] = rng.below(sizes[knob]);
                    (d != decision && self.validate(&d).is_ok()).then_some(d)
                })
            }
            Space::Fixed(_) => None,
        }
    }

    /// A valid child taking each knob from one of two parents (uniform crossover).
    pub fn crossover(&self, a: &[usize], b: &[usize], rng: &mut Rng) -> Option<Vec<usize>> {
        if a.len() != b.len() {
            return None;
        }
        (0..20).find_map(|_| {
            let child: Vec<usize> = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| if rng.below(2) == 0 { x } else { y })
                .collect();
            self.validate(&child).is_ok().then_some(child)
        })
    }

    /// The decision in words (`mr=4 nr=16 ...` or the `#loop.schedule` it spells).
    pub fn describe(&self, decision: &[usize]) -> String {
        match self {
            Space::MicroKernel(s) => match s.params(decision) {
                Ok(p) => format!(
                    "mr={} nr={} vector={} kc={} nc={} pack-rhs={}",
                    p.mr, p.nr, p.vector, p.kc, p.nc, p.pack_rhs
                ),
                Err(why) => format!("invalid: {why}"),
            },
            Space::Conv(s) => match s.params(decision) {
                Ok(p) => format!(
                    "conv mr={} nr={} vector={} threads={}",
                    p.mr, p.nr, p.vector, p.threads
                ),
                Err(why) => format!("invalid: {why}"),
            },
            Space::Schedule(s) => match s.schedule(decision) {
                Ok(schedule) => {
                    let mut body = String::new();
                    schedule.print(&mut body);
                    format!("#loop.schedule{body}")
                }
                Err(why) => format!("invalid: {}", why.0),
            },
            Space::Fixed(why) => format!("heuristic ({why})"),
        }
    }

    /// The decision as a token sequence ("tensor sentence"): one `knob=value` token per
    /// knob after the space's kind, for sequence models.
    pub fn tokens(&self, decision: &[usize]) -> Vec<String> {
        let mut out = vec![format!("space={}", self.kind())];
        match self {
            Space::MicroKernel(s) => {
                if let Ok(p) = s.params(decision) {
                    out.extend([
                        format!("mr={}", p.mr),
                        format!("nr={}", p.nr),
                        format!("vector={}", p.vector),
                        format!("kc={}", p.kc),
                        format!("nc={}", p.nc),
                        format!("pack-rhs={}", p.pack_rhs),
                    ]);
                }
            }
            Space::Conv(s) => {
                if let Ok(p) = s.params(decision) {
                    out.extend([
                        format!("mr={}", p.mr),
                        format!("nr={}", p.nr),
                        format!("vector={}", p.vector),
                        format!("threads={}", p.threads),
                    ]);
                }
            }
            Space::Schedule(s) => {
                for (knob, &choice) in s.knobs().iter().zip(decision) {
                    out.push(format!("{}={}", knob.name(), knob_value(knob, choice)));
                }
            }
            Space::Fixed(_) => {}
        }
        out
    }

    /// Numeric values of the decision (log2 of sizes, shares, flags), padded to
    /// [`DECISION_FEATURES`]: the decision part of a candidate's features. Each position
    /// means the same thing in every task of a kind, whatever its rank, so a ranker
    /// trained on some tasks reads another's decision by the same measures
    /// ([`schedule_features`] for `#loop.schedule` nests).
    pub fn decision_features(&self, decision: &[usize]) -> Vec<f64> {
        let mut out = Vec::with_capacity(DECISION_FEATURES);
        match self {
            Space::MicroKernel(s) => {
                if let Ok(p) = s.params(decision) {
                    out.extend(register_block_features(p.mr, p.nr, p.vector, s.m, s.n));
                    out.push((p.kc as f64).log2());
                    out.push((p.nc as f64).log2());
                    out.push(if p.pack_rhs { 1.0 } else { 0.0 });
                }
            }
            Space::Conv(s) => {
                if let Ok(p) = s.params(decision) {
                    // Pixels of a row play the matmul's rows, channels its columns.
                    let (channels, width) = (s.extents[0], s.extents[2]);
                    out.extend(register_block_features(
                        p.mr, p.nr, p.vector, width, channels,
                    ));
                    out.push(if p.threads { 1.0 } else { 0.0 });
                }
            }
            Space::Schedule(s) => {
                if let Ok(schedule) = s.schedule(decision) {
                    out.extend(schedule_features(s.nest(), &schedule));
                }
            }
            Space::Fixed(_) => {}
        }
        out.resize(DECISION_FEATURES, 0.0);
        out
    }

    /// The decision spelled by the heuristic schedule, where the space can express it.
    pub fn default_decision(&self) -> Option<Vec<usize>> {
        match self {
            Space::Schedule(s) => {
                let target = Target::host();
                s.decision_of(&loop_nest_schedule(s.nest(), &target))
            }
            _ => None,
        }
    }

    /// Applies `decision` (`None`: the heuristic) to a parsed task module and runs the rest
    /// of the CPU pipeline, leaving IR the CPU backend compiles.
    pub fn lower(
        &self,
        ctx: &mut Context,
        module: OpId,
        decision: Option<&[usize]>,
    ) -> Result<(), String> {
        self.transform(ctx, module, decision)?;
        run_pipeline(ctx, module, &format!("builtin.module({BACK_PIPELINE})"))
    }

    /// Applies `decision` (`None`: the heuristic) to a parsed task module: the scheduled
    /// loops the features describe, before buffer planning.
    pub fn transform(
        &self,
        ctx: &mut Context,
        module: OpId,
        decision: Option<&[usize]>,
    ) -> Result<(), String> {
        let Some(decision) = decision else {
            return run_pipeline(
                ctx,
                module,
                &format!("builtin.module({HEURISTIC_PIPELINE})"),
            );
        };
        self.validate(decision)?;
        match self {
            Space::MicroKernel(s) => {
                let params = s.params(decision)?;
                run_pipeline(ctx, module, &format!("builtin.module({})", params.pass()))
            }
            Space::Conv(s) => {
                let params = s.params(decision)?;
                // The channels left over by `nr` keep a plain nest, which the pipeline's
                // default schedule then schedules, as it does when a model is compiled.
                run_pipeline(
                    ctx,
                    module,
                    &format!(
                        "builtin.module({}, loop-default-schedule, loop-apply-schedule)",
                        params.pass()
                    ),
                )
            }
            Space::Schedule(s) => {
                let schedule = s.schedule(decision).map_err(|v| v.0)?;
                let nest = task_nest(ctx, module).ok_or("the task has no loop nest")?;
                set_schedule(ctx, nest, &schedule);
                run_pipeline(
                    ctx,
                    module,
                    "builtin.module(loop-apply-schedule, loop-matmul-microkernel)",
                )
            }
            Space::Fixed(why) => Err(why.clone()),
        }
    }

    /// Applies `decision` to one nest of a module being compiled (`tb-run --db`), in place:
    /// the nest is moved into a scratch module, transformed there and moved back, so the
    /// rest of the function is left to the pipeline's heuristics.
    pub fn apply_to_nest(
        &self,
        ctx: &mut Context,
        nest: OpId,
        decision: &[usize],
    ) -> Result<(), String> {
        self.validate(decision)?;
        let pipeline = match self {
            Space::MicroKernel(s) => format!("builtin.module({})", s.params(decision)?.pass()),
            Space::Conv(s) => format!("builtin.module({})", s.params(decision)?.pass()),
            Space::Schedule(s) => {
                let schedule = s.schedule(decision).map_err(|v| v.0)?;
                set_schedule(ctx, nest, &schedule);
                "builtin.module(loop-apply-schedule)".to_string()
            }
            Space::Fixed(why) => return Err(why.clone()),
        };
        let next = ctx.op(nest).next.ok_or("the nest has no op after it")?;
        let loc = ctx.op(nest).loc;
        let name = ctx.intern_op_name("builtin.module");
        let scratch = ctx.create_op(tb_ir::operation::OperationState {
            name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 1,
            properties: None,
            attributes: vec![],
            loc,
        });
        let block = ctx.create_block();
        ctx.append_block(ctx.op(scratch).regions[0], block);
        ctx.unlink_op(nest);
        ctx.append_op(block, nest);
        let result = run_pipeline(ctx, scratch, &pipeline);
        let moved: Vec<OpId> = ctx.block_ops(block).collect();
        for op in moved {
            ctx.unlink_op(op);
            ctx.insert_op_before(next, op);
        }
        ctx.erase_op(scratch);
        result
    }
}

/// Completions of `partial` in a schedule space that meet every constraint a completion
/// can still meet, if any does (see [`Space::allowed_values`]).
fn schedule_witnesses(s: &KnobSpace, partial: &[usize]) -> Vec<Vec<usize>> {
    use tb_passes::schedule::Knob;
    let knobs = s.knobs();
    let nest = s.nest();
    let untiled = |choices: &[i64], dim: usize| {
        choices
            .iter()
            .position(|&c| c >= nest.extents[dim])
            .unwrap_or(choices.len() - 1)
    };
    let mut out = Vec::new();
    for smallest_block in [true, false] {
        let mut base = partial.to_vec();
        let mut vector_knob = None;
        for (j, knob) in knobs.iter().enumerate().skip(partial.len()) {
            let choice = match knob {
                Knob::Tile { dim, choices, .. } => {
                    let tiled = knobs[..j].iter().zip(&base).any(|(k, &c)| {
                        matches!(k, Knob::Tile { dim: d, choices: cs, .. }
                            if d == dim && cs[c] < nest.extents[*dim])
                    });
                    match choices.iter().position(|&c| c == 1) {
                        Some(one) if smallest_block && tiled && !nest.reduction[*dim] => one,
                        _ => untiled(choices, *dim),
                    }
                }
                Knob::Vector(_) => {
                    vector_knob = Some(j);
                    0
                }
                Knob::Pack(c) => c.iter().position(|&p| p == Packing::None).unwrap_or(0),
                Knob::Order(_) | Knob::Parallel(_) | Knob::Unroll(_) => 0,
            };
            base.push(choice);
        }
        match vector_knob {
            Some(v) => out.extend((0..knobs[v].len()).map(|w| {
                let mut d = base.clone();
                d[v] = w;
                d
            })),
            None => out.push(base),
        }
    }
    out
}

/// The register block of a micro-kernel, `mr` rows by `nr` columns of `vector` lanes, on
/// `rows` by `columns` results, in the first positions of a matmul's and a convolution's
/// decision features alike (a convolution's block is `mr` pixels by `nr` channels), so what
/// a ranker learns about blocks on one kind carries to the other: log2 `mr`, `nr` and
/// `vector`, log2 blocks per row and per column, and the share of a block the rows and
/// columns left over after the last whole block fill.
fn register_block_features(mr: i64, nr: i64, vector: i64, rows: i64, columns: i64) -> Vec<f64> {
    let (mr, nr) = (mr.max(1), nr.max(1));
    vec![
        (mr as f64).log2(),
        (nr as f64).log2(),
        (vector.max(1) as f64).log2(),
        (rows as f64 / mr as f64).log2(),
        (columns as f64 / nr as f64).log2(),
        (rows % mr) as f64 / mr as f64,
        (columns % nr) as f64 / nr as f64,
    ]
}

/// The numbers of a `#loop.schedule` decision on `nest`, by what they do rather than by
/// knob position (a nest's knobs are laid out by its rank, so the third knob is a tile of
/// one nest and the order of another). The *last* dimension is the nest's innermost, the
/// one its row-major buffers walk contiguously; a *point* loop is a dimension's innermost
/// tile (its extent when untiled).
///
/// | index | feature |
/// |---|---|
/// | 0, 1 | log2 `vector`, log2 `unroll` |
/// | 2 | dimensions run in parallel |
/// | 3 | 1 when the order of the outer tile loops is not the nest's |
/// | 4 | outer tile loops inside the last dimension's (0: it stays innermost) |
/// | 5 | log2 trip of the last dimension's point loop |
/// | 6 | log2 extent of the last dimension |
/// | 7 | share of the dimensions with a tile that leaves a partial tile |
/// | 8 | tile levels per dimension |
/// | 9 | log2 elements of the point loops (product of their trips) |
/// | 10 | log2 elements of the outermost tiles |
/// | 11 | log2 (last point trip / vector): vector steps per point loop |
/// | 12 | 1 when the vector width does not divide the last point trip |
/// | 13 | log2 (vector × unroll): lanes per unrolled body |
/// | 14 | reduction dimensions that are tiled |
/// | 15 | 1 when the last dimension is a reduction |
pub fn schedule_features(nest: &tb_passes::schedule::Nest, schedule: &Schedule) -> Vec<f64> {
    let rank = nest.extents.len();
    if rank == 0 {
        return Vec::new();
    }
    let log2 = |x: f64| x.max(1.0).log2();
    let last = rank - 1;
    let point = |dim: usize| *schedule.tiles[dim].last().unwrap_or(&nest.extents[dim]);
    let order = schedule.effective_order();
    let last_position = order.iter().position(|&d| d == last).unwrap_or(last);
    let (mut partial, mut levels, mut point_elements, mut outer_elements, mut reductions_tiled) =
        (0.0, 0.0, 1.0, 1.0, 0.0);
    for dim in 0..rank {
        let mut outer = nest.extents[dim];
        let mut leaves_partial = false;
        for &tile in &schedule.tiles[dim] {
            leaves_partial |= tile <= 0 || outer % tile != 0;
            outer = tile;
            levels += 1.0;
        }
        if leaves_partial {
            partial += 1.0;
        }
        point_elements *= point(dim) as f64;
        outer_elements *= *schedule.tiles[dim].first().unwrap_or(&nest.extents[dim]) as f64;
        if nest.reduction[dim] && !schedule.tiles[dim].is_empty() {
            reductions_tiled += 1.0;
        }
    }
    let last_point = point(last);
    let vector = schedule.vector.max(1);
    let unroll = schedule.unroll.max(1);
    vec![
        log2(vector as f64),
        log2(unroll as f64),
        schedule.parallel.len() as f64,
        if order.iter().enumerate().all(|(i, &d)| i == d) {
            0.0
        } else {
            1.0
        },
        (order.len().saturating_sub(1).saturating_sub(last_position)) as f64,
        log2(last_point as f64),
        log2(nest.extents[last] as f64),
        partial / rank as f64,
        levels / rank as f64,
        log2(point_elements),
        log2(outer_elements),
        log2(last_point as f64 / vector as f64),
        if last_point % vector != 0 { 1.0 } else { 0.0 },
        log2((vector * unroll) as f64),
        reductions_tiled,
        if nest.reduction[last] { 1.0 } else { 0.0 },
    ]
}

/// Features of a decision: this many numbers.
pub const DECISION_FEATURES: usize = 24;

pub(crate) fn knob_value(knob: &tb_passes::schedule::Knob, choice: usize) -> String {
    use tb_passes::schedule::Knob;
    match knob {
        Knob::Tile { choices, .. } => choices[choice].to_string(),
        Knob::Order(c) | Knob::Parallel(c) => format!("{:?}", c[choice]),
        Knob::Vector(c) | Knob::Unroll(c) => c[choice].to_string(),
        Knob::Pack(c) => c[choice].keyword().to_string(),
    }
}

pub(crate) fn set_schedule(ctx: &mut Context, nest: OpId, schedule: &Schedule) {
    let attr = ctx.typed_attr_of(schedule.clone());
    let mut entries = ctx.dictionary_entries(ctx.op(nest).attributes).to_vec();
    entries.retain(|(n, _)| n != loop_::SCHEDULE_ATTR);
    entries.push((loop_::SCHEDULE_ATTR.to_string(), attr));
    ctx.op_mut(nest).attributes = ctx.dictionary_attr(entries);
}

fn count_ops(ctx: &Context, root: OpId, name: &str) -> usize {
    let mut n = 0;
    ctx.walk_nested(root, &mut |op| {
        if ctx.op_name(op) == name {
            n += 1;
        }
    });
    n
}

/// `(batch, m, n, k)` of a nest of the matmul form: a `loop.parallel` of rank >= 2 whose
/// body holds one `loop.for` reduction.
fn matmul_shape(ctx: &Context, nest: OpId) -> Option<(i64, i64, i64, i64)> {
    if ctx.op_name(nest) != loop_::PARALLEL {
        return None;
    }
    let dims = loop_::loop_dims(ctx, nest)?;
    if dims.len() < 2 {
        return None;
    }
    let extents: Vec<i64> = dims
        .iter()
        .map(|d| d.constant_trip_count())
        .collect::<Option<_>>()?;
    let body = loop_::body(ctx, nest)?;
    let inner = ctx
        .block_ops(body)
        .find(|&op| ctx.op_name(op) == loop_::FOR)?;
    let k = loop_::loop_dims(ctx, inner)?
        .first()?
        .constant_trip_count()?;
    let r = extents.len();
    Some((
        extents[..r - 2].iter().product(),
        extents[r - 2],
        extents[r - 1],
        k,
    ))
}

/// Whether `loop-conv-microkernel` rewrites the task's nest (a one-group convolution).
/// The probe blocks by the narrowest vector the knob space offers, so a convolution with
/// fewer output channels than the register has lanes is still recognised.
fn is_conv(ir: &str, target: &Target) -> Result<bool, String> {
    let (mut probe, module) = parse_module(ir)?;
    let lanes = target.lanes(4).min(4);
    let pass = format!(
        "builtin.module(loop-conv-microkernel{{mr=1 nr={lanes} vector={lanes} threads=0}})"
    );
    Ok(
        run_pipeline(&mut probe, module, &pass).is_ok()
            && count_ops(&probe, module, loop_::FMA) > 0,
    )
}

/// The [`Nest`] of a top-level loop: its perfectly nested loop headers, outermost first
/// (a `loop.parallel` contributes each of its dimensions, then those of the reduction
/// chain in its body), reductions where a loop carries values.
fn nest_of(ctx: &Context, nest: OpId) -> Nest {
    let mut extents = Vec::new();
    let mut reduction = Vec::new();
    let mut current = Some(nest);
    while let Some(op) = current {
        let Some(dims) = loop_::loop_dims(ctx, op) else {
            break;
        };
        let carries = !loop_::inits(ctx, op).is_empty();
        for d in &dims {
            extents.push(d.constant_trip_count().unwrap_or(1));
            reduction.push(carries);
        }
        current = loop_::body(ctx, op).and_then(|b| {
            let ops: Vec<OpId> = ctx.block_ops(b).collect();
            match ops.as_slice() {
                [inner, _yield] if loop_::is_loop(ctx, *inner) => Some(*inner),
                // A loop.parallel whose body computes with one chain of reduction loops
                // (a contraction, a convolution) and stores its result: the reductions are
                // dimensions of the nest too, as `loop-apply-schedule` sees it.
                _ if ctx.op_name(op) == loop_::PARALLEL => {
                    let mut carrying = ops
                        .iter()
                        .copied()
                        .filter(|&o| loop_::is_loop(ctx, o) && !loop_::inits(ctx, o).is_empty());
                    match (carrying.next(), carrying.next()) {
                        (Some(inner), None) => Some(inner),
                        _ => None,
                    }
                }
                _ => None,
            }
        });
    }
    if extents.is_empty() {
        extents.push(1);
        reduction.push(false);
    }
    Nest {
        extents,
        reduction,
        element_bytes: 4,
    }
}
