//! The greedy pattern driver: visits ops from a worklist, removes dead pure ops, folds,
//! and applies the best matching pattern, until nothing changes or the iteration limit.

use super::pattern::{PatternSet, Rewriter};
use crate::context::Context;
use crate::operation::OpId;
use crate::registry::OpTraits;

/// Which ops the driver may visit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Any op, including ones patterns create and users of changed values.
    AnyOp,
    /// The ops present at the start plus the ones patterns create.
    ExistingAndNewOps,
    /// Only the ops present at the start.
    ExistingOps,
}

#[derive(Clone, Copy, Debug)]
pub struct GreedyConfig {
    /// Visit parents before the ops nested in them (else innermost first).
    pub top_down: bool,
    /// Full sweeps over the IR before giving up on reaching a fixed point.
    pub max_iterations: u32,
    pub strictness: Strictness,
    /// Use the ops' folders.
    pub fold: bool,
}

impl Default for GreedyConfig {
    fn default() -> GreedyConfig {
        GreedyConfig {
            top_down: true,
            max_iterations: 10,
            strictness: Strictness::AnyOp,
            fold: true,
        }
    }
}

/// What the driver did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GreedyResult {
    /// Whether the last sweep changed nothing.
    pub converged: bool,
    pub iterations: u32,
    pub changed: bool,
}

fn is_trivially_dead(ctx: &Context, op: OpId, traits: Option<OpTraits>) -> bool {
    let data = ctx.op(op);
    traits.is_some_and(|t| t.pure && !t.terminator)
        && data.regions.is_empty()
        && data.results.iter().all(|&r| ctx.value(r).uses.is_empty())
}

/// Applies `patterns` (and folding, and dead-op removal) to the ops nested under `root`.
pub fn apply_patterns_greedily(
    ctx: &mut Context,
    root: OpId,
    patterns: &PatternSet,
    config: &GreedyConfig,
) -> GreedyResult {
    let mut result = GreedyResult {
        converged: false,
        iterations: 0,
        changed: false,
    };
    let mut existing = std::collections::HashSet::new();
    if config.strictness != Strictness::AnyOp {
        ctx.walk_nested(root, &mut |op| {
            existing.insert(op);
        });
    }
    while result.iterations < config.max_iterations {
        result.iterations += 1;
        let mut order = Vec::new();
        ctx.walk_nested(root, &mut |op| order.push(op));
        if !config.top_down {
            order.reverse();
        }
        // A stack popped from the end: reverse so the first op in `order` comes out first.
        let mut worklist: Vec<OpId> = order.into_iter().rev().collect();
        let mut changed = false;
        while let Some(op) = worklist.pop() {
            if ctx.op(op).erased
                || (config.strictness != Strictness::AnyOp && !existing.contains(&op))
            {
                continue;
            }
            let traits = ctx.op_traits(op);
            let mut rewriter = Rewriter::new(ctx);
            if is_trivially_dead(rewriter.ctx(), op, traits) {
                rewriter.erase_op(op);
            } else if let Some(values) = fold(rewriter.ctx(), op, config) {
                rewriter.replace_op(op, &values);
            } else {
                let name = rewriter.ctx().op_name(op).to_string();
                for pattern in patterns.for_op(&name) {
                    if pattern.match_and_rewrite(op, &mut rewriter) {
                        break;
                    }
                }
            }
            let (touched, did_change) = (std::mem::take(&mut rewriter.touched), rewriter.changed);
            if did_change {
                changed = true;
                for t in touched {
                    if ctx.op(t).erased {
                        continue;
                    }
                    if config.strictness == Strictness::ExistingAndNewOps {
                        existing.insert(t);
                    }
                    worklist.push(t);
                }
            }
        }
        result.changed |= changed;
        if !changed {
            result.converged = true;
            break;
        }
    }
    result
}

fn fold(ctx: &Context, op: OpId, config: &GreedyConfig) -> Option<Vec<crate::Value>> {
    if !config.fold {
        return None;
    }
    let folder = ctx.op_info(ctx.op_name(op))?.fold?;
    let values = folder(ctx, op)?;
    // A fold to the op's own results would loop forever.
    (values.as_slice() != ctx.op(op).results.as_slice()).then_some(values)
}
