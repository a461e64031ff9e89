//! The greedy pattern driver: visits ops from a worklist, removes dead pure ops, folds,
//! and applies the best matching pattern, until nothing changes or the iteration limit.

use super::folder::{ConstantFolder, constant_operands};
use super::pattern::{PatternSet, Rewriter};
use crate::context::Context;
use crate::operation::OpId;
use crate::registry::FoldResult;
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
    traits.is_some_and(|t| (t.pure || t.removable_if_unused) && !t.terminator)
        && data.regions.is_empty()
        && data.results.iter().all(|&r| ctx.value(r).uses.is_empty())
}

/// Applies `patterns` (and folding, and dead-op removal) to the ops nested under `root`.
/// Constants are uniqued per insertion region and kept at the front of its entry block.
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
    let mut folder = ConstantFolder::default();
    while result.iterations < config.max_iterations {
        result.iterations += 1;
        let mut changed = false;
        let mut order = Vec::new();
        ctx.walk_nested(root, &mut |op| order.push(op));
        if !config.top_down {
            order = post_order(ctx, root);
        }
        // Known constants are uniqued as the worklist is built, in walk order, so a
        // constant's first occurrence is the one kept.
        let mut worklist = Vec::with_capacity(order.len());
        for op in order {
            if ctx.op(op).erased {
                continue;
            }
            if config.fold && folder.insert_known_constant(ctx, op) {
                changed = true;
                continue;
            }
            worklist.push(op);
        }
        // A stack popped from the end: reverse so the first op in walk order comes first.
        worklist.reverse();
        while let Some(op) = worklist.pop() {
            if ctx.op(op).erased
                || (config.strictness != Strictness::AnyOp && !existing.contains(&op))
            {
                continue;
            }
            let traits = ctx.op_traits(op);
            let has_patterns = patterns.applies_to(ctx.op_name(op));
            let mut created = Vec::new();
            let mut rewriter = Rewriter::new(ctx);
            if is_trivially_dead(rewriter.ctx(), op, traits) {
                folder.notify_erased(op);
                rewriter.erase_op(op);
            } else if let Some(values) = fold(&mut folder, &mut rewriter, op, config, &mut created)
            {
                rewriter.replace_op(op, &values);
            } else if config.fold
                && traits.is_some_and(|t| t.commutative && !t.constant_like)
                && move_constants_right(&mut rewriter, op)
            {
                rewriter.touched.push(op);
            } else if has_patterns {
                let name = rewriter.ctx().op_name(op).to_string();
                for pattern in patterns.for_op(&name) {
                    if pattern.match_and_rewrite(op, &mut rewriter) {
                        break;
                    }
                }
            }
            let (mut touched, did_change) =
                (std::mem::take(&mut rewriter.touched), rewriter.changed);
            touched.extend(created);
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

/// Ops under `root`, children before parents.
fn post_order(ctx: &Context, root: OpId) -> Vec<OpId> {
    let mut pre = Vec::new();
    ctx.walk_nested(root, &mut |op| pre.push(op));
    // Reversed pre-order visits children before parents but siblings last-first; MLIR's
    // post-order keeps siblings in order, so rebuild it per block.
    let mut out = Vec::with_capacity(pre.len());
    fn visit(ctx: &Context, op: OpId, out: &mut Vec<OpId>) {
        let mut stack: Vec<(OpId, bool)> = vec![(op, false)];
        while let Some((op, expanded)) = stack.pop() {
            if expanded {
                out.push(op);
                continue;
            }
            stack.push((op, true));
            for &region in ctx.op(op).regions.iter().rev() {
                for &block in ctx.region(region).blocks.iter().rev() {
                    let ops: Vec<OpId> = ctx.block_ops(block).collect();
                    for inner in ops.into_iter().rev() {
                        stack.push((inner, false));
                    }
                }
            }
        }
    }
    for &region in ctx.op(root).regions.iter() {
        for &block in &ctx.region(region).blocks {
            for op in ctx.block_ops(block).collect::<Vec<_>>() {
                visit(ctx, op, &mut out);
            }
        }
    }
    out
}

/// Folds `op` to values, materializing constant results; constant-like ops are not
/// folded (they would fold to themselves).
fn fold(
    folder: &mut ConstantFolder,
    rewriter: &mut Rewriter,
    op: OpId,
    config: &GreedyConfig,
    created: &mut Vec<OpId>,
) -> Option<Vec<crate::Value>> {
    if !config.fold {
        return None;
    }
    let ctx = rewriter.ctx();
    let info = ctx.op_info_of(op)?;
    if info.traits.constant_like {
        return None;
    }
    let fold_fn = info.fold?;
    let constants = constant_operands(ctx, op);
    let results = fold_fn(ctx, op, &constants)?;
    if results.len() != ctx.op(op).results.len() {
        return None;
    }
    // A fold to the op's own results would loop forever.
    let own = &ctx.op(op).results;
    if results
        .iter()
        .zip(own.iter())
        .all(|(r, &v)| *r == FoldResult::Value(v))
    {
        return None;
    }
    let values = folder.materialize(rewriter.ctx_mut(), op, &results, created)?;
    if !created.is_empty() {
        rewriter.changed = true;
    }
    Some(values)
}

/// Moves constant operands of a commutative op after the others, keeping their order.
fn move_constants_right(rewriter: &mut Rewriter, op: OpId) -> bool {
    let ctx = rewriter.ctx();
    let constants = constant_operands(ctx, op);
    let operands = ctx.op(op).operands.to_vec();
    if operands.len() < 2 {
        return false;
    }
    let mut sorted: Vec<(usize, crate::Value)> = operands.iter().copied().enumerate().collect();
    sorted.sort_by_key(|(i, _)| constants[*i].is_some());
    let reordered: Vec<crate::Value> = sorted.into_iter().map(|(_, v)| v).collect();
    if reordered == operands {
        return false;
    }
    let ctx = rewriter.ctx_mut();
    for (i, v) in reordered.into_iter().enumerate() {
        ctx.set_operand(op, i, v);
    }
    rewriter.changed = true;
    true
}
