//! Run-time control flow on tensors (`scf.if`, `scf.for`, `scf.while`) on buffers.
//!
//! The conversion itself changes only types, in place ([`ScfOnTensors`]): the ops' tensor
//! operands, results and region arguments become memrefs, so the `te.compute`s in their
//! regions are lowered like any other (their buffers allocated in the region's block).
//! Afterwards ([`settle`]) each tensor a control-flow op gives or carries gets one buffer of
//! its own, allocated before the op and owned by the block around it, and no memref crosses
//! a region boundary any more:
//!
//! - `scf.if`: each branch leaves its value in the result's buffer. A buffer the branch
//!   allocated itself is replaced by the result's buffer (its nest writes there directly);
//!   anything else (an input, a constant, a buffer from outside) is copied in.
//! - `scf.for`: the loop-carried buffer starts as a copy of the initial value; the body
//!   reads it and, at its end, copies what it yields into it. The body's `te.compute`s
//!   always write fresh buffers, so the value being read is never overwritten while read;
//!   yields that swap carried values go through a temporary.
//! - `scf.while`: likewise, one buffer per value the 'before' region receives (copied at
//!   the 'after' region's yield) and one per value `scf.condition` passes on (copied at the
//!   condition), the two being one buffer when the condition passes its argument on
//!   unchanged.
//!
//! Scalars (conditions, indices, integers and floats) stay values of the ops. The buffers a
//! region allocates are freed in that region after their last use (see
//! [`super::allocation`]); the buffers of the control-flow ops belong to the enclosing
//! block like any `te.compute`'s, so `plan-buffers` sees their whole live range at the op.

use std::collections::{HashMap, HashSet};

use tb_dialects::{loop_, scf};
use tb_ir::operation::OperationState;
use tb_ir::rewrite::conversion::{ConversionPattern, ConversionRewriter, PatternRoots};
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::builder::Builder;
use super::legality;

/// The scf ops whose tensors this conversion puts in buffers.
pub(super) const ON_TENSORS: [&str; 5] =
    [scf::IF, scf::FOR, scf::WHILE, scf::YIELD, scf::CONDITION];

/// `scf.if`/`scf.for`/`scf.while` and their terminators: tensor operands, results and
/// region arguments become memrefs in place.
pub(super) struct ScfOnTensors;

impl ConversionPattern for ScfOnTensors {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(ON_TENSORS.to_vec())
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        legality::check_types(rewriter.ctx(), op)?;
        legality::check_control_flow(rewriter.ctx(), op)?;
        for (index, &value) in operands.iter().enumerate() {
            rewriter.set_operand(op, index, value);
        }
        let mut values: Vec<Value> = rewriter.ctx().op(op).results.to_vec();
        let regions = rewriter.ctx().op(op).regions.to_vec();
        for region in regions {
            for &block in &rewriter.ctx().region(region).blocks.clone() {
                values.extend(rewriter.ctx().block(block).args.iter().copied());
            }
        }
        for value in values {
            let ty = rewriter.ctx().value_type(value);
            let converted = rewriter.convert_type(ty);
            rewriter.set_value_type(value, converted);
        }
        Ok(())
    }
}

fn is_buffer(ctx: &Context, value: Value) -> bool {
    matches!(
        ctx.type_kind(ctx.value_type(value)),
        TypeKind::MemRef { .. }
    )
}

/// Gives every buffer that `function`'s `scf.if`/`scf.for`/`scf.while` ops yield or carry a
/// buffer of its own (see the module comment), innermost ops first. `allocations` (the
/// buffers the function's blocks own) gains the new buffers and loses those replaced.
pub(super) fn settle(ctx: &mut Context, function: OpId, allocations: &mut Vec<Value>) {
    let mut ops = Vec::new();
    ctx.walk_nested(function, &mut |op| {
        if matches!(ctx.op_name(op), scf::IF | scf::FOR | scf::WHILE) {
            ops.push(op);
        }
    });
    // Reversed pre-order visits an op's nested ops before it.
    for op in ops.into_iter().rev() {
        match ctx.op_name(op) {
            scf::IF => settle_if(ctx, op, allocations),
            scf::FOR => settle_for(ctx, op, allocations),
            _ => settle_while(ctx, op, allocations),
        }
    }
}

/// The positions of `values` that are buffers.
fn buffer_positions(ctx: &Context, values: &[Value]) -> Vec<usize> {
    (0..values.len())
        .filter(|&i| is_buffer(ctx, values[i]))
        .collect()
}

/// The terminator of `block` (an `scf.yield` or `scf.condition`).
fn terminator(ctx: &Context, block: BlockId) -> OpId {
    ctx.block_terminator(block)
        .expect("a verified scf region ends with a terminator")
}

/// Copies each `(source, target)` pair before `at`, as if all at once: a source that is
/// also the target of another pair is first copied to a temporary, freed afterwards.
fn parallel_copy(ctx: &mut Context, at: Builder, pairs: &[(Value, Value)]) {
    let pairs: Vec<(Value, Value)> = pairs.iter().copied().filter(|(s, t)| s != t).collect();
    let targets: HashSet<Value> = pairs.iter().map(|&(_, t)| t).collect();
    let mut temporaries = Vec::new();
    let sources: Vec<Value> = pairs
        .iter()
        .map(|&(source, _)| {
            if !targets.contains(&source) {
                return source;
            }
            let ty = ctx.value_type(source);
            let temporary = at.alloc(ctx, ty);
            at.copy(ctx, source, temporary);
            temporaries.push(temporary);
            temporary
        })
        .collect();
    for (&source, &(_, target)) in sources.iter().zip(&pairs) {
        at.copy(ctx, source, target);
    }
    for temporary in temporaries {
        at.dealloc(ctx, temporary);
    }
}

/// Replaces terminator `op` by one of the same kind with `operands`.
fn set_terminator_operands(ctx: &mut Context, op: OpId, operands: Vec<Value>) {
    let state = OperationState {
        name: ctx.op(op).name,
        operands,
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: ctx.op(op).properties,
        attributes: vec![],
        loc: ctx.op(op).loc,
    };
    let new = ctx.create_op(state);
    ctx.op_mut(new).attributes = ctx.op(op).attributes;
    ctx.insert_op_before(op, new);
    ctx.erase_op(op);
}

/// Replaces `block` (of `region`'s op) by a block with only the arguments at `keep`, the
/// others being replaced by `replacements` (same positions), and moves its ops over.
fn keep_block_args(
    ctx: &mut Context,
    block: BlockId,
    keep: &[usize],
    replacements: &[Option<Value>],
) {
    let args = ctx.block(block).args.to_vec();
    let region = ctx.block(block).parent.expect("a block of a region");
    let new = ctx.create_block();
    for (i, &arg) in args.iter().enumerate() {
        let replacement = if keep.contains(&i) {
            let ty = ctx.value_type(arg);
            ctx.add_block_argument(new, ty, None)
        } else {
            replacements[i].expect("a replacement for every dropped argument")
        };
        ctx.replace_all_uses(arg, replacement);
    }
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    for op in ops {
        ctx.unlink_op(op);
        ctx.append_op(new, op);
    }
    let blocks = ctx.take_blocks(region);
    let replaced: Vec<BlockId> = blocks
        .iter()
        .map(|&b| if b == block { new } else { b })
        .collect();
    ctx.insert_blocks(region, None, &replaced);
    ctx.erase_block(block);
}

/// Rebuilds `op` before itself with `operands` and `result_types`, moving its regions into
/// the new op; the old op's results at `kept` become the new results (in order), the
/// others are replaced by `replacements` (indexed like the old results). Erases `op`.
fn rebuild(
    ctx: &mut Context,
    op: OpId,
    operands: Vec<Value>,
    kept: &[usize],
    replacements: &[Option<Value>],
) -> OpId {
    let old_results = ctx.op(op).results.to_vec();
    let result_types: Vec<Type> = kept
        .iter()
        .map(|&i| ctx.value_type(old_results[i]))
        .collect();
    let regions = ctx.op(op).regions.to_vec();
    let state = OperationState {
        name: ctx.op(op).name,
        operands,
        result_types,
        successors: vec![],
        num_regions: regions.len(),
        properties: ctx.op(op).properties,
        attributes: vec![],
        loc: ctx.op(op).loc,
    };
    let new = ctx.create_op(state);
    ctx.op_mut(new).attributes = ctx.op(op).attributes;
    ctx.insert_op_before(op, new);
    let new_regions = ctx.op(new).regions.to_vec();
    for (&from, &to) in regions.iter().zip(&new_regions) {
        let blocks = ctx.take_blocks(from);
        ctx.insert_blocks(to, None, &blocks);
    }
    let new_results = ctx.op(new).results.to_vec();
    for (i, &old) in old_results.iter().enumerate() {
        let to = match kept.iter().position(|&k| k == i) {
            Some(p) => new_results[p],
            None => replacements[i].expect("a replacement for every dropped result"),
        };
        ctx.replace_all_uses(old, to);
    }
    ctx.erase_op(op);
    new
}

/// Whether `value` is a buffer `block` allocates itself (a `loop.alloc` in it that the
/// function owns).
fn allocated_in(ctx: &Context, value: Value, block: BlockId, allocations: &[Value]) -> bool {
    let ValueDef::Result { op, .. } = ctx.value(value).def else {
        return false;
    };
    ctx.op_name(op) == loop_::ALLOC
        && ctx.op(op).parent == Some(block)
        && allocations.contains(&value)
}

fn settle_if(ctx: &mut Context, op: OpId, allocations: &mut Vec<Value>) {
    let results = ctx.op(op).results.to_vec();
    let buffers = buffer_positions(ctx, &results);
    if buffers.is_empty() {
        return;
    }
    let loc = ctx.op(op).loc;
    let before = Builder::before(op, loc);
    let mut outputs: Vec<Option<Value>> = vec![None; results.len()];
    for &k in &buffers {
        let ty = ctx.value_type(results[k]);
        let buffer = before.alloc(ctx, ty);
        allocations.push(buffer);
        outputs[k] = Some(buffer);
    }
    let regions = ctx.op(op).regions.clone();
    for region in regions {
        let Some(block) = ctx.entry_block(region) else {
            continue;
        };
        let yield_op = terminator(ctx, block);
        let yielded = ctx.op(yield_op).operands.to_vec();
        let mut copies = Vec::new();
        // The branch's own buffers, each replaced by the first result buffer it goes to.
        let mut forwarded: HashMap<Value, Value> = HashMap::new();
        for &k in &buffers {
            let output = outputs[k].expect("allocated above");
            let value = yielded[k];
            if let Some(&earlier) = forwarded.get(&value) {
                copies.push((earlier, output));
            } else if allocated_in(ctx, value, block, allocations) {
                // Its producer writes the result's buffer instead.
                forwarded.insert(value, output);
                let alloc = ctx.defining_op(value).expect("a loop.alloc");
                ctx.replace_all_uses(value, output);
                ctx.erase_op(alloc);
                allocations.retain(|&v| v != value);
            } else {
                copies.push((value, output));
            }
        }
        let at = Builder::before(yield_op, loc);
        parallel_copy(ctx, at, &copies);
        let yield_op = terminator(ctx, block);
        let kept: Vec<Value> = ctx
            .op(yield_op)
            .operands
            .iter()
            .enumerate()
            .filter(|(i, _)| !buffers.contains(i))
            .map(|(_, &v)| v)
            .collect();
        set_terminator_operands(ctx, yield_op, kept);
    }
    let condition = ctx.op(op).operands.to_vec();
    let kept: Vec<usize> = (0..results.len())
        .filter(|i| !buffers.contains(i))
        .collect();
    rebuild(ctx, op, condition, &kept, &outputs);
}

fn settle_for(ctx: &mut Context, op: OpId, allocations: &mut Vec<Value>) {
    let inits = scf::for_inits(ctx, op).to_vec();
    let buffers = buffer_positions(ctx, &inits);
    if buffers.is_empty() {
        return;
    }
    let loc = ctx.op(op).loc;
    let before = Builder::before(op, loc);
    let mut carried: Vec<Option<Value>> = vec![None; inits.len()];
    for &k in &buffers {
        let ty = ctx.value_type(inits[k]);
        let buffer = before.alloc(ctx, ty);
        before.copy(ctx, inits[k], buffer);
        allocations.push(buffer);
        carried[k] = Some(buffer);
    }
    let body = ctx
        .op(op)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
        .expect("a verified scf.for has a body");
    // The yielded values go to the carried buffers at the end of each iteration.
    let yield_op = terminator(ctx, body);
    let yielded = ctx.op(yield_op).operands.to_vec();
    let iter_args = scf::for_iter_args(ctx, op);
    // A carried argument yielded (unchanged, or in another position) is its buffer.
    let pairs: Vec<(Value, Value)> = buffers
        .iter()
        .map(|&k| {
            let source = iter_args
                .iter()
                .position(|&a| a == yielded[k])
                .and_then(|j| carried[j])
                .unwrap_or(yielded[k]);
            (source, carried[k].expect("allocated above"))
        })
        .collect();
    parallel_copy(ctx, Builder::before(yield_op, loc), &pairs);
    let kept_values: Vec<Value> = yielded
        .iter()
        .enumerate()
        .filter(|(i, _)| !buffers.contains(i))
        .map(|(_, &v)| v)
        .collect();
    set_terminator_operands(ctx, yield_op, kept_values);
    // Body arguments: the induction variable, then the carried values.
    let mut keep_args = vec![0];
    let mut replacements = vec![None];
    for (k, buffer) in carried.iter().enumerate() {
        if buffer.is_none() {
            keep_args.push(k + 1);
        }
        replacements.push(*buffer);
    }
    keep_block_args(ctx, body, &keep_args, &replacements);
    let mut operands: Vec<Value> = ctx.op(op).operands[..3].to_vec();
    operands.extend(
        inits
            .iter()
            .enumerate()
            .filter(|(i, _)| !buffers.contains(i))
            .map(|(_, &v)| v),
    );
    let kept: Vec<usize> = (0..inits.len()).filter(|i| !buffers.contains(i)).collect();
    rebuild(ctx, op, operands, &kept, &carried);
}

fn settle_while(ctx: &mut Context, op: OpId, allocations: &mut Vec<Value>) {
    let inits = ctx.op(op).operands.to_vec();
    let regions = ctx.op(op).regions.to_vec();
    let (Some(before_block), Some(after_block)) = (
        ctx.entry_block(regions[0]),
        regions.get(1).and_then(|&r| ctx.entry_block(r)),
    ) else {
        return;
    };
    let condition_op = terminator(ctx, before_block);
    let passed = ctx.op(condition_op).operands[1..].to_vec();
    let init_buffers = buffer_positions(ctx, &inits);
    let passed_buffers = buffer_positions(ctx, &passed);
    if init_buffers.is_empty() && passed_buffers.is_empty() {
        return;
    }
    let loc = ctx.op(op).loc;
    let before = Builder::before(op, loc);
    let before_args = ctx.block(before_block).args.to_vec();
    let after_args = ctx.block(after_block).args.to_vec();

    // One buffer per value the 'before' region receives, starting as the initial value.
    let mut received: Vec<Option<Value>> = vec![None; inits.len()];
    for &k in &init_buffers {
        let ty = ctx.value_type(inits[k]);
        let buffer = before.alloc(ctx, ty);
        before.copy(ctx, inits[k], buffer);
        allocations.push(buffer);
        received[k] = Some(buffer);
    }
    // What a region yields or passes, read through the carried buffers.
    let resolve = |value: Value, received: &[Option<Value>]| {
        before_args
            .iter()
            .position(|&a| a == value)
            .and_then(|k| received[k])
            .unwrap_or(value)
    };
    // One buffer per value scf.condition passes on: the received one when it passes that
    // argument on unchanged at the same position.
    let mut passed_on: Vec<Option<Value>> = vec![None; passed.len()];
    let mut condition_copies = Vec::new();
    for &j in &passed_buffers {
        let same = before_args.get(j) == Some(&passed[j])
            && received.get(j).copied().flatten().is_some()
            && ctx.value_type(passed[j]) == ctx.value_type(inits[j]);
        if same {
            passed_on[j] = received[j];
            continue;
        }
        let ty = ctx.value_type(passed[j]);
        let buffer = before.alloc(ctx, ty);
        allocations.push(buffer);
        passed_on[j] = Some(buffer);
        condition_copies.push((resolve(passed[j], &received), buffer));
    }
    parallel_copy(ctx, Builder::before(condition_op, loc), &condition_copies);

    // The 'after' region's yield refills the received buffers.
    let yield_op = terminator(ctx, after_block);
    let yielded = ctx.op(yield_op).operands.to_vec();
    let after_resolve = |value: Value| {
        after_args
            .iter()
            .position(|&a| a == value)
            .and_then(|j| passed_on[j])
            .unwrap_or(value)
    };
    let refills: Vec<(Value, Value)> = init_buffers
        .iter()
        .map(|&k| {
            let source = after_resolve(yielded[k]);
            (source, received[k].expect("allocated above"))
        })
        .collect();
    parallel_copy(ctx, Builder::before(yield_op, loc), &refills);

    let drop = |values: &[Value], positions: &[usize]| -> Vec<Value> {
        values
            .iter()
            .enumerate()
            .filter(|(i, _)| !positions.contains(i))
            .map(|(_, &v)| v)
            .collect()
    };
    let condition_operands = ctx.op(condition_op).operands.to_vec();
    let mut kept_condition = vec![condition_operands[0]];
    kept_condition.extend(drop(&condition_operands[1..], &passed_buffers));
    set_terminator_operands(ctx, condition_op, kept_condition);
    set_terminator_operands(ctx, yield_op, drop(&yielded, &init_buffers));

    let keep_before: Vec<usize> = (0..inits.len())
        .filter(|i| !init_buffers.contains(i))
        .collect();
    keep_block_args(ctx, before_block, &keep_before, &received);
    let keep_after: Vec<usize> = (0..passed.len())
        .filter(|i| !passed_buffers.contains(i))
        .collect();
    keep_block_args(ctx, after_block, &keep_after, &passed_on);
    rebuild(
        ctx,
        op,
        drop(&inits, &init_buffers),
        &keep_after,
        &passed_on,
    );
}
