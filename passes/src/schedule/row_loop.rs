//! Matrix-vector products as matmuls of one row.
//!
//! `convert-te-to-loop` leaves out the loops of result dimensions of extent 1, so a matmul
//! whose result has a single row (`x W` with `x: 1 x K`: a recurrent cell's step, a
//! decoder's one token, a classifier head on one vector) comes out as a parallel loop
//! over its columns alone, its loads and store indexing the row with the constant 0. The
//! matmul micro-kernel matches loops over `(.., i, j)`; [`with_row_loop`] gives such a nest
//! its loop over the one row back (`i` in `[0, 1)`, which the row indices then read
//! instead of the constant) when that makes it a matmul the kernel takes, and leaves it
//! as it was otherwise. With `j` in the vector lanes, the kernel then reads `W` along its
//! rows; the nest as lowered read it down its columns, one element per step.

use tb_dialects::loop_::{self, LoopOp};
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, TypeKind};

use super::build::At;
use super::loop_matmul_microkernel::{Contraction, access, depends_on, match_contraction};

/// The operand slot of `op` (a load or store, whose memref is operand `memref_index`)
/// that indexes its memref's second-to-last dimension, when that dimension has extent 1
/// and the slot holds the constant 0 through a plain dim of the access map.
fn unit_row_slot(ctx: &Context, op: OpId, memref_index: usize) -> Option<usize> {
    let operands = &ctx.op(op).operands;
    let memref = *operands.get(memref_index)?;
    let TypeKind::MemRef { shape, .. } = ctx.type_kind(ctx.value_type(memref)) else {
        return None;
    };
    let rank = shape.len();
    if rank < 2 || shape[rank - 2] != 1 {
        return None;
    }
    let map = loop_::access_map(ctx, op)?;
    let dim = map.results.get(rank - 2)?.as_dim()? as usize;
    let slot = memref_index + 1 + dim;
    let value = *operands.get(slot)?;
    let constant = ctx
        .defining_op(value)
        .and_then(|def| tb_ir::rewrite::folder::constant_value(ctx, def))
        .map(|attr| ctx.attr_kind(attr).clone());
    matches!(constant, Some(tb_ir::AttrKind::Integer { value: 0, .. })).then_some(slot)
}

/// When `parallel` is a one-dimensional loop over a matmul's columns whose result and
/// left operand have one row (see the module doc), rebuilds it as a loop over `(i, j)`
/// with `i` in `[0, 1)` and returns the matmul; otherwise changes nothing.
pub(super) fn with_row_loop(ctx: &mut Context, parallel: OpId) -> Option<Contraction> {
    if loop_::schedule(ctx, parallel).is_some() {
        return None;
    }
    let dims = loop_::loop_dims(ctx, parallel)?;
    let [j_dim] = dims.as_slice() else {
        return None;
    };
    if j_dim.lower.constant() != Some(0) || j_dim.step != 1 {
        return None;
    }
    let n = j_dim.upper.constant()?;
    let old_j = j_dim.induction_var;
    let body: Vec<OpId> = ctx.block_ops(loop_::body(ctx, parallel)?).collect();
    let [reduction, store, _] = body[..] else {
        return None;
    };
    if LoopOp::of(ctx, reduction) != Some(LoopOp::For)
        || LoopOp::of(ctx, store) != Some(LoopOp::Store)
    {
        return None;
    }
    let store_slot = unit_row_slot(ctx, store, 1)?;
    // The left operand: the load of the reduction's body that does not read `j`.
    let lhs = ctx
        .block_ops(loop_::body(ctx, reduction)?)
        .filter(|&op| LoopOp::of(ctx, op) == Some(LoopOp::Load))
        .find(|&op| access(ctx, op, 0).is_some_and(|a| !depends_on(&a, old_j)))?;
    let lhs_slot = unit_row_slot(ctx, lhs, 0)?;
    let (store_zero, lhs_zero) = (
        ctx.op(store).operands[store_slot],
        ctx.op(lhs).operands[lhs_slot],
    );

    let at = At {
        before: parallel,
        loc: ctx.op(parallel).loc,
    };
    let (rows, inside, ivs) = at.parallel(ctx, &[0, 0], &[1, n], &[1, 1]);
    let (i, j) = (ivs[0], ivs[1]);
    for op in [reduction, store] {
        ctx.unlink_op(op);
        ctx.insert_op_before(inside.before, op);
    }
    ctx.replace_all_uses(old_j, j);
    ctx.set_operand(store, store_slot, i);
    ctx.set_operand(lhs, lhs_slot, i);
    if let Some(found) = match_contraction(ctx, rows) {
        ctx.erase_op(parallel);
        return Some(found);
    }
    // Not a matmul after all: put everything back.
    let old_yield = ctx.block(loop_::body(ctx, parallel)?).last?;
    for op in [reduction, store] {
        ctx.unlink_op(op);
        ctx.insert_op_before(old_yield, op);
    }
    ctx.replace_all_uses(j, old_j);
    ctx.set_operand(store, store_slot, store_zero);
    ctx.set_operand(lhs, lhs_slot, lhs_zero);
    ctx.erase_op(rows);
    None
}
