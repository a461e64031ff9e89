//! Elementwise epilogues of a convolution computed where its kernel writes the result.
//!
//! `convert-te-to-loop` writes a convolution's bias, activation and residual add as a nest
//! after the convolution's own (te-fuse does not fuse into contractions):
//!
//! ```text
//! loop.parallel (co, oh, ow) = (0, 0, 0) to (M, OH, OW) { r = conv ...; Y[0, co, oh, ow] = r }
//! loop.parallel (co, oh, ow) = (0, 0, 0) to (M, OH, OW) {
//!   y = Y[0, co, oh, ow]; b = B[co]; ... D[...] = f(y, b, ...)
//! }
//! ```
//!
//! The convolution kernel writes its sums channels-last and then copies them into `Y`;
//! with an epilogue it computes the consumer's body in that copy instead, so `Y` is never
//! written or read again and the consumer's pass over memory is gone. Legal when `Y` is a
//! buffer of the function (`loop.alloc`) that nothing else reads (its uses are the
//! convolution's store, the consumer's one load and a `loop.dealloc`), the consumer reads
//! `Y` only at its own index, and its body is `arith` ops, loads and one store. Every point
//! of the consumer is still computed exactly once (a `loop.parallel`'s points have no
//! order); channels the kernel leaves to the original nest keep the consumer, narrowed.
//!
//! [`find_consumer`] is the same match for any producer and rank; the matmul kernel uses
//! it for the nest after a matmul (`loop_matmul_microkernel`), with `math` ops allowed
//! since it computes the body on vectors ([`super::vector_epilogue`]).

use std::collections::HashMap;

use tb_dialects::arith::ArithOp;
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::math::MathOp;
use tb_ir::affine::AffineExpr;
use tb_ir::ods::OpKind;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, OpId, Value};

use super::build::At;
use super::conv_nest::{CO, ConvNest, OH, OW};
use super::loop_matmul_microkernel::set_bounds;

/// The elementwise nest that consumes a convolution's result.
pub(crate) struct Epilogue {
    pub consumer: OpId,
    /// The consumer's induction variables: `(co, oh, ow)` after a convolution, `(i, j)`
    /// after a matmul.
    pub ivs: Vec<Value>,
    /// The consumer's load of the convolution's result.
    pub load: OpId,
    /// The result buffer's `loop.alloc` and `loop.dealloc`s.
    alloc: OpId,
    deallocs: Vec<OpId>,
}

fn defining_op(ctx: &Context, v: Value) -> Option<OpId> {
    match ctx.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        _ => None,
    }
}

/// The epilogue of `c`, when there is one it may compute (see the module doc).
pub(super) fn find(ctx: &Context, c: &ConvNest) -> Option<Epilogue> {
    // A nest without a loop over a unit dimension has a consumer without one too, whose
    // induction variables are not (co, oh, ow): it stays a nest of its own.
    if c.loops.len() != 3 {
        return None;
    }
    let own_index = [
        AffineExpr::constant(0),
        AffineExpr::dim(0),
        AffineExpr::dim(1),
        AffineExpr::dim(2),
    ];
    let extents = [c.extents[CO], c.extents[OH], c.extents[OW]];
    find_consumer(ctx, c.output, c.parallel, &extents, &own_index, false)
}

/// The elementwise nest after `producer` that is the only reader of its result `output`:
/// a `loop.parallel` over `extents` (from 0, step 1) reading `output` once, at
/// `own_index` (a function of its induction variables, dims `0..`), whose body is loads,
/// `arith` ops (and `math` ops with `math`) and one store. `output` must be a
/// `loop.alloc` whose other uses are `producer`'s stores and `loop.dealloc`s.
pub(crate) fn find_consumer(
    ctx: &Context,
    output: Value,
    producer: OpId,
    extents: &[i64],
    own_index: &[AffineExpr],
    math: bool,
) -> Option<Epilogue> {
    let alloc = defining_op(ctx, output)?;
    if LoopOp::of(ctx, alloc) != Some(LoopOp::Alloc) {
        return None;
    }
    let mut load = None;
    let mut deallocs = Vec::new();
    for user in ctx.value(output).uses.iter().map(|u| u.op) {
        match LoopOp::of(ctx, user) {
            Some(LoopOp::Dealloc) => deallocs.push(user),
            Some(LoopOp::Store) if ctx.is_inside(producer, user) => {}
            Some(LoopOp::Load) if load.is_none() => load = Some(user),
            _ => return None,
        }
    }
    let load = load?;
    let consumer = ctx.parent_op(load)?;
    if LoopOp::of(ctx, consumer) != Some(LoopOp::Parallel) || !comes_after(ctx, consumer, producer)
    {
        return None;
    }
    let dims = loop_::loop_dims(ctx, consumer)?;
    if dims.len() != extents.len()
        || dims.iter().zip(extents).any(|(d, &e)| {
            d.lower.constant() != Some(0) || d.upper.constant() != Some(e) || d.step != 1
        })
    {
        return None;
    }
    let ivs: Vec<Value> = dims.iter().map(|d| d.induction_var).collect();
    if access(ctx, load, &ivs, 1).as_deref() != Some(own_index)
        || !elementwise_body(ctx, consumer, output, math)
    {
        return None;
    }
    Some(Epilogue {
        consumer,
        ivs,
        load,
        alloc,
        deallocs,
    })
}

/// Whether `op` follows `first` in `first`'s block.
fn comes_after(ctx: &Context, op: OpId, first: OpId) -> bool {
    let mut next = ctx.op(first).next;
    while let Some(n) = next {
        if n == op {
            return true;
        }
        next = ctx.op(n).next;
    }
    false
}

/// The indices a load or store (its index operands from `first_index` on) accesses, as
/// functions of the consumer's induction variables `ivs` (dims 0, 1, ...), when its index
/// operands are those induction variables or constants.
pub(super) fn access(
    ctx: &Context,
    op: OpId,
    ivs: &[Value],
    first_index: usize,
) -> Option<Vec<AffineExpr>> {
    let map = loop_::access_map(ctx, op)?;
    let operands = &ctx.op(op).operands[first_index..];
    if map.num_symbols != 0 || operands.len() != map.num_dims as usize {
        return None;
    }
    let mut exprs = Vec::new();
    for &v in operands {
        if let Some(p) = ivs.iter().position(|&iv| iv == v) {
            exprs.push(AffineExpr::dim(p as u32));
            continue;
        }
        let k = defining_op(ctx, v)
            .and_then(|d| constant_value(ctx, d))
            .and_then(|a| match ctx.attr_kind(a) {
                AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            })?;
        exprs.push(AffineExpr::constant(k));
    }
    Some(
        map.results
            .iter()
            .map(|r| r.replace_dims_and_symbols(&exprs, &[]).simplify())
            .collect(),
    )
}

/// Whether the consumer's body is `arith` ops (and `math` ops with `math`) and loads, then
/// one store, none of them writing `result`.
fn elementwise_body(ctx: &Context, consumer: OpId, result: Value, math: bool) -> bool {
    let Some(body) = loop_::body(ctx, consumer) else {
        return false;
    };
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let ops = match ops.split_last() {
        Some((&last, rest)) if LoopOp::of(ctx, last) == Some(LoopOp::Yield) => rest.to_vec(),
        _ => ops,
    };
    let Some((&store, rest)) = ops.split_last() else {
        return false;
    };
    LoopOp::of(ctx, store) == Some(LoopOp::Store)
        && ctx.op(store).operands[1] != result
        && rest.iter().all(|&op| {
            ctx.op(op).regions.is_empty()
                && (ArithOp::of(ctx, op).is_some()
                    || (math && MathOp::of(ctx, op).is_some())
                    || LoopOp::of(ctx, op) == Some(LoopOp::Load))
        })
}

/// Computes the consumer's body at `body` for the point `ivs`, where the convolution's
/// result there is `value`.
pub(crate) fn emit(ctx: &mut Context, e: &Epilogue, body: At, ivs: &[Value], value: Value) {
    let mut mapping: HashMap<Value, Value> =
        e.ivs.iter().copied().zip(ivs.iter().copied()).collect();
    mapping.insert(ctx.op(e.load).results[0], value);
    let block = loop_::body(ctx, e.consumer).expect("a loop.parallel has a body");
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    for op in ops {
        if op == e.load || LoopOp::of(ctx, op) == Some(LoopOp::Yield) {
            continue;
        }
        let copy = ctx.clone_op(op, &mut mapping);
        ctx.insert_op_before(body.before, copy);
    }
}

/// After the kernel: the consumer keeps the channels `[mf, M)` the original nest still
/// computes, or goes with the result buffer when there are none.
pub(super) fn finish(ctx: &mut Context, e: Epilogue, c: &ConvNest, mf: i64) {
    let [m, oh, ow, ..] = c.extents;
    if mf < m {
        set_bounds(ctx, e.consumer, &[mf, 0, 0], &[m, oh, ow]);
        return;
    }
    e.remove(ctx, true);
}

impl Epilogue {
    /// Erases the consumer, and the result buffer with it when `result_unused` (nothing
    /// reads or writes it any more).
    pub(crate) fn remove(self, ctx: &mut Context, result_unused: bool) {
        ctx.erase_op(self.consumer);
        if result_unused {
            for dealloc in self.deallocs {
                ctx.erase_op(dealloc);
            }
            ctx.erase_op(self.alloc);
        }
    }
}
