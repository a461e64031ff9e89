//! Canonicalization patterns of `scf.parallel` beyond the empty loop, after MLIR 22's:
//! dimensions that run exactly once are dropped (their induction variable becomes the
//! lower bound; a loop left with no dimension is replaced by its body and its reductions
//! applied once to the initial values), and a loop whose body is only another
//! `scf.parallel` independent of it merges with it (when neither reduces).

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{RewritePattern, Rewriter};
use tb_ir::{BlockId, Location, OpId, Signedness, Type, Value};

use super::verify::constant_int;
use super::{PARALLEL, REDUCE, REDUCE_RETURN, parallel_operands};

/// The number of iterations of one dimension when it is known to be 0 or 1 (signed
/// bounds, as MLIR counts them); `None` for more or unknown.
fn zero_or_one_trip(ctx: &tb_ir::Context, lb: Value, ub: Value, step: Value) -> Option<u8> {
    if lb == ub {
        return Some(0);
    }
    let step = constant_int(ctx, step)?;
    if step <= 0 {
        return Some(0);
    }
    let (lo, hi) = (constant_int(ctx, lb)?, constant_int(ctx, ub)?);
    if hi <= lo {
        return Some(0);
    }
    (hi - lo <= step).then_some(1)
}

/// A new `scf.parallel` before `op` with the given bounds, steps and inits, `op`'s other
/// attributes kept, and an empty region.
fn create_parallel(
    rewriter: &mut Rewriter,
    op: OpId,
    bounds: [Vec<Value>; 3],
    inits: Vec<Value>,
    result_types: Vec<Type>,
) -> OpId {
    let ctx = rewriter.ctx_mut();
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    let sizes = [
        bounds[0].len(),
        bounds[1].len(),
        bounds[2].len(),
        inits.len(),
    ];
    let sizes = ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    });
    let data = ctx.op(op);
    let mut properties: Vec<(String, tb_ir::Attr)> = data
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    properties.retain(|(k, _)| k != "operandSegmentSizes");
    properties.push(("operandSegmentSizes".to_string(), sizes));
    let (name, loc) = (data.name, data.loc);
    let attributes = ctx.dictionary_entries(data.attributes).to_vec();
    let properties = Some(ctx.dictionary_attr(properties));
    let [lbs, ubs, steps] = bounds;
    let mut operands = lbs;
    operands.extend(ubs);
    operands.extend(steps);
    operands.extend(inits);
    rewriter.create_op_before(
        op,
        OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions: 1,
            properties,
            attributes,
            loc,
        },
    )
}

/// The type and location of each argument of `block`.
fn arg_types(rewriter: &Rewriter, block: BlockId, fallback: Location) -> Vec<(Type, Location)> {
    let ctx = rewriter.ctx();
    ctx.block(block)
        .args
        .iter()
        .map(|&a| (ctx.value_type(a), ctx.value(a).loc.unwrap_or(fallback)))
        .collect()
}

/// Moves every op of `from` to the end of `to`.
fn move_ops(rewriter: &mut Rewriter, from: BlockId, to: BlockId) {
    let ops: Vec<OpId> = rewriter.ctx().block_ops(from).collect();
    for inner in ops {
        rewriter.move_op_to_end(inner, to);
    }
}

/// Drops the dimensions of an `scf.parallel` that run exactly once.
pub(super) struct ParallelSingleIterationDims;

impl RewritePattern for ParallelSingleIterationDims {
    fn debug_name(&self) -> &'static str {
        "scf-parallel-single-iteration-dims"
    }
    fn root(&self) -> Option<&'static str> {
        Some(PARALLEL)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let [lbs, ubs, steps, inits] = parallel_operands(ctx, op).map(|g| g.to_vec());
        let Some(&region) = ctx.op(op).regions.first() else {
            return false;
        };
        let Some(body) = ctx.entry_block(region) else {
            return false;
        };
        let ivs = ctx.block(body).args.to_vec();
        if ivs.len() != lbs.len() || ctx.op(op).results.len() != inits.len() {
            return false;
        }
        let trips: Vec<Option<u8>> = (0..lbs.len())
            .map(|d| zero_or_one_trip(ctx, lbs[d], ubs[d], steps[d]))
            .collect();
        if trips.contains(&Some(0)) || !trips.contains(&Some(1)) {
            // Zero-trip loops are another pattern's; nothing to drop otherwise.
            return false;
        }
        let keep: Vec<usize> = (0..lbs.len()).filter(|&d| trips[d] != Some(1)).collect();
        if keep.is_empty() {
            return inline_single_iteration(rewriter, op, body, &lbs, &inits);
        }
        let pick = |v: &[Value]| keep.iter().map(|&d| v[d]).collect::<Vec<_>>();
        let result_types = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let loc = ctx.op(op).loc;
        let types = arg_types(rewriter, body, loc);
        let bounds = [pick(&lbs), pick(&ubs), pick(&steps)];
        let new_op = create_parallel(rewriter, op, bounds, inits, result_types);
        let new_region = rewriter.ctx().op(new_op).regions[0];
        let kept_types: Vec<_> = keep.iter().map(|&d| types[d]).collect();
        let new_body = rewriter.create_block(new_region, &kept_types);
        let new_ivs = rewriter.ctx().block(new_body).args.to_vec();
        for d in 0..ivs.len() {
            let to = match keep.iter().position(|&k| k == d) {
                Some(k) => new_ivs[k],
                None => lbs[d],
            };
            rewriter.replace_all_uses(ivs[d], to);
        }
        move_ops(rewriter, body, new_body);
        let results = rewriter.ctx().op(new_op).results.to_vec();
        rewriter.replace_op(op, &results);
        true
    }
}

/// Replaces an `scf.parallel` whose every dimension runs once by its body (induction
/// variables = lower bounds), each reduction combining the init with the reduced value.
fn inline_single_iteration(
    rewriter: &mut Rewriter,
    op: OpId,
    body: BlockId,
    lbs: &[Value],
    inits: &[Value],
) -> bool {
    let ctx = rewriter.ctx();
    let Some(reduce) = ctx.block(body).last.filter(|&t| ctx.op_name(t) == REDUCE) else {
        return false;
    };
    let reduced_count = ctx.op(reduce).operands.len();
    let reductions = ctx.op(reduce).regions.to_vec();
    if reduced_count != inits.len() || reductions.len() != inits.len() {
        return false;
    }
    // Check every reduction's shape before changing anything.
    let mut blocks = Vec::with_capacity(reductions.len());
    for &r in &reductions {
        let Some(block) = ctx.entry_block(r) else {
            return false;
        };
        let returns = ctx
            .block(block)
            .last
            .is_some_and(|t| ctx.op_name(t) == REDUCE_RETURN && ctx.op(t).operands.len() == 1);
        if ctx.region(r).blocks.len() != 1 || ctx.block(block).args.len() != 2 || !returns {
            return false;
        }
        blocks.push(block);
    }
    rewriter.inline_block_before(body, op, lbs);
    // The reduced values may have been induction variables, now the lower bounds.
    let reduced = rewriter.ctx().op(reduce).operands.to_vec();
    let mut results = Vec::with_capacity(inits.len());
    for (i, &block) in blocks.iter().enumerate() {
        let Some(terminator) = rewriter.ctx().block(block).last else {
            return false;
        };
        rewriter.inline_block_before(block, op, &[inits[i], reduced[i]]);
        results.push(rewriter.ctx().op(terminator).operands[0]);
        rewriter.erase_op(terminator);
    }
    rewriter.erase_op(reduce);
    rewriter.replace_op(op, &results);
    true
}

/// An `scf.parallel` whose body is only another `scf.parallel` (bounds independent of the
/// outer induction variables, no reductions in either) becomes one loop over both.
pub(super) struct MergeNestedParallel;

impl RewritePattern for MergeNestedParallel {
    fn debug_name(&self) -> &'static str {
        "scf-merge-nested-parallel"
    }
    fn root(&self) -> Option<&'static str> {
        Some(PARALLEL)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(outer_body) = ctx.op(op).regions.first().and_then(|&r| ctx.entry_block(r)) else {
            return false;
        };
        let Some(inner) = ctx.block(outer_body).first else {
            return false;
        };
        let terminator = ctx.op(inner).next;
        let single = ctx.op_name(inner) == PARALLEL
            && terminator.is_some_and(|t| ctx.block(outer_body).last == Some(t));
        if !single || !ctx.op(op).results.is_empty() || !ctx.op(inner).results.is_empty() {
            return false;
        }
        let [outer_lbs, outer_ubs, outer_steps, outer_inits] = parallel_operands(ctx, op);
        let [inner_lbs, inner_ubs, inner_steps, inner_inits] = parallel_operands(ctx, inner);
        if !outer_inits.is_empty() || !inner_inits.is_empty() {
            return false;
        }
        let outer_ivs = ctx.block(outer_body).args.to_vec();
        let depends = inner_lbs
            .iter()
            .chain(inner_ubs)
            .chain(inner_steps)
            .any(|v| outer_ivs.contains(v));
        let Some(inner_body) = ctx
            .op(inner)
            .regions
            .first()
            .and_then(|&r| ctx.entry_block(r))
        else {
            return false;
        };
        if depends {
            return false;
        }
        let concat = |a: &[Value], b: &[Value]| [a, b].concat();
        let bounds = [
            concat(outer_lbs, inner_lbs),
            concat(outer_ubs, inner_ubs),
            concat(outer_steps, inner_steps),
        ];
        let loc = ctx.op(op).loc;
        let mut types = arg_types(rewriter, outer_body, loc);
        types.extend(arg_types(rewriter, inner_body, loc));
        let new_op = create_parallel(rewriter, op, bounds, vec![], vec![]);
        let new_region = rewriter.ctx().op(new_op).regions[0];
        let new_body = rewriter.create_block(new_region, &types);
        let new_ivs = rewriter.ctx().block(new_body).args.to_vec();
        let inner_ivs = rewriter.ctx().block(inner_body).args.to_vec();
        for (&old, &new) in outer_ivs.iter().chain(&inner_ivs).zip(&new_ivs) {
            rewriter.replace_all_uses(old, new);
        }
        move_ops(rewriter, inner_body, new_body);
        rewriter.erase_op(op);
        true
    }
}
