//! Applying a database when a model is compiled (`tb-run --db`): after the CPU pipeline's
//! front half, each top-level loop nest whose task has a successful record on this target
//! gets the best record's decision; the others are left to the heuristic schedule of the
//! rest of the pipeline.
//!
//! A task is measured alone, but `loop-fuse` later fuses many small nests of a model with
//! their neighbours (a bias add into the matmul before it, a softmax's stages into one
//! nest), and a schedule tuned for the nest alone can keep it from fusing: its loops no
//! longer match its neighbour's. The encoder, tuned for 300 trials, compiled to 90 kernels
//! instead of 54 and ran slower than with no database. So a record of a nest's schedule
//! (`#loop.schedule` knobs) is applied only to a nest that the heuristic schedules leave
//! unfused: the rest of the pipeline is first run, up to `loop-fuse`, on a copy of the
//! module, and a nest whose stores end up in a kernel with another nest's (or with a
//! micro-kernel's), or nowhere (inlined into its consumers), keeps the heuristic. A
//! matmul's record (micro-kernel parameters) is tried the same way, on all the nests of
//! its task at once, and kept only when no nest fused before is left unfused and the
//! model has no more kernels (the encoder's batched attention matmuls, tuned, had kept
//! four nests apart). A convolution's record (its register blocking) is tried on a copy
//! too and kept only when the model has no more kernels: the heuristic blocking computes
//! the convolution's relu in its kernel, a record's blocking can leave it to a kernel of
//! its own (ResNet-18's stride-2 convolutions, tuned, ran their relus apart and the model
//! 0.5 to 1.5 ms slower).

use std::collections::{HashMap, HashSet};

use tb_dialects::loop_;
use tb_ir::attributes::AttrKind;
use tb_ir::{Context, OpId};

use crate::database::Database;
use crate::space::Space;
use crate::target::TargetKey;
use crate::task::{function_nests, kernels, run_pipeline};

/// The discardable attribute the probe marks each kernel's stores with: its index.
const KERNEL_MARK: &str = "tb.tune_kernel";

/// The rest of the CPU pipeline up to and with `loop-fuse`, every nest on its heuristic
/// schedule (`tb_passes::pipelines::CPU` between the front half and `plan-buffers`).
const FUSING_PIPELINE: &str = "builtin.module(loop-matmul-microkernel, loop-int-matmul-microkernel, loop-conv-microkernel, loop-default-schedule, loop-apply-schedule, loop-fuse)";

/// What one kernel got.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// `@function#nest`.
    pub kernel: String,
    pub task_key: Option<String>,
    /// `record <description> (<latency>)` or `heuristic (<why>)`.
    pub choice: String,
}

/// Applies the best record of each kernel of `module` (at the loop level) on `target`.
pub fn apply_records(
    ctx: &mut Context,
    module: OpId,
    db: &Database,
    target: &TargetKey,
) -> Result<Vec<Explanation>, String> {
    // The target's own spaces: its records index knobs built for its vector registers.
    let machine = target.machine().schedule_target();
    let found = kernels(ctx, module);
    // Each kernel's best record and space, looked up before any nest changes.
    let mut chosen = Vec::with_capacity(found.len());
    for kernel in &found {
        let best = match &kernel.task {
            Some(task) => db.best(target, &task.key)?,
            None => None,
        };
        let space = match (&kernel.task, &best) {
            (Some(task), Some(record)) if !record.decision.is_empty() => {
                Some(Space::of(task, &machine)?.0)
            }
            _ => None,
        };
        chosen.push((best, space));
    }
    let any_record = chosen.iter().any(|(_, space)| space.is_some());
    // Without the probe (the rest of the pipeline failing on the copy: it will fail on
    // the module too, and say why), every record applies as it would alone.
    let probe = if any_record {
        fused_nests(ctx, module, found.len(), &[]).ok()
    } else {
        None
    };
    let (fused, heuristic_kernels) = probe.unwrap_or_else(|| (vec![false; found.len()], 0));
    // A matmul's or a convolution's record, measured alone, can keep a neighbour from
    // fusing into its kernel (another blocking, other loops): each task's record is tried
    // on a copy, on all of the task's nests at once, and kept only when every nest fused
    // before still is and the model has no more kernels than with the heuristic schedules.
    let mut breaks_fusion: HashMap<String, Result<usize, String>> = HashMap::new();
    let mut tried: HashSet<String> = HashSet::new();
    for (kernel, (best, space)) in found.iter().zip(&chosen) {
        let (Some(task), Some(record), Some(space @ (Space::MicroKernel(_) | Space::Conv(_)))) =
            (&kernel.task, best, space)
        else {
            continue;
        };
        // A convolution kernel's own stores (its packing, its transposition) leave no
        // nest's mark, so whether its nest counts as fused varies with the blocking; the
        // kernel count is what says an epilogue was split off.
        let counts_lost = matches!(space, Space::MicroKernel(_));
        if heuristic_kernels == 0 || !tried.insert(task.key.clone()) {
            continue;
        }
        let records: Vec<(usize, &Space, &[usize])> = found
            .iter()
            .zip(&chosen)
            .enumerate()
            .filter(|(_, (k, _))| k.task.as_ref().is_some_and(|t| t.key == task.key))
            .filter_map(|(i, (_, (_, space)))| {
                space.as_ref().map(|sp| (i, sp, record.decision.as_slice()))
            })
            .collect();
        match fused_nests(ctx, module, found.len(), &records) {
            Ok((with, kernels_with)) => {
                let lost = if counts_lost {
                    fused.iter().zip(&with).filter(|&(&f, &w)| f && !w).count()
                } else {
                    0
                };
                let more = kernels_with.saturating_sub(heuristic_kernels);
                if lost > 0 || more > 0 {
                    breaks_fusion.insert(task.key.clone(), Ok(lost.max(more)));
                }
            }
            Err(why) => {
                breaks_fusion.insert(task.key.clone(), Err(why));
            }
        }
    }
    let mut out = Vec::new();
    let mut index_in_function = HashMap::<String, usize>::new();
    for ((kernel, (best, space)), fused) in found.into_iter().zip(chosen).zip(fused) {
        let n = index_in_function
            .entry(kernel.function.clone())
            .or_default();
        let name = format!("@{}#{}", kernel.function, *n);
        *n += 1;
        let Some(task) = kernel.task else {
            out.push(Explanation {
                kernel: name,
                task_key: None,
                choice: "heuristic (the nest is not a task)".into(),
            });
            continue;
        };
        let latency = |ms: Option<f64>| ms.unwrap_or(0.0) * 1e3;
        let choice = match (best, space) {
            (None, _) => "heuristic (no record for this task and target)".to_string(),
            (Some(record), None) => format!(
                "heuristic (its record: {:.3} ms, the fastest measured)",
                latency(record.latency_s)
            ),
            (Some(record), Some(Space::MicroKernel(_) | Space::Conv(_)))
                if breaks_fusion.contains_key(&task.key) =>
            {
                match &breaks_fusion[&task.key] {
                    Ok(nests) => format!(
                        "heuristic (its record {}, {:.3} ms measured alone, keeps {nests} nest(s) of the model from fusing)",
                        record.description,
                        latency(record.latency_s),
                    ),
                    Err(why) => format!("heuristic (the record does not apply: {why})"),
                }
            }
            (Some(record), Some(Space::Schedule(_))) if fused => format!(
                "heuristic (fused with its neighbours under the heuristic schedules; its record {}, {:.3} ms, was measured alone)",
                record.description,
                latency(record.latency_s)
            ),
            (Some(record), Some(space)) => {
                match space.apply_to_nest(ctx, kernel.nest, &record.decision) {
                    Ok(()) => format!(
                        "record {} ({:.3} ms)",
                        record.description,
                        latency(record.latency_s)
                    ),
                    Err(why) => format!("heuristic (the record does not apply: {why})"),
                }
            }
        };
        out.push(Explanation {
            kernel: name,
            task_key: Some(task.key),
            choice,
        });
    }
    Ok(out)
}

/// The top-level loop nests of `module`'s functions, in the order of [`kernels`].
fn top_level_nests(ctx: &Context, module: OpId) -> Vec<OpId> {
    function_nests(ctx, module)
        .into_iter()
        .flat_map(|(_, nests)| nests)
        .collect()
}

fn is_store(ctx: &Context, op: OpId) -> bool {
    matches!(
        ctx.op_name(op),
        loop_::STORE | loop_::VECTOR_STORE | "memref.store"
    )
}

/// Marks every store inside `nest` with `index` (a discardable attribute).
fn mark_stores(ctx: &mut Context, nest: OpId, index: usize) {
    let mut stores = Vec::new();
    ctx.walk_nested(nest, &mut |op| {
        if is_store(ctx, op) {
            stores.push(op);
        }
    });
    let index_ty = ctx.index_type();
    let mark = ctx.intern_attr(AttrKind::Integer {
        ty: index_ty,
        value: index as i128,
    });
    for op in stores {
        let mut entries = ctx.dictionary_entries(ctx.op(op).attributes).to_vec();
        entries.retain(|(n, _)| n != KERNEL_MARK);
        entries.push((KERNEL_MARK.to_string(), mark));
        let dict = ctx.dictionary_attr(entries);
        ctx.op_mut(op).attributes = dict;
    }
}

/// What the rest of the pipeline makes of `module` with `records` (nest index, space,
/// decision) applied to their nests and the heuristic schedules elsewhere: which of its
/// `count` top-level nests (in [`kernels`]' order) are fused, and how many kernels there
/// are. On a copy of the module whose stores carry their nest's index, the rest of the
/// pipeline runs up to `loop-fuse`; a nest is fused when a kernel of the copy holds its
/// stores and another nest's, or stores no nest made (a micro-kernel's), or when none
/// holds its stores (inlined into its consumers).
fn fused_nests(
    ctx: &mut Context,
    module: OpId,
    count: usize,
    records: &[(usize, &Space, &[usize])],
) -> Result<(Vec<bool>, usize), String> {
    let probe = ctx.clone_op(module, &mut HashMap::new());
    let result = probe_fusion(ctx, probe, count, records);
    ctx.erase_op(probe);
    result
}

fn probe_fusion(
    ctx: &mut Context,
    probe: OpId,
    count: usize,
    records: &[(usize, &Space, &[usize])],
) -> Result<(Vec<bool>, usize), String> {
    let nests = top_level_nests(ctx, probe);
    if nests.len() != count {
        return Err("the copy of the module has other kernels than the module".into());
    }
    for (index, &nest) in nests.iter().enumerate() {
        mark_stores(ctx, nest, index);
    }
    for &(index, space, decision) in records {
        space.apply_to_nest(ctx, nests[index], decision)?;
    }
    run_pipeline(ctx, probe, FUSING_PIPELINE)
        .map_err(|why| format!("the rest of the pipeline fails on the model: {why}"))?;
    let mut fused = vec![true; count];
    let kernels = top_level_nests(ctx, probe);
    let kernel_count = kernels.len();
    for kernel in kernels {
        let mut marks: HashSet<usize> = HashSet::new();
        let mut unmarked = false;
        ctx.walk_nested(kernel, &mut |op| {
            if !is_store(ctx, op) {
                return;
            }
            match ctx
                .op_attr(op, KERNEL_MARK)
                .map(|a| ctx.attr_kind(a).clone())
            {
                Some(AttrKind::Integer { value, .. }) => {
                    marks.insert(value as usize);
                }
                _ => unmarked = true,
            }
        });
        let alone = marks.len() == 1 && !unmarked;
        for index in marks {
            if index < count {
                fused[index] = !alone;
            }
        }
    }
    Ok((fused, kernel_count))
}
