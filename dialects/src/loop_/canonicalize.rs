//! Canonicalization of loops, as MLIR's `scf.for` canonicalizes:
//!
//! - a loop with a dimension of zero trip count runs nothing: it is replaced by its inits
//!   (a loop without results is simply erased);
//! - an iter_arg that the body yields unchanged keeps its initial value: its uses and the
//!   loop's result become the init, and the loop stops carrying it;
//! - a loop whose body does nothing (only its terminator) goes away: without results at
//!   any bounds, and with results, when it runs at least once and yields values defined
//!   outside it, which then are its results.

use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{AttrKind, OpId, Value};

use super::{FOR, PARALLEL};

struct EraseEmptyLoop {
    root: &'static str,
}

impl RewritePattern for EraseEmptyLoop {
    fn debug_name(&self) -> &'static str {
        "EraseEmptyLoop"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(dims) = super::loop_dims(ctx, op) else {
            return false;
        };
        let trip_counts: Vec<Option<i64>> = dims.iter().map(|d| d.constant_trip_count()).collect();
        let inits = super::inits(ctx, op).to_vec();
        if inits.len() != ctx.op(op).results.len() {
            return false;
        }
        if trip_counts.contains(&Some(0)) {
            rewriter.replace_op(op, &inits);
            return true;
        }
        let Some(body) = super::body(ctx, op) else {
            return false;
        };
        let block = ctx.block(body);
        if block.first != block.last {
            return false;
        }
        if inits.is_empty() {
            rewriter.erase_op(op);
            return true;
        }
        // Results: the yielded values, when the body ran and they come from outside.
        let runs = trip_counts.iter().all(|t| t.is_some_and(|t| t > 0));
        let yielded = super::yielded(ctx, op);
        let from_outside = yielded.iter().all(|v| !block.args.contains(v));
        if !runs || !from_outside || yielded.len() != inits.len() {
            return false;
        }
        rewriter.replace_op(op, &yielded);
        true
    }
}

/// Drops the iter_args a `loop.for` yields unchanged: they equal their init throughout.
struct FoldUnchangedIterArgs;

impl RewritePattern for FoldUnchangedIterArgs {
    fn debug_name(&self) -> &'static str {
        "FoldUnchangedIterArgs"
    }

    fn root(&self) -> Option<&'static str> {
        Some(FOR)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let iter_args = super::iter_args(ctx, op);
        let yielded = super::yielded(ctx, op);
        let inits = super::inits(ctx, op).to_vec();
        let results = ctx.op(op).results.to_vec();
        if iter_args.len() != inits.len()
            || yielded.len() != inits.len()
            || results.len() != inits.len()
        {
            return false;
        }
        let keep: Vec<bool> = iter_args
            .iter()
            .zip(&yielded)
            .map(|(arg, next)| arg != next)
            .collect();
        if keep.iter().all(|&k| k) {
            return false;
        }
        for (i, &kept) in keep.iter().enumerate() {
            if !kept {
                rewriter.replace_all_uses(iter_args[i], inits[i]);
                rewriter.replace_all_uses(results[i], inits[i]);
            }
        }
        rebuild_carrying(rewriter, op, &keep);
        true
    }
}

/// Replaces `op`, a `loop.for` whose dropped iter_args and results have no uses left, by
/// one that carries only the values `keep` marks; the body moves over to the new loop.
fn rebuild_carrying(rewriter: &mut Rewriter, op: OpId, keep: &[bool]) {
    let ctx = rewriter.ctx();
    let data = ctx.op(op);
    let body = super::body(ctx, op).expect("checked by the caller");
    let (lowers, uppers) = (
        tb_ir::ods::operand_group(ctx, op, 0).to_vec(),
        tb_ir::ods::operand_group(ctx, op, 1).to_vec(),
    );
    let kept = |values: &[Value]| -> Vec<Value> {
        values
            .iter()
            .zip(keep)
            .filter(|&(_, &k)| k)
            .map(|(&v, _)| v)
            .collect()
    };
    let inits = kept(super::inits(ctx, op));
    let results = kept(&data.results);
    let iter_args = kept(&super::iter_args(ctx, op));
    let result_types = results.iter().map(|&r| ctx.value_type(r)).collect();
    let terminator = ctx.block(body).last.expect("a verified loop body");
    let next = kept(&ctx.op(terminator).operands);
    let (name, loc, attributes) = (data.name, data.loc, data.attributes);
    let attributes = ctx.dictionary_entries(attributes).to_vec();
    let mut properties: Vec<(String, tb_ir::Attr)> = data
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    let induction_var = ctx.block(body).args[0];
    let yield_name = ctx.op(terminator).name;
    let yield_loc = ctx.op(terminator).loc;

    let i32_ty = rewriter
        .ctx_mut()
        .integer_type(32, tb_ir::Signedness::Signless);
    let sizes = rewriter.ctx_mut().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: tb_ir::attributes::DenseArrayData::Int(vec![
            lowers.len() as i128,
            uppers.len() as i128,
            inits.len() as i128,
        ]),
    });
    properties.retain(|(k, _)| k != "operandSegmentSizes");
    properties.push(("operandSegmentSizes".into(), sizes));
    let properties = rewriter.ctx_mut().dictionary_attr(properties);
    let mut operands = lowers;
    operands.extend(uppers);
    operands.extend(inits);
    let new_loop = rewriter.create_op_before(
        op,
        OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions: 1,
            properties: Some(properties),
            attributes,
            loc,
        },
    );
    // The new body: the same induction variable type and the kept iter_args, then the ops.
    let ctx = rewriter.ctx_mut();
    let new_body = ctx.create_block();
    ctx.append_block(ctx.op(new_loop).regions[0], new_body);
    let mut moved_args = vec![(induction_var, new_body)];
    moved_args.extend(iter_args.iter().map(|&a| (a, new_body)));
    let mut new_args = Vec::with_capacity(moved_args.len());
    for (old, block) in moved_args {
        let (ty, arg_loc) = (ctx.value_type(old), ctx.value(old).loc);
        new_args.push((old, ctx.add_block_argument(block, ty, arg_loc)));
    }
    for inner in ctx.block_ops(body).collect::<Vec<_>>() {
        if inner == terminator {
            break;
        }
        ctx.unlink_op(inner);
        ctx.append_op(new_body, inner);
    }
    let new_yield = ctx.create_op(OperationState {
        name: yield_name,
        operands: next,
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc: yield_loc,
    });
    ctx.append_op(new_body, new_yield);
    for (old, new) in new_args {
        rewriter.replace_all_uses(old, new);
    }
    let new_results = rewriter.ctx().op(new_loop).results.to_vec();
    for (old, new) in results.into_iter().zip(new_results) {
        rewriter.replace_all_uses(old, new);
    }
    rewriter.erase_op(op);
}

pub(crate) fn for_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseEmptyLoop { root: FOR }));
    patterns.add(Box::new(FoldUnchangedIterArgs));
}

pub(crate) fn parallel_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseEmptyLoop { root: PARALLEL }));
}
