//! The canonicalizations MLIR 22 gives every region-branching scf op (`scf.for`, `scf.if`,
//! `scf.index_switch`, `scf.execute_region`) through its `RegionBranchOpInterface`, over
//! the op's *successor inputs*: the values control flow defines on entering a region or
//! leaving the op (an `scf.for`'s iter_args and results, the other ops' results). Each
//! input receives one *successor operand* from each control-flow predecessor (the op's
//! init operand, the `scf.yield`s reaching it).
//!
//! - an input whose every predecessor (looking through other inputs) gives the same value
//!   defined before it is replaced by that value;
//! - two inputs of the same op or block that get the same value from every predecessor
//!   are merged (uses of the later one go to the earlier one);
//! - a set of inputs that must go together (an `scf.for`'s iter_arg and its result) is
//!   removed, with its operands, when all its members are unused.

use std::collections::{HashMap, HashSet};

use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, RegionId, Value};

use super::{EXECUTE_REGION, FOR, IF, INDEX_SWITCH, YIELD, for_inits};

/// Adds the three patterns for the op named `root`.
pub(crate) fn add_patterns(patterns: &mut PatternSet, root: &'static str) {
    patterns.add(Box::new(ForwardSingleReachable { root }));
    patterns.add(Box::new(MergeDuplicateInputs { root }));
    patterns.add(Box::new(RemoveDeadInputs { root }));
}

/// One successor input: the value, the set it is tied to (all members go together), and
/// the value each predecessor (an op: the region op itself or an `scf.yield`) gives it.
struct Input {
    value: Value,
    set: usize,
    operands: Vec<(OpId, Value)>,
}

/// The `scf.yield`s ending the blocks of `region`.
fn region_yields(ctx: &Context, region: RegionId) -> Vec<OpId> {
    ctx.region(region)
        .blocks
        .iter()
        .filter_map(|&b| ctx.block(b).last)
        .filter(|&t| ctx.op_name(t) == YIELD)
        .collect()
}

/// The successor inputs of `op`, or `None` when its structure is not the expected one (a
/// malformed op is left alone).
fn successor_inputs(ctx: &Context, op: OpId) -> Option<Vec<Input>> {
    let results = ctx.op(op).results.to_vec();
    match ctx.op_name(op) {
        FOR => {
            let region = *ctx.op(op).regions.first()?;
            let block = ctx.entry_block(region)?;
            let yields = region_yields(ctx, region);
            let [terminator] = yields[..] else {
                return None;
            };
            let inits = for_inits(ctx, op);
            let args = &ctx.block(block).args;
            let yielded = &ctx.op(terminator).operands;
            if args.len() != inits.len() + 1
                || yielded.len() != inits.len()
                || results.len() != inits.len()
            {
                return None;
            }
            let mut inputs = Vec::new();
            for i in 0..inits.len() {
                // The loop may run zero times: the results also receive the inits.
                let operands = vec![(op, inits[i]), (terminator, yielded[i])];
                for value in [args[i + 1], results[i]] {
                    inputs.push(Input {
                        value,
                        set: i,
                        operands: operands.clone(),
                    });
                }
            }
            Some(inputs)
        }
        IF | INDEX_SWITCH | EXECUTE_REGION => {
            if results.is_empty() {
                return Some(Vec::new());
            }
            let mut yields = Vec::new();
            for &region in &ctx.op(op).regions {
                yields.extend(region_yields(ctx, region));
            }
            if yields.is_empty()
                || yields
                    .iter()
                    .any(|&y| ctx.op(y).operands.len() != results.len())
            {
                return None;
            }
            Some(
                results
                    .iter()
                    .enumerate()
                    .map(|(i, &value)| Input {
                        value,
                        set: i,
                        operands: yields.iter().map(|&y| (y, ctx.op(y).operands[i])).collect(),
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

/// The op whose region directly holds `value` (for a block argument or a result).
fn enclosing_op(ctx: &Context, value: Value) -> Option<OpId> {
    let block = match ctx.value(value).def {
        ValueDef::Result { op, .. } => ctx.op(op).parent?,
        ValueDef::BlockArgument { block, .. } => block,
        ValueDef::Placeholder => return None,
    };
    ctx.region(ctx.block(block).parent?).parent
}

/// The values (other than successor inputs) that `input` may hold, following successor
/// operands that are themselves inputs.
fn reachable_values(inputs: &[Input], index: usize) -> HashSet<Value> {
    let by_value: HashMap<Value, usize> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| (x.value, i))
        .collect();
    let mut reachable = HashSet::new();
    let mut visited = HashSet::new();
    let mut work = vec![inputs[index].value];
    while let Some(next) = work.pop() {
        let Some(&i) = by_value.get(&next) else {
            reachable.insert(next);
            continue;
        };
        for &(_, operand) in &inputs[i].operands {
            if visited.insert(operand) {
                work.push(operand);
            }
        }
    }
    reachable
}

/// Whether `candidate` (a reachable value of the input `input` of `op`) is in scope where
/// `input` is: anything defined outside `op` is; inside, only an argument of the same block.
fn usable_for(ctx: &Context, op: OpId, candidate: Value, input: Value) -> bool {
    if enclosing_op(ctx, candidate) != Some(op) {
        return true;
    }
    match (ctx.value(candidate).def, ctx.value(input).def) {
        (ValueDef::BlockArgument { block: a, .. }, ValueDef::BlockArgument { block: b, .. }) => {
            a == b
        }
        _ => false,
    }
}

/// An input that can only ever hold one value defined before it is replaced by it.
struct ForwardSingleReachable {
    root: &'static str,
}

impl RewritePattern for ForwardSingleReachable {
    fn debug_name(&self) -> &'static str {
        "scf-forward-single-reachable-value"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some(inputs) = successor_inputs(rewriter.ctx(), op) else {
            return false;
        };
        let mut changed = false;
        for index in 0..inputs.len() {
            let value = inputs[index].value;
            let ctx = rewriter.ctx();
            if ctx.value(value).uses.is_empty() {
                continue;
            }
            let reachable = reachable_values(&inputs, index);
            let mut only = reachable.iter();
            let (Some(&replacement), None) = (only.next(), only.next()) else {
                continue;
            };
            if !usable_for(ctx, op, replacement, value) {
                continue;
            }
            rewriter.replace_all_uses(value, replacement);
            changed = true;
        }
        changed
    }
}

/// Two inputs of one op (or one block) given the same value by every predecessor: uses of
/// the later one go to the earlier one.
struct MergeDuplicateInputs {
    root: &'static str,
}

/// What defines a value: an op (its results) or a block (its arguments).
#[derive(PartialEq)]
enum Owner {
    Op(OpId),
    Block(tb_ir::BlockId),
    /// A forward reference the parser has not resolved (never in a verified module).
    Unresolved,
}

/// The owner of `value` and its position among the owner's results or arguments.
fn owner(ctx: &Context, value: Value) -> (Owner, u32) {
    match ctx.value(value).def {
        ValueDef::Result { op, index } => (Owner::Op(op), index),
        ValueDef::BlockArgument { block, index } => (Owner::Block(block), index),
        ValueDef::Placeholder => (Owner::Unresolved, 0),
    }
}

impl RewritePattern for MergeDuplicateInputs {
    fn debug_name(&self) -> &'static str {
        "scf-merge-duplicate-successor-inputs"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some(mut inputs) = successor_inputs(rewriter.ctx(), op) else {
            return false;
        };
        inputs.sort_by_key(|x| owner(rewriter.ctx(), x.value).1);
        let mut changed = false;
        for i in 0..inputs.len() {
            for j in i + 1..inputs.len() {
                let ctx = rewriter.ctx();
                let (first, second) = (&inputs[i], &inputs[j]);
                if ctx.value(second.value).uses.is_empty() {
                    continue;
                }
                let (a, b) = (owner(ctx, first.value).0, owner(ctx, second.value).0);
                if a != b || a == Owner::Unresolved {
                    continue;
                }
                let gives =
                    |x: &Input| -> HashMap<OpId, Value> { x.operands.iter().copied().collect() };
                if gives(first) == gives(second) {
                    let (from, to) = (second.value, first.value);
                    rewriter.replace_all_uses(from, to);
                    changed = true;
                }
            }
        }
        changed
    }
}

/// Sets of inputs whose members are all unused are removed with their operands.
struct RemoveDeadInputs {
    root: &'static str,
}

impl RewritePattern for RemoveDeadInputs {
    fn debug_name(&self) -> &'static str {
        "scf-remove-dead-successor-inputs"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inputs) = successor_inputs(ctx, op) else {
            return false;
        };
        let sets = inputs.iter().map(|x| x.set + 1).max().unwrap_or(0);
        let mut live = vec![false; sets];
        for input in &inputs {
            live[input.set] |= !ctx.value(input.value).uses.is_empty();
        }
        let keep: Vec<usize> = (0..sets).filter(|&s| live[s]).collect();
        if keep.len() == sets {
            return false;
        }
        if ctx.op_name(op) == FOR {
            rebuild_for(rewriter, op, &keep);
        } else {
            rebuild_with_results(rewriter, op, &keep);
        }
        true
    }
}

/// Replaces the `scf.yield`s of `region` by ones giving only the operands at `keep`.
fn narrow_yields(rewriter: &mut Rewriter, region: RegionId, keep: &[usize]) {
    for terminator in region_yields(rewriter.ctx(), region) {
        let operands = rewriter.ctx().op(terminator).operands.to_vec();
        let kept = keep.iter().map(|&i| operands[i]).collect();
        let name = rewriter.ctx_mut().intern_op_name(YIELD);
        let loc = rewriter.ctx().op(terminator).loc;
        rewriter.create_op_before(
            terminator,
            OperationState {
                name,
                operands: kept,
                result_types: vec![],
                successors: vec![],
                num_regions: 0,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        rewriter.erase_op(terminator);
    }
}

/// A copy of `op` before it with the given operands and result types, its attributes kept
/// and no regions filled yet.
fn create_like(
    rewriter: &mut Rewriter,
    op: OpId,
    operands: Vec<Value>,
    result_types: Vec<tb_ir::Type>,
) -> OpId {
    let ctx = rewriter.ctx();
    let data = ctx.op(op);
    let state = OperationState {
        name: data.name,
        operands,
        result_types,
        successors: vec![],
        num_regions: data.regions.len(),
        properties: data.properties,
        attributes: ctx.dictionary_entries(data.attributes).to_vec(),
        loc: data.loc,
    };
    rewriter.create_op_before(op, state)
}

/// Rebuilds an op whose results are fed by `scf.yield`s (`scf.if`, `scf.index_switch`,
/// `scf.execute_region`) with only the results at `keep`.
fn rebuild_with_results(rewriter: &mut Rewriter, op: OpId, keep: &[usize]) {
    let ctx = rewriter.ctx();
    let results = ctx.op(op).results.to_vec();
    let types = keep.iter().map(|&i| ctx.value_type(results[i])).collect();
    let operands = ctx.op(op).operands.to_vec();
    let old_regions = ctx.op(op).regions.to_vec();
    let new_op = create_like(rewriter, op, operands, types);
    let new_regions = rewriter.ctx().op(new_op).regions.to_vec();
    for (&old, &new) in old_regions.iter().zip(&new_regions) {
        rewriter.inline_region_before(old, new, None);
        narrow_yields(rewriter, new, keep);
    }
    let new_results = rewriter.ctx().op(new_op).results.to_vec();
    for (k, &i) in keep.iter().enumerate() {
        rewriter.replace_all_uses(results[i], new_results[k]);
    }
    rewriter.erase_op(op);
}

/// Rebuilds an `scf.for` with only the loop-carried values at `keep` (inits, iter_args,
/// yielded values and results).
fn rebuild_for(rewriter: &mut Rewriter, op: OpId, keep: &[usize]) {
    let ctx = rewriter.ctx();
    let results = ctx.op(op).results.to_vec();
    let operands = ctx.op(op).operands.to_vec();
    let region = ctx.op(op).regions[0];
    let Some(old_block) = ctx.entry_block(region) else {
        return;
    };
    let old_args = ctx.block(old_block).args.to_vec();
    let arg_types: Vec<_> = old_args
        .iter()
        .map(|&a| {
            (
                ctx.value_type(a),
                ctx.value(a).loc.unwrap_or(ctx.op(op).loc),
            )
        })
        .collect();
    let mut new_operands = operands[..3].to_vec();
    new_operands.extend(keep.iter().map(|&i| operands[3 + i]));
    let types = keep.iter().map(|&i| ctx.value_type(results[i])).collect();
    let new_op = create_like(rewriter, op, new_operands, types);
    let new_region = rewriter.ctx().op(new_op).regions[0];
    let mut new_args = vec![arg_types[0]];
    new_args.extend(keep.iter().map(|&i| arg_types[i + 1]));
    let new_block = rewriter.create_block(new_region, &new_args);
    let new_block_args = rewriter.ctx().block(new_block).args.to_vec();
    // Removed iter_args are unused; their init stands in for them while the ops move.
    let mut mapping = vec![new_block_args[0]];
    let mut kept = keep.iter().zip(&new_block_args[1..]).peekable();
    for i in 0..old_args.len() - 1 {
        match kept.peek() {
            Some(&(&k, &arg)) if k == i => {
                mapping.push(arg);
                kept.next();
            }
            _ => mapping.push(operands[3 + i]),
        }
    }
    // Move the body's ops into the new block (before a placeholder-free end: append).
    rewriter.inline_region_before(region, new_region, None);
    let ops: Vec<OpId> = rewriter.ctx().block_ops(old_block).collect();
    for (&param, &arg) in old_args.iter().zip(&mapping) {
        rewriter.replace_all_uses(param, arg);
    }
    for inner in ops {
        rewriter.move_op_to_end(inner, new_block);
    }
    rewriter.ctx_mut().erase_blocks(new_region, &[old_block]);
    narrow_yields(rewriter, new_region, keep);
    let new_results = rewriter.ctx().op(new_op).results.to_vec();
    for (k, &i) in keep.iter().enumerate() {
        rewriter.replace_all_uses(results[i], new_results[k]);
    }
    rewriter.erase_op(op);
}
