//! One `te.compute` as a buffer and a loop nest: the first, untuned schedule.
//!
//! ```mlir
//! %buf = loop.alloc() : memref<4x8xf32>
//! %init = arith.constant 0.0 : f32                 // reductions: the combiner's identity
//! loop.parallel (%i, %j) = (0, 0) to (4, 8) {      // every result dimension
//!   %r = loop.for %k = 0 to 16 iter_args(%acc = %init) -> (f32) {  // each reduction axis
//!     %v = <the body, with reads as loads>
//!     %next = arith.addf %acc, %v : f32
//!     loop.yield %next : f32
//!   }
//!   loop.store %r, %buf[%i, %j] : memref<4x8xf32>
//! }
//! ```
//!
//! Without reduction the body's value is stored directly. The result dimensions form one
//! `loop.parallel` (the CPU backend spreads its outermost dimension over threads); unit
//! dimensions are left out of it (their index is 0), and a result with no other dimension
//! (rank 0, or all ones) needs no parallel loop. Reduction axes are sequential `loop.for`s
//! inside it, in order, each carrying the accumulator in an iter_arg (a register once
//! compiled) from the identity on: the output element is stored once, after them, and
//! never read.

use std::collections::HashMap;

use tb_dialects::te;
use tb_ir::{Context, OpId, Value};

use super::builder::{Builder, element_type, scalar_type};
use super::combiner::Combiner;
use super::reads::{self, Domain};
use super::signature::buffer_type;

/// Builds, before `compute` (whose inputs are already buffers), a buffer and the loop
/// nest that fills it; gives the buffer, which is to replace the result.
pub(super) fn lower(ctx: &mut Context, compute: OpId) -> Value {
    let loc = ctx.op(compute).loc;
    let result = ctx.op(compute).results[0];
    let buffer_ty = buffer_type(ctx, ctx.value_type(result));
    let at = Builder::before(compute, loc);
    let buffer = at.alloc(ctx, buffer_ty);
    let element = element_type(ctx, buffer);
    let scalar = scalar_type(ctx, buffer);
    let shape = te::result_shape(ctx, compute);
    let reduction = te::reduction_extents(ctx, compute);
    let combiner = te::ComputeOp(compute)
        .combiner(ctx)
        .filter(|_| !reduction.is_empty())
        .map(|kind| Combiner::new(ctx, kind, element).expect("checked by the pattern"));

    // The identity is a constant before the nest, not one per iteration.
    let reduction_start = combiner.map(|c| {
        let value = c.identity(ctx, scalar);
        (c, at.constant(ctx, value, scalar))
    });
    let (inside, result_ivs) = result_loops(ctx, at, &shape);
    match reduction_start {
        Some((combiner, identity)) => {
            let total = reduce(
                ctx,
                compute,
                combiner,
                identity,
                &inside,
                &result_ivs,
                &reduction,
            );
            inside.store(ctx, total, buffer, &result_ivs);
        }
        None => {
            let value = emit_body(ctx, compute, &inside, result_ivs.clone());
            inside.store(ctx, value, buffer, &result_ivs);
        }
    }
    buffer
}

/// Emits at `at` one `loop.for` per reduction axis (extents `reduction`, outermost
/// first), nested, each carrying the accumulator from `identity`; the innermost folds the
/// body's value (at `result_ivs` and the axes' indices) into it. Gives the reduced value.
fn reduce(
    ctx: &mut Context,
    compute: OpId,
    combiner: Combiner,
    identity: Value,
    at: &Builder,
    result_ivs: &[Value],
    reduction: &[i64],
) -> Value {
    let mut ivs = result_ivs.to_vec();
    let mut loops = Vec::with_capacity(reduction.len());
    let mut here = *at;
    let mut accumulator = identity;
    for &extent in reduction {
        let axis = here.for_loop_carrying(ctx, extent, &[accumulator]);
        here = axis.inside;
        accumulator = axis.iter_args[0];
        ivs.push(axis.induction_var);
        loops.push(axis);
    }
    let value = emit_body(ctx, compute, &here, ivs);
    let mut next = combiner.combine(ctx, &here, accumulator, value);
    // Each loop carries what the loop inside it gives, out to the outermost one's result.
    for axis in loops.iter().rev() {
        axis.yield_values(ctx, &[next]);
        next = axis.results[0];
    }
    next
}

/// The parallel loop over the result dimensions, and the index of each dimension inside it.
/// Unit dimensions get no loop, only the index 0: the backend spreads the outermost loop
/// dimension over threads, and a batch of one there would leave every thread but one idle.
fn result_loops(ctx: &mut Context, at: Builder, shape: &[i64]) -> (Builder, Vec<Value>) {
    let looped: Vec<i64> = shape.iter().copied().filter(|&e| e != 1).collect();
    let zero = (looped.len() < shape.len()).then(|| {
        let index = ctx.index_type();
        let value = ctx.integer_attr(0, index);
        at.constant(ctx, value, index)
    });
    let (inside, mut loop_ivs) = if looped.is_empty() {
        (at, Vec::new())
    } else {
        at.parallel(ctx, &looped)
    };
    let ivs = shape
        .iter()
        .map(|&e| {
            if e == 1 {
                zero.expect("made for unit dims")
            } else {
                loop_ivs.remove(0)
            }
        })
        .collect();
    (inside, ivs)
}

/// Emits the body of `compute` at `at` with its index arguments bound to `ivs` (the whole
/// domain) and gives the value it yields.
fn emit_body(ctx: &mut Context, compute: OpId, at: &Builder, ivs: Vec<Value>) -> Value {
    let body = te::body(ctx, compute).expect("verified te.compute");
    let domain = Domain {
        ivs,
        extents: te::domain(ctx, compute),
    };
    let mut mapping: HashMap<Value, Value> = ctx
        .block(body)
        .args
        .iter()
        .copied()
        .zip(domain.ivs.iter().copied())
        .collect();
    let mapped = |mapping: &HashMap<Value, Value>, v: Value| *mapping.get(&v).unwrap_or(&v);
    for op in ctx.block_ops(body).collect::<Vec<_>>() {
        let name = ctx.op_name(op);
        let lowered = match name {
            te::YIELD => {
                let yielded = ctx.op(op).operands[0];
                return mapped(&mapping, yielded);
            }
            te::READ => reads::lower_read(ctx, at, op, &domain),
            te::READ_AT => {
                let indices: Vec<Value> = ctx.op(op).operands[1..]
                    .iter()
                    .map(|&v| mapped(&mapping, v))
                    .collect();
                reads::lower_read_at(ctx, at, op, &indices)
            }
            _ => {
                let copy = ctx.clone_op(op, &mut mapping);
                at.insert(ctx, copy);
                continue;
            }
        };
        mapping.insert(ctx.op(op).results[0], lowered);
    }
    unreachable!("a verified te.compute body ends with te.yield")
}
