//! What one step of a window nest does with the input value it reads ([`Tap`]), and the
//! recognition of a pooling step: the `kw` body of a pool yields `combine(acc, f(x))`,
//! where `x` is the (possibly padded) scalar read of the input, `f` a chain of elementwise
//! `arith`/`math` ops whose other operands are defined outside the nest (max pooling's
//! "a NaN reads as -inf" select, for instance), and `combine` a max, min or sum.
//!
//! Every op of `f` and `combine` acts lane by lane, so the depthwise kernel can apply them
//! to vectors of neighbouring output pixels in the same order, with the same result.

use tb_dialects::arith::ArithOp;
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::math::MathOp;
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, TypeKind, Value};

use super::conv_nest::{defined_outside, defining_op};

/// What each step of a window nest does with the input value `x` it reads.
#[derive(Clone, Debug)]
pub enum Tap {
    /// A convolution's `acc + x * w`, `w = W[co, c, kh, kw]`.
    Product { weights: Value },
    /// A pool's `combine(acc, f(x))`.
    Pool(PoolTap),
}

impl Tap {
    /// The weights of a convolution step.
    pub fn weights(&self) -> Option<Value> {
        match self {
            Tap::Product { weights } => Some(*weights),
            Tap::Pool(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PoolTap {
    /// The scalar read of the input: its load, or the select that pads it.
    pub x: Value,
    /// The ops of `f`, in block order.
    pub prologue: Vec<OpId>,
    /// The op combining the accumulator with `f(x)`.
    pub combine: OpId,
    /// Which operand of `combine` is the accumulator.
    pub acc_operand: usize,
}

fn is_combiner(kind: Option<ArithOp>) -> bool {
    matches!(
        kind,
        Some(
            ArithOp::MaximumF
                | ArithOp::MaxNumF
                | ArithOp::MinimumF
                | ArithOp::MinNumF
                | ArithOp::AddF
        )
    )
}

/// Elementwise ops that act on each lane of a vector as on a scalar.
fn is_lanewise(ctx: &Context, op: OpId) -> bool {
    let data = ctx.op(op);
    data.regions.is_empty()
        && data.successors.is_empty()
        && data.results.len() == 1
        && (ArithOp::of(ctx, op).is_some() || MathOp::of(ctx, op).is_some())
        && data.operands.iter().chain(&data.results).all(|&v| {
            matches!(
                ctx.type_kind(ctx.value_type(v)),
                TypeKind::Float(_) | TypeKind::Integer { .. }
            )
        })
}

/// Recognizes the pooling step of the innermost loop `kw_loop` of the nest `parallel`:
/// the read of the input is the one `loop.load` of the body (or the select padding it).
pub fn match_pool_tap(ctx: &Context, kw_loop: OpId, parallel: OpId) -> Option<PoolTap> {
    let acc = *loop_::iter_args(ctx, kw_loop).first()?;
    let [combined] = loop_::yielded(ctx, kw_loop)[..] else {
        return None;
    };
    let combine = defining_op(ctx, combined)?;
    if !is_combiner(ArithOp::of(ctx, combine)) || ctx.value(acc).uses.len() != 1 {
        return None;
    }
    let operands = &ctx.op(combine).operands;
    let acc_operand = operands.iter().position(|&v| v == acc)?;
    let value = operands[1 - acc_operand];

    let body: Vec<OpId> = ctx.block_ops(loop_::body(ctx, kw_loop)?).collect();
    // Only pure ops (index arithmetic, the elementwise chain), the one load and the
    // terminator, so nothing is lost when the nest is replaced.
    let loads: Vec<OpId> = body
        .iter()
        .copied()
        .filter(|&op| LoopOp::of(ctx, op) == Some(LoopOp::Load))
        .collect();
    let [load] = loads[..] else {
        return None;
    };
    if !body.iter().all(|&op| {
        ArithOp::of(ctx, op).is_some()
            || MathOp::of(ctx, op).is_some()
            || LoopOp::of(ctx, op) == Some(LoopOp::Load)
            || LoopOp::of(ctx, op) == Some(LoopOp::Yield)
    }) {
        return None;
    }
    // x: the load, or `select(in-bounds, load, pad)` (checked by the nest's matcher).
    let loaded = ctx.op(load).results[0];
    let x = match ctx.value(loaded).uses.as_slice() {
        [only] if ArithOp::of(ctx, only.op) == Some(ArithOp::Select) => ctx.op(only.op).results[0],
        _ => loaded,
    };

    // f: the ops between x and the combined value, each reading only x, earlier ops of
    // f, or values from outside the nest.
    let mut prologue = Vec::new();
    let mut produced = vec![x];
    for &op in &body {
        if op == combine || ctx.op(op).results.first() == Some(&x) {
            continue;
        }
        let data = ctx.op(op);
        let reads_chain = data.operands.iter().any(|v| produced.contains(v));
        if !reads_chain {
            continue;
        }
        if !is_lanewise(ctx, op)
            || !data
                .operands
                .iter()
                .all(|&v| produced.contains(&v) || defined_outside(ctx, v, parallel))
        {
            return None;
        }
        prologue.push(op);
        produced.push(data.results[0]);
    }
    if !produced.contains(&value) {
        return None;
    }
    // Every op of f must feed the combined value only through f (its results are not
    // read by the index arithmetic or the terminator).
    for &op in &prologue {
        let result = ctx.op(op).results[0];
        if !ctx
            .value(result)
            .uses
            .iter()
            .all(|u| u.op == combine || prologue.contains(&u.op))
        {
            return None;
        }
    }
    Some(PoolTap {
        x,
        prologue,
        combine,
        acc_operand,
    })
}
