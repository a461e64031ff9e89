//! Who owns each buffer, and where it is freed.
//!
//! A function owns the buffers it allocates (`loop.alloc` of a `te.compute` result) and the
//! buffers its calls return. Every buffer a function returns is one it allocated itself,
//! returned once: a caller then owns every buffer a call gives it, and the CPU backend can
//! write such a returned allocation straight into the caller's output. So a return of
//! anything else — an argument, a global, a call's result, or a buffer already returned in
//! an earlier position — returns a fresh copy instead. (Callees already on buffers are
//! taken to follow the same convention.)
//!
//! Each owned buffer that is not returned gets a `loop.dealloc` right after its last use in
//! the function's block (the buffer-planning pass reads lifetimes from this form). The
//! blocks of `scf` regions own the buffers allocated in them (control flow passes none out,
//! see [`super::control_flow`]) and free them likewise, before their terminator.

use std::collections::{HashMap, HashSet};

use tb_dialects::func;
use tb_ir::{BlockId, Context, OpId, Value};

use super::builder::Builder;

/// The buffers a function body owns.
#[derive(Default)]
pub(super) struct Owned {
    /// `loop.alloc`s made for `te.compute` results, which may be returned directly.
    pub allocations: Vec<Value>,
    /// Memref results of `func.call`s.
    pub call_results: Vec<Value>,
}

/// Makes every returned buffer a distinct allocation of `block`'s function and frees the
/// owned buffers that are not returned.
pub(super) fn finish(ctx: &mut Context, block: BlockId, owned: &Owned) {
    let returned = return_owned_buffers(ctx, block, owned);
    let to_free: Vec<Value> = owned
        .allocations
        .iter()
        .chain(&owned.call_results)
        .copied()
        .filter(|v| !returned.contains(v))
        .collect();
    free_after_last_use(ctx, block, &to_free);
}

/// Frees every buffer `block` (a region of an `scf` op, which passes no buffer on) owns
/// after its last use there.
pub(super) fn free_owned(ctx: &mut Context, block: BlockId, owned: &Owned) {
    let buffers: Vec<Value> = owned
        .allocations
        .iter()
        .chain(&owned.call_results)
        .copied()
        .collect();
    free_after_last_use(ctx, block, &buffers);
}

/// Rewrites the block's `func.return` so that each memref it returns is an allocation of
/// this function, returned once; gives the allocations returned.
fn return_owned_buffers(ctx: &mut Context, block: BlockId, owned: &Owned) -> HashSet<Value> {
    let mut returned = HashSet::new();
    let Some(ret) = ctx
        .block_terminator(block)
        .filter(|&t| ctx.op_name(t) == func::RETURN)
    else {
        return returned;
    };
    let loc = ctx.op(ret).loc;
    let operands = ctx.op(ret).operands.clone();
    for (position, value) in operands.into_iter().enumerate() {
        let ty = ctx.value_type(value);
        if ctx.type_kind(ty).shape().is_none() {
            continue;
        }
        if owned.allocations.contains(&value) && returned.insert(value) {
            continue;
        }
        let at = Builder::before(ret, loc);
        let copy = at.alloc(ctx, ty);
        at.copy(ctx, value, copy);
        ctx.set_operand(ret, position, copy);
        returned.insert(copy);
    }
    returned
}

/// Inserts `loop.dealloc` of each of `buffers` after its last use in `block` (a use nested
/// in a loop counts at the loop), or after its definition if it is never used. Buffers
/// freed at the same point are freed in the order given.
fn free_after_last_use(ctx: &mut Context, block: BlockId, buffers: &[Value]) {
    let position: HashMap<OpId, usize> = ctx
        .block_ops(block)
        .enumerate()
        .map(|(i, op)| (op, i))
        .collect();
    // The op after which the next dealloc following a given last use goes.
    let mut insert_after: HashMap<OpId, OpId> = HashMap::new();
    for &buffer in buffers {
        let data = ctx.value(buffer);
        let definition = match data.def {
            tb_ir::value::ValueDef::Result { op, .. } => op,
            _ => continue,
        };
        let last = data
            .uses
            .iter()
            .filter_map(|u| ancestor_in(ctx, block, u.op))
            .chain([definition])
            .max_by_key(|op| position.get(op).copied().unwrap_or(0))
            .expect("the definition is a candidate");
        let after = *insert_after.get(&last).unwrap_or(&last);
        let loc = ctx.op(definition).loc;
        let at = match ctx.op(after).next {
            Some(next) => Builder::before(next, loc),
            None => Builder::at_end(block, loc),
        };
        insert_after.insert(last, at.dealloc(ctx, buffer));
    }
}

/// The op of `block` that is or contains `op`.
fn ancestor_in(ctx: &Context, block: BlockId, mut op: OpId) -> Option<OpId> {
    loop {
        if ctx.op(op).parent == Some(block) {
            return Some(op);
        }
        op = ctx.parent_op(op)?;
    }
}
