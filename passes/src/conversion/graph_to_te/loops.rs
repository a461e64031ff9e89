//! `graph.loop` and `graph.scan` become `scf.while` on tensors. The op's body block moves,
//! whole, into the `scf.while`'s `do` region, where its graph ops are lowered like any
//! other; its block arguments are the values `scf.condition` passes on, so the block keeps
//! them and gains the ones the loop adds: the scan outputs' accumulators (and, for
//! `graph.scan`, the iteration number as an `index`).
//!
//! `graph.loop %m, %c, %v...`: the `before` region reads the iteration number, the trip
//! count and the condition with `te.extract` and continues while `i < m && c`; the iteration
//! number stays a `tensor<i64>` (the body reads it as one), incremented by a 0-d
//! `te.compute`.
//!
//! ```mlir
//! %r:4 = scf.while (%i = %zero, %c = %cond, %v = %init, %acc = %zeros) : (...) -> (...) {
//!   %iv = te.extract %i[] : tensor<i64>
//!   %mv = te.extract %m[] : tensor<i64>
//!   %cv = te.extract %c[] : tensor<i1>
//!   %lt = arith.cmpi slt, %iv, %mv : i64
//!   %go = arith.andi %lt, %cv : i1
//!   scf.condition(%go) %i, %c, %v, %acc : ...
//! } do {
//! ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>, %acc: tensor<5x2xf32>):
//!   ...                                        // the body, lowered
//!   %row = arith.index_cast %iv : i64 to index
//!   %acc1 = te.compute (%acc, %s) [%r, %j] {   // row %row of %acc becomes %s
//!     ... arith.cmpi eq, %r, %row ... arith.select ...
//!   }
//!   scf.yield %i1, %c1, %v1, %acc1 : ...
//! }
//! ```
//!
//! `graph.scan %states..., %xs...`: the `before` region computes each scan input's slice
//! at the iteration number (`te.read_at` with the iteration number on the scan axis,
//! counted from the end for a reversed input) and continues while `i < length`; the slices
//! are the `do` region's arguments after the states, as the body expects them. At the
//! last check `i` equals the length: the slice index is clamped there (that slice is never
//! used). Scan outputs are accumulated as in `graph.loop`, at `i` or, reversed, at
//! `length - 1 - i` along their axis.

use tb_dialects::graph::{GraphOp, LoopOp, ScanOp};
use tb_dialects::{scf, te};
use tb_ir::affine::AffineExpr;
use tb_ir::ods::OpKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::conversion::{ConversionPattern, ConversionRewriter, PatternRoots, op_failure};
use tb_ir::{Attr, BlockId, Context, Diagnostic, Location, OpId, Type, Value};

use super::builder::{Cmp, Lowering};

/// The patterns of this family.
pub(super) fn patterns() -> Vec<Box<dyn ConversionPattern>> {
    vec![Box::new(LoopToScf), Box::new(ScanToScf)]
}

/// `arith.cmpi`'s predicate numbers.
const SLT: i128 = 2;

/// Creates ops right before `anchor` (which is in a region the pattern built, or in the
/// moved body, where the caller announces them).
struct Builder {
    anchor: OpId,
    loc: Location,
}

impl Builder {
    fn op(
        &self,
        ctx: &mut Context,
        name: &str,
        operands: Vec<Value>,
        result: Type,
        attrs: Vec<(String, Attr)>,
    ) -> Value {
        let properties = (!attrs.is_empty()).then(|| ctx.dictionary_attr(attrs));
        let name = ctx.intern_op_name(name);
        let op = ctx.create_op(OperationState {
            name,
            operands,
            result_types: vec![result],
            successors: vec![],
            num_regions: 0,
            properties,
            attributes: vec![],
            loc: self.loc,
        });
        ctx.insert_op_before(self.anchor, op);
        ctx.op(op).results[0]
    }

    fn index(&self, ctx: &mut Context, v: i64) -> Value {
        let index = ctx.index_type();
        let value = ctx.integer_attr(v as i128, index);
        self.op(
            ctx,
            "arith.constant",
            vec![],
            index,
            vec![("value".into(), value)],
        )
    }

    /// The element of a 0-d tensor.
    fn extract(&self, ctx: &mut Context, tensor: Value, element: Type) -> Value {
        self.op(ctx, te::EXTRACT, vec![tensor], element, vec![])
    }

    fn slt(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        let i64_ty = ctx.i64();
        let pred = ctx.integer_attr(SLT, i64_ty);
        let i1 = ctx.i1();
        self.op(
            ctx,
            "arith.cmpi",
            vec![a, b],
            i1,
            vec![("predicate".into(), pred)],
        )
    }

    fn binary(&self, ctx: &mut Context, name: &str, a: Value, b: Value) -> Value {
        let ty = ctx.value_type(a);
        self.op(ctx, name, vec![a, b], ty, vec![])
    }
}

/// A terminator-to-be: an op with no operands at the end of `block`, before which the
/// pattern builds; erased once the real terminator is in place.
fn placeholder(ctx: &mut Context, block: BlockId, loc: Location) -> OpId {
    let name = ctx.intern_op_name(scf::YIELD);
    let op = ctx.create_op(OperationState {
        name,
        operands: vec![],
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    });
    ctx.append_op(block, op);
    op
}

fn create_before(
    ctx: &mut Context,
    anchor: OpId,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    loc: Location,
) -> OpId {
    let name = ctx.intern_op_name(name);
    let op = ctx.create_op(OperationState {
        name,
        operands,
        result_types,
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    });
    ctx.insert_op_before(anchor, op);
    op
}

/// `acc` with its slice at `position` along `axis` replaced by `value` (whose shape is
/// `acc`'s without `axis`): a `te.compute` before `anchor`.
fn write_slice(
    ctx: &mut Context,
    anchor: OpId,
    acc: Value,
    value: Value,
    axis: usize,
    position: Value,
) -> Result<Value, String> {
    let ty = ctx.value_type(acc);
    let shape = ctx
        .type_kind(ty)
        .shape()
        .ok_or("a scan output must be a ranked tensor")?
        .to_vec();
    let element = tb_dialects::graph::types::static_tensor(ctx, ty)
        .ok_or("a scan output must be a static tensor")?
        .1;
    let mut lowering = Lowering::new(ctx, anchor, vec![]);
    lowering.compute(&shape, element, None, |b| {
        let all: Vec<AffineExpr> = (0..shape.len())
            .map(|d| AffineExpr::dim(d as u32))
            .collect();
        let mut without = all.clone();
        without.remove(axis);
        let old = b.read(acc, all);
        let new = b.read(value, without);
        let here = b.index(axis);
        let hit = b.cmp(Cmp::Eq, here, position);
        Ok(b.select(hit, new, old))
    })
}

/// A zero tensor of `ty` before `anchor`.
fn zeros(ctx: &mut Context, anchor: OpId, ty: Type) -> Result<Value, String> {
    let (shape, element) = tb_dialects::graph::types::static_tensor(ctx, ty)
        .map(|(s, e)| (s.to_vec(), e))
        .ok_or("a scan output must be a static tensor")?;
    Ok(Lowering::new(ctx, anchor, vec![]).splat(&shape, element, 0.0))
}

/// The ops in `block` from the one after `prev` (the first, for `None`) up to `end`,
/// announced as created: built in a block the conversion moved, they go if it is undone.
fn announce(rewriter: &mut ConversionRewriter, block: BlockId, prev: Option<OpId>, end: OpId) {
    let mut current = match prev {
        Some(p) => rewriter.ctx().op(p).next,
        None => rewriter.ctx().block(block).first,
    };
    while let Some(op) = current {
        if op == end {
            break;
        }
        rewriter.notify_created(op);
        current = rewriter.ctx().op(op).next;
    }
}

/// Moves the op's body into region 1 of `while_op`; gives the block and its `graph.yield`.
fn move_body(
    rewriter: &mut ConversionRewriter,
    op: OpId,
    while_op: OpId,
) -> Result<(BlockId, OpId), Diagnostic> {
    let ctx = rewriter.ctx();
    let body = ctx.op(op).regions[0];
    let block = ctx
        .entry_block(body)
        .ok_or_else(|| op_failure(ctx, op, "has a body without a block"))?;
    let term = ctx
        .block(block)
        .last
        .filter(|&t| GraphOp::of(ctx, t) == Some(GraphOp::Yield))
        .ok_or_else(|| op_failure(ctx, op, "has a body that does not end in 'graph.yield'"))?;
    let to = ctx.op(while_op).regions[1];
    rewriter.move_blocks(body, to);
    Ok((block, term))
}

/// Creates the `scf.while` before `op`, with an empty `before` block taking `iter_types`.
fn create_while(
    rewriter: &mut ConversionRewriter,
    op: OpId,
    inits: Vec<Value>,
    result_types: Vec<Type>,
) -> (OpId, BlockId) {
    let loc = rewriter.ctx().op(op).loc;
    let name = rewriter.ctx_mut().intern_op_name(scf::WHILE);
    let while_op = rewriter.create_op_before(
        op,
        OperationState {
            name,
            operands: inits.clone(),
            result_types,
            successors: vec![],
            num_regions: 2,
            properties: None,
            attributes: vec![],
            loc,
        },
    );
    let ctx = rewriter.ctx_mut();
    let before = ctx.create_block();
    for &v in &inits {
        let ty = ctx.value_type(v);
        ctx.add_block_argument(before, ty, Some(loc));
    }
    let region = ctx.op(while_op).regions[0];
    ctx.append_block(region, before);
    (while_op, before)
}

/// `graph.loop` → `scf.while`.
struct LoopToScf;

impl ConversionPattern for LoopToScf {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![GraphOp::Loop.name()])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let ctx = rewriter.ctx();
        let view = LoopOp(op);
        let loc = ctx.op(op).loc;
        let num_carried = view.num_carried(ctx);
        let results: Vec<Type> = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let (trip_count, condition) = (operands[0], operands[1]);
        let fail = |rewriter: &ConversionRewriter, why: String| op_failure(rewriter.ctx(), op, why);

        // Before the loop: the iteration number 0 and the accumulators.
        let i64_ty = rewriter.ctx_mut().i64();
        let i1 = rewriter.ctx_mut().i1();
        let zero = Lowering::new(rewriter.ctx_mut(), op, vec![]).splat(&[], i64_ty, 0.0);
        let mut inits = vec![zero, condition];
        inits.extend(&operands[2..]);
        for &ty in &results[num_carried..] {
            let acc = zeros(rewriter.ctx_mut(), op, ty).map_err(|m| fail(rewriter, m))?;
            inits.push(acc);
        }
        let iter_types: Vec<Type> = inits
            .iter()
            .map(|&v| rewriter.ctx().value_type(v))
            .collect();
        let (while_op, before) = create_while(rewriter, op, inits, iter_types.clone());

        // Before: continue while i < M and the condition holds.
        let ctx = rewriter.ctx_mut();
        let anchor = placeholder(ctx, before, loc);
        let b = Builder { anchor, loc };
        let args = ctx.block(before).args.to_vec();
        let iv = b.extract(ctx, args[0], i64_ty);
        let m = b.extract(ctx, trip_count, i64_ty);
        let c = b.extract(ctx, args[1], i1);
        let below = b.slt(ctx, iv, m);
        let go = b.binary(ctx, "arith.andi", below, c);
        let mut passed = vec![go];
        passed.extend(&args);
        create_before(ctx, anchor, scf::CONDITION, passed, vec![], loc);
        ctx.erase_op(anchor);

        // Do: the body, with the accumulators appended to its arguments.
        let (block, term) = move_body(rewriter, op, while_op)?;
        let mut accs = Vec::new();
        for &ty in &iter_types[2 + num_carried..] {
            accs.push(rewriter.add_block_argument(block, ty, Some(loc)));
        }
        let prev = rewriter.ctx().op(term).prev;
        let ctx = rewriter.ctx_mut();
        let b = Builder { anchor: term, loc };
        let iter = ctx.block(block).args[0];
        let yielded = ctx.op(term).operands.to_vec();
        let iv = b.extract(ctx, iter, i64_ty);
        let index = ctx.index_type();
        let row = b.op(ctx, "arith.index_cast", vec![iv], index, vec![]);
        let next_iter = Lowering::new(ctx, term, vec![])
            .compute(&[], i64_ty, None, |body| {
                let v = body.read(iter, vec![]);
                let one = body.constant(1.0, i64_ty);
                Ok(body.add(v, one))
            })
            .map_err(|m| op_failure(ctx, op, m))?;
        let mut next = vec![next_iter];
        next.extend(&yielded[..1 + num_carried]);
        for (k, &acc) in accs.iter().enumerate() {
            let value = yielded[1 + num_carried + k];
            let updated =
                write_slice(ctx, term, acc, value, 0, row).map_err(|m| op_failure(ctx, op, m))?;
            next.push(updated);
        }
        create_before(ctx, term, scf::YIELD, next, vec![], loc);
        announce(rewriter, block, prev, term);
        rewriter.erase_op(term);

        let finals = rewriter.ctx().op(while_op).results[2..].to_vec();
        rewriter.replace_op(op, &finals);
        Ok(())
    }
}

/// `graph.scan` → `scf.while` over the iteration number.
struct ScanToScf;

impl ConversionPattern for ScanToScf {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![GraphOp::Scan.name()])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let ctx = rewriter.ctx();
        let view = ScanOp::of(ctx, op).map_err(|m| op_failure(ctx, op, m))?;
        let loc = ctx.op(op).loc;
        let states = view.num_states;
        let results: Vec<Type> = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let length = view.length;
        let fail = |rewriter: &ConversionRewriter, why: String| op_failure(rewriter.ctx(), op, why);

        // Before the loop: the iteration number 0 and the accumulators.
        let ctx = rewriter.ctx_mut();
        let zero = Builder { anchor: op, loc }.index(ctx, 0);
        let mut inits = operands[..states].to_vec();
        inits.push(zero);
        for &ty in &results[states..] {
            let acc = zeros(rewriter.ctx_mut(), op, ty).map_err(|m| fail(rewriter, m))?;
            inits.push(acc);
        }
        let iter_types: Vec<Type> = inits
            .iter()
            .map(|&v| rewriter.ctx().value_type(v))
            .collect();
        // What scf.condition passes on, the do region's arguments and the results: the
        // states, the slices, the iteration number and the accumulators.
        let body_block = rewriter
            .ctx()
            .entry_block(rewriter.ctx().op(op).regions[0])
            .ok_or_else(|| fail(rewriter, "has a body without a block".into()))?;
        let slice_types: Vec<Type> = rewriter.ctx().block(body_block).args[states..]
            .iter()
            .map(|&a| rewriter.ctx().value_type(a))
            .collect();
        let mut passed_types = iter_types[..states].to_vec();
        passed_types.extend(&slice_types);
        passed_types.extend(&iter_types[states..]);
        let (while_op, before) = create_while(rewriter, op, inits, passed_types);

        // Before: the slices at the iteration number (clamped), while i < length.
        let ctx = rewriter.ctx_mut();
        let anchor = placeholder(ctx, before, loc);
        let b = Builder { anchor, loc };
        let args = ctx.block(before).args.to_vec();
        let i = args[states];
        let end = b.index(ctx, length);
        let last = b.index(ctx, (length - 1).max(0));
        let go = b.slt(ctx, i, end);
        let index = ctx.index_type();
        let at = b.op(ctx, "arith.select", vec![go, i, last], index, vec![]);
        let from_end = b.binary(ctx, "arith.subi", last, at);
        let mut passed = vec![go];
        passed.extend(&args[..states]);
        for (k, &input) in operands[states..].iter().enumerate() {
            let axis = view.input_axes[k];
            let position = if view.input_reversed[k] { from_end } else { at };
            let ty = slice_types[k];
            let (shape, element) = tb_dialects::graph::types::static_tensor(ctx, ty)
                .map(|(s, e)| (s.to_vec(), e))
                .ok_or_else(|| op_failure(ctx, op, "a scan slice must be a static tensor"))?;
            let slice = Lowering::new(ctx, anchor, vec![])
                .compute(&shape, element, None, |body| {
                    let mut indices: Vec<Value> = (0..shape.len()).map(|d| body.index(d)).collect();
                    indices.insert(axis, position);
                    Ok(body.read_at(input, &indices))
                })
                .map_err(|m| op_failure(ctx, op, m))?;
            passed.push(slice);
        }
        passed.extend(&args[states..]);
        create_before(ctx, anchor, scf::CONDITION, passed, vec![], loc);
        ctx.erase_op(anchor);

        // Do: the body, with the iteration number and the accumulators appended.
        let (block, term) = move_body(rewriter, op, while_op)?;
        let mut extra = Vec::new();
        for &ty in &iter_types[states..] {
            extra.push(rewriter.add_block_argument(block, ty, Some(loc)));
        }
        let prev = rewriter.ctx().op(term).prev;
        let ctx = rewriter.ctx_mut();
        let b = Builder { anchor: term, loc };
        let yielded = ctx.op(term).operands.to_vec();
        let i = extra[0];
        let one = b.index(ctx, 1);
        let next_i = b.binary(ctx, "arith.addi", i, one);
        let last = b.index(ctx, (length - 1).max(0));
        let from_end = b.binary(ctx, "arith.subi", last, i);
        let mut next = yielded[..states].to_vec();
        next.push(next_i);
        for (k, &acc) in extra[1..].iter().enumerate() {
            let position = if view.output_reversed[k] { from_end } else { i };
            let value = yielded[states + k];
            let updated = write_slice(ctx, term, acc, value, view.output_axes[k], position)
                .map_err(|m| op_failure(ctx, op, m))?;
            next.push(updated);
        }
        create_before(ctx, term, scf::YIELD, next, vec![], loc);
        announce(rewriter, block, prev, term);
        rewriter.erase_op(term);

        let all = rewriter.ctx().op(while_op).results.to_vec();
        let skip = states + slice_types.len() + 1;
        let mut finals = all[..states].to_vec();
        finals.extend(&all[skip..]);
        rewriter.replace_op(op, &finals);
        Ok(())
    }
}
