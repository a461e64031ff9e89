//! Applying a database when a model is compiled (`tb-run --db`): after the CPU pipeline's
//! front half, each top-level loop nest whose task has a successful record on this target
//! gets the best record's decision; the others are left to the heuristic schedule of the
//! rest of the pipeline.

use tb_ir::{Context, OpId};

use crate::database::Database;
use crate::space::Space;
use crate::target::TargetKey;
use crate::task::kernels;

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
    let mut out = Vec::new();
    let found = kernels(ctx, module);
    let mut index_in_function = std::collections::HashMap::<String, usize>::new();
    for kernel in found {
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
        let choice = match db.best(target, &task.key)? {
            None => "heuristic (no record for this task and target)".to_string(),
            Some(record) if record.decision.is_empty() => format!(
                "heuristic (its record: {:.3} ms, the fastest measured)",
                record.latency_s.unwrap_or(0.0) * 1e3
            ),
            Some(record) => {
                let (space, _) = Space::of(&task, &machine)?;
                match space.apply_to_nest(ctx, kernel.nest, &record.decision) {
                    Ok(()) => format!(
                        "record {} ({:.3} ms)",
                        record.description,
                        record.latency_s.unwrap_or(0.0) * 1e3
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
