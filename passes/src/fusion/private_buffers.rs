//! Buffers that only carry a value from one point of a loop body to later points of the
//! same body become that value. After `loop-fuse` a row statistic (layer norm's mean, a
//! softmax row's maximum) is stored once per iteration and read back a few ops later in
//! the same iteration; the read then takes the stored value itself and the buffer goes.
//!
//! A `loop.alloc` qualifies when its only users are one `loop.store`, `loop.load`s and
//! `loop.dealloc`s, and every load lies after the store in the store's block (directly or
//! inside a later op's regions) and reads the element the store writes: the same index
//! expressions of the same values. Each time the store's block runs, the store executes
//! before the loads and no other write to the buffer exists, so each load sees the value
//! just stored.

use std::collections::HashMap;

use tb_dialects::loop_;
use tb_ir::affine::AffineExpr;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, OpId, Value};

/// Replaces the loads of every qualifying buffer of `func` by the value stored, and
/// erases the buffer; returns how many buffers went.
pub fn forward_private_buffers(ctx: &mut Context, func: OpId) -> u64 {
    let mut allocs = Vec::new();
    ctx.walk_nested(func, &mut |op| {
        if ctx.op_name(op) == loop_::ALLOC && ctx.op(op).operands.is_empty() {
            allocs.push(op);
        }
    });
    let mut removed = 0;
    for alloc in allocs {
        if let Some(plan) = private_buffer(ctx, alloc) {
            for &load in &plan.loads {
                let result = ctx.op(load).results[0];
                ctx.replace_all_uses(result, plan.value);
                ctx.erase_op(load);
            }
            ctx.erase_op(plan.store);
            for &dealloc in &plan.deallocs {
                ctx.erase_op(dealloc);
            }
            ctx.erase_op(alloc);
            removed += 1;
        }
    }
    removed
}

struct PrivateBuffer {
    store: OpId,
    /// The stored value.
    value: Value,
    loads: Vec<OpId>,
    deallocs: Vec<OpId>,
}

fn private_buffer(ctx: &Context, alloc: OpId) -> Option<PrivateBuffer> {
    let buffer = *ctx.op(alloc).results.first()?;
    let (mut stores, mut loads, mut deallocs) = (Vec::new(), Vec::new(), Vec::new());
    for u in &ctx.value(buffer).uses {
        match (ctx.op_name(u.op), u.index) {
            (loop_::STORE, 1) => stores.push(u.op),
            (loop_::LOAD, 0) => loads.push(u.op),
            (loop_::DEALLOC, 0) => deallocs.push(u.op),
            _ => return None,
        }
    }
    let [store] = stores[..] else {
        return None;
    };
    if loads.is_empty() {
        return None;
    }
    let value = ctx.op(store).operands[0];
    let mut slots = HashMap::new();
    let stored_at = element(ctx, store, 2, &mut slots)?;
    for &load in &loads {
        if ctx.value_type(ctx.op(load).results[0]) != ctx.value_type(value)
            || !follows_in_block(ctx, load, store)
            || element(ctx, load, 1, &mut slots)? != stored_at
        {
            return None;
        }
    }
    Some(PrivateBuffer {
        store,
        value,
        loads,
        deallocs,
    })
}

/// Whether `op` lies after `anchor` in `anchor`'s block, itself or inside a later op.
fn follows_in_block(ctx: &Context, op: OpId, anchor: OpId) -> bool {
    let block = ctx.op(anchor).parent;
    let mut current = op;
    while ctx.op(current).parent != block {
        match ctx.parent_op(current) {
            Some(parent) => current = parent,
            None => return false,
        }
    }
    let mut cursor = ctx.op(anchor).next;
    while let Some(next) = cursor {
        if next == current {
            return true;
        }
        cursor = ctx.op(next).next;
    }
    false
}

/// The element a load or store (index operands from `first_index` on) accesses: its map's
/// results over one slot per distinct index value, constants folded in.
fn element(
    ctx: &Context,
    op: OpId,
    first_index: usize,
    slots: &mut HashMap<Value, u32>,
) -> Option<Vec<AffineExpr>> {
    let map = loop_::access_map(ctx, op)?;
    let operands = &ctx.op(op).operands[first_index..];
    if operands.len() != map.num_inputs() as usize {
        return None;
    }
    let inputs: Vec<AffineExpr> = operands
        .iter()
        .map(|&v| match constant_index(ctx, v) {
            Some(c) => AffineExpr::constant(c),
            None => {
                let next = slots.len() as u32;
                AffineExpr::dim(*slots.entry(v).or_insert(next))
            }
        })
        .collect();
    let (dims, symbols) = inputs.split_at(map.num_dims as usize);
    Some(
        map.results
            .iter()
            .map(|r| r.replace_dims_and_symbols(dims, symbols).simplify())
            .collect(),
    )
}

fn constant_index(ctx: &Context, v: Value) -> Option<i64> {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}
