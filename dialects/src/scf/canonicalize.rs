//! Canonicalization patterns of the `scf` ops, after MLIR's: ops whose results are unused
//! and whose bodies have no side effects go away, conditionals on constants and loops that
//! run zero or one time are replaced by their region's ops, `scf.if` results nobody uses
//! and empty `else` regions are dropped, and single-block `scf.execute_region`s are
//! inlined.

use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Context, OpId, RegionId, TypeKind, Value};

use super::canonicalize_if::{IfConditionPropagation, IfYieldsToSelect};
use super::canonicalize_parallel::{MergeNestedParallel, ParallelSingleIterationDims};
use super::successor_values;
use super::verify::constant_int;
use super::{
    EXECUTE_REGION, FOR, IF, INDEX_SWITCH, PARALLEL, REDUCE, WHILE, YIELD, for_bounds, for_inits,
    for_is_unsigned, parallel_operands, switch_cases,
};

pub(crate) fn for_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead { root: FOR }));
    patterns.add(Box::new(ForTrivialTripCount));
    successor_values::add_patterns(patterns, FOR);
}

pub(crate) fn if_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead { root: IF }));
    patterns.add(Box::new(IfConstantCondition));
    patterns.add(Box::new(IfRemoveUnusedResults));
    patterns.add(Box::new(IfRemoveEmptyElse));
    patterns.add(Box::new(IfConditionPropagation));
    patterns.add(Box::new(IfYieldsToSelect));
    successor_values::add_patterns(patterns, IF);
}

pub(crate) fn while_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead { root: WHILE }));
}

pub(crate) fn execute_region_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead {
        root: EXECUTE_REGION,
    }));
    patterns.add(Box::new(InlineExecuteRegion));
    successor_values::add_patterns(patterns, EXECUTE_REGION);
}

pub(crate) fn index_switch_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead { root: INDEX_SWITCH }));
    patterns.add(Box::new(IndexSwitchConstant));
    successor_values::add_patterns(patterns, INDEX_SWITCH);
}

pub(crate) fn parallel_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseDead { root: PARALLEL }));
    patterns.add(Box::new(ParallelZeroTrip));
    patterns.add(Box::new(ParallelSingleIterationDims));
    patterns.add(Box::new(MergeNestedParallel));
}

/// Moves the ops of `region`'s single block before `op`, its arguments replaced by `args`,
/// and replaces `op`'s results by what its `scf.yield` gives (MLIR's
/// `replaceOpWithRegion`). Fails, changing nothing, unless the block ends in an
/// `scf.yield` of one value per result and takes one argument per value of `args`.
fn replace_with_region(
    rewriter: &mut Rewriter,
    op: OpId,
    region: RegionId,
    args: &[Value],
) -> bool {
    let ctx = rewriter.ctx();
    let Some(block) = ctx.entry_block(region) else {
        return false;
    };
    let Some(terminator) = ctx.block(block).last else {
        return false;
    };
    if ctx.region(region).blocks.len() != 1
        || ctx.op_name(terminator) != YIELD
        || ctx.op(terminator).operands.len() != ctx.op(op).results.len()
        || ctx.block(block).args.len() != args.len()
    {
        return false;
    }
    rewriter.inline_block_before(block, op, args);
    let yielded = rewriter.ctx().op(terminator).operands.to_vec();
    rewriter.erase_op(terminator);
    rewriter.replace_op(op, &yielded);
    true
}

/// Whether running the ops nested in `op` has no effect but computing values (reads and
/// allocations of their own results allowed), so that `op` may go when its results are
/// unused, as MLIR's `RecursiveMemoryEffects` ops do.
fn body_is_effect_free(ctx: &Context, op: OpId) -> bool {
    let mut free = true;
    ctx.walk_nested(op, &mut |inner| {
        let scf_region_op = matches!(
            ctx.op_name(inner),
            FOR | IF | WHILE | EXECUTE_REGION | INDEX_SWITCH | PARALLEL | REDUCE
        );
        let harmless = ctx
            .op_traits(inner)
            .is_some_and(|t| t.pure || t.removable_if_unused);
        free &= scf_region_op || harmless;
    });
    free
}

/// An scf op whose results are unused and whose regions have no side effects.
struct EraseDead {
    root: &'static str,
}

impl RewritePattern for EraseDead {
    fn debug_name(&self) -> &'static str {
        "scf-erase-dead"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let unused = ctx
            .op(op)
            .results
            .iter()
            .all(|&r| ctx.value(r).uses.is_empty());
        if !unused || !body_is_effect_free(ctx, op) {
            return false;
        }
        rewriter.erase_op(op);
        true
    }
}

/// `a < b` for two constants of `value`'s type, signed or unsigned.
fn less_than(ctx: &Context, of: Value, a: i128, b: i128, unsigned: bool) -> bool {
    if !unsigned {
        return a < b;
    }
    let width = match ctx.type_kind(ctx.value_type(of)) {
        TypeKind::Integer { width, .. } => *width,
        _ => 64,
    };
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    (a as u128 & mask) < (b as u128 & mask)
}

/// `scf.for` that runs no iteration gives its inits; one that runs exactly one is replaced
/// by its body, with the lower bound as induction variable.
struct ForTrivialTripCount;

impl RewritePattern for ForTrivialTripCount {
    fn debug_name(&self) -> &'static str {
        "scf-for-trivial-trip-count"
    }
    fn root(&self) -> Option<&'static str> {
        Some(FOR)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((lb, ub, step)) = for_bounds(ctx, op) else {
            return false;
        };
        let inits = for_inits(ctx, op).to_vec();
        if inits.len() != ctx.op(op).results.len() {
            return false;
        }
        let unsigned = for_is_unsigned(ctx, op);
        let (lo, hi) = (constant_int(ctx, lb), constant_int(ctx, ub));
        let empty = lb == ub
            || matches!((lo, hi), (Some(lo), Some(hi)) if !less_than(ctx, lb, lo, hi, unsigned));
        if empty {
            rewriter.replace_op(op, &inits);
            return true;
        }
        let (Some(lo), Some(hi), Some(s)) = (lo, hi, constant_int(ctx, step)) else {
            return false;
        };
        if s <= 0 {
            return false;
        }
        let Some(&region) = ctx.op(op).regions.first() else {
            return false;
        };
        // More than one iteration (lb + step < ub): an empty body yielding only values
        // defined outside the loop gives those values.
        if less_than(ctx, lb, lo.saturating_add(s), hi, unsigned) {
            let Some(block) = ctx.entry_block(region) else {
                return false;
            };
            let Some(terminator) = ctx.block(block).last else {
                return false;
            };
            let yielded = ctx.op(terminator).operands.to_vec();
            let body_args = &ctx.block(block).args;
            let only_outside = ctx.block(block).first == Some(terminator)
                && ctx.op_name(terminator) == YIELD
                && yielded.len() == ctx.op(op).results.len()
                && yielded.iter().all(|v| !body_args.contains(v));
            if !only_outside {
                return false;
            }
            rewriter.replace_op(op, &yielded);
            return true;
        }
        // One iteration: lb < ub <= lb + step.
        let mut args = vec![lb];
        args.extend(inits);
        replace_with_region(rewriter, op, region, &args)
    }
}

/// `scf.if` on a constant runs one known region (or nothing).
struct IfConstantCondition;

impl RewritePattern for IfConstantCondition {
    fn debug_name(&self) -> &'static str {
        "scf-if-constant-condition"
    }
    fn root(&self) -> Option<&'static str> {
        Some(IF)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(condition) = constant_int(ctx, ctx.op(op).operands[0]) else {
            return false;
        };
        let [then_region, else_region] = ctx.op(op).regions[..] else {
            return false;
        };
        let region = if condition != 0 {
            then_region
        } else {
            else_region
        };
        if ctx.region(region).blocks.is_empty() {
            if !ctx.op(op).results.is_empty() {
                return false;
            }
            rewriter.erase_op(op);
            return true;
        }
        replace_with_region(rewriter, op, region, &[])
    }
}

/// Replaces the `scf.yield` ending `region` by one giving only the operands at `keep`.
fn narrow_yield(rewriter: &mut Rewriter, region: RegionId, keep: &[usize]) {
    let ctx = rewriter.ctx();
    let Some(terminator) = ctx.entry_block(region).and_then(|b| ctx.block(b).last) else {
        return;
    };
    if ctx.op_name(terminator) != YIELD {
        return;
    }
    let operands = ctx.op(terminator).operands.to_vec();
    let kept = keep
        .iter()
        .filter_map(|&i| operands.get(i).copied())
        .collect();
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

/// `scf.if` results nobody uses are no longer yielded.
struct IfRemoveUnusedResults;

impl RewritePattern for IfRemoveUnusedResults {
    fn debug_name(&self) -> &'static str {
        "scf-if-remove-unused-results"
    }
    fn root(&self) -> Option<&'static str> {
        Some(IF)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let results = ctx.op(op).results.to_vec();
        let keep: Vec<usize> = (0..results.len())
            .filter(|&i| !ctx.value(results[i]).uses.is_empty())
            .collect();
        if keep.len() == results.len() {
            return false;
        }
        let data = ctx.op(op);
        let state = OperationState {
            name: data.name,
            operands: data.operands.to_vec(),
            result_types: keep.iter().map(|&i| ctx.value_type(results[i])).collect(),
            successors: vec![],
            num_regions: 2,
            properties: data.properties,
            attributes: ctx.dictionary_entries(data.attributes).to_vec(),
            loc: data.loc,
        };
        let old_regions = data.regions.to_vec();
        let new_if = rewriter.create_op_before(op, state);
        let new_regions = rewriter.ctx().op(new_if).regions.to_vec();
        for (&old, &new) in old_regions.iter().zip(&new_regions) {
            rewriter.inline_region_before(old, new, None);
            narrow_yield(rewriter, new, &keep);
        }
        let new_results = rewriter.ctx().op(new_if).results.to_vec();
        for (k, &i) in keep.iter().enumerate() {
            rewriter.replace_all_uses(results[i], new_results[k]);
        }
        rewriter.erase_op(op);
        true
    }
}

/// An `else` region holding only `scf.yield` (of an `scf.if` without results) is dropped.
struct IfRemoveEmptyElse;

impl RewritePattern for IfRemoveEmptyElse {
    fn debug_name(&self) -> &'static str {
        "scf-if-remove-empty-else"
    }
    fn root(&self) -> Option<&'static str> {
        Some(IF)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        if !ctx.op(op).results.is_empty() {
            return false;
        }
        let Some(&else_region) = ctx.op(op).regions.get(1) else {
            return false;
        };
        let blocks = ctx.region(else_region).blocks.to_vec();
        let [block] = blocks[..] else {
            return false;
        };
        let only_yield = ctx.block(block).first == ctx.block(block).last
            && ctx
                .block(block)
                .last
                .is_some_and(|t| ctx.op_name(t) == YIELD);
        if !only_yield {
            return false;
        }
        // Erasing the yield through the rewriter records the change for the driver.
        if let Some(terminator) = rewriter.ctx().block(block).last {
            rewriter.erase_op(terminator);
        }
        rewriter.ctx_mut().erase_blocks(else_region, &blocks);
        true
    }
}

/// A single-block `scf.execute_region` (not marked `no_inline`) is replaced by its ops.
struct InlineExecuteRegion;

impl RewritePattern for InlineExecuteRegion {
    fn debug_name(&self) -> &'static str {
        "scf-execute-region-inline"
    }
    fn root(&self) -> Option<&'static str> {
        Some(EXECUTE_REGION)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        if ctx.op_inherent_or_attr(op, "no_inline").is_some() {
            return false;
        }
        let Some(&region) = ctx.op(op).regions.first() else {
            return false;
        };
        replace_with_region(rewriter, op, region, &[])
    }
}

/// `scf.index_switch` on a constant runs the region of the matching case (or the default).
struct IndexSwitchConstant;

impl RewritePattern for IndexSwitchConstant {
    fn debug_name(&self) -> &'static str {
        "scf-index-switch-constant"
    }
    fn root(&self) -> Option<&'static str> {
        Some(INDEX_SWITCH)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(value) = constant_int(ctx, ctx.op(op).operands[0]) else {
            return false;
        };
        let regions = ctx.op(op).regions.to_vec();
        let index = switch_cases(ctx, op)
            .iter()
            .position(|&case| i128::from(case) == value)
            .map_or(0, |case| case + 1);
        let Some(&region) = regions.get(index) else {
            return false;
        };
        replace_with_region(rewriter, op, region, &[])
    }
}

/// `scf.parallel` with a dimension of no iteration gives its initial values.
struct ParallelZeroTrip;

impl RewritePattern for ParallelZeroTrip {
    fn debug_name(&self) -> &'static str {
        "scf-parallel-zero-trip"
    }
    fn root(&self) -> Option<&'static str> {
        Some(PARALLEL)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let [lower, upper, _, inits] = parallel_operands(ctx, op);
        let empty = lower.iter().zip(upper).any(|(&lb, &ub)| {
            lb == ub
                || matches!((constant_int(ctx, lb), constant_int(ctx, ub)),
                    (Some(lo), Some(hi)) if lo >= hi)
        });
        if !empty || inits.len() != ctx.op(op).results.len() {
            return false;
        }
        let inits = inits.to_vec();
        rewriter.replace_op(op, &inits);
        true
    }
}
