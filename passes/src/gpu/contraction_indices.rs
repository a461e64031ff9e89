//! Indexing a matched matmul (`Contraction`) from the ids of a GPU kernel: the batch
//! indices of a flat batch number, and the substitution that re-addresses each access of
//! the original nest at new row, column and reduction indices.

use tb_ir::{Context, Value};

use crate::schedule::build::At;
use crate::schedule::loop_matmul_microkernel::{Access, Contraction};

/// `(value / divisor, value mod divisor)` on `index`.
pub(super) fn split(ctx: &mut Context, at: At, value: Value, divisor: i64) -> (Value, Value) {
    let d = at.index_constant(ctx, divisor);
    (
        at.index_op(ctx, "divui", value, d),
        at.index_op(ctx, "remui", value, d),
    )
}

/// `value * factor` on `index`.
pub(super) fn times(ctx: &mut Context, at: At, value: Value, factor: i64) -> Value {
    if factor == 1 {
        return value;
    }
    let factor = at.index_constant(ctx, factor);
    at.index_op(ctx, "muli", value, factor)
}

/// The batch indices of `c` for the flat batch number `flat` (the last batch dimension
/// fastest, as the nest nests them).
pub(super) fn batch_indices(ctx: &mut Context, at: At, c: &Contraction, flat: Value) -> Vec<Value> {
    let batch_rank = c.extents.len() - 2;
    let mut batch = vec![flat; batch_rank];
    let mut rest = flat;
    for d in (1..batch_rank).rev() {
        let (q, r) = split(ctx, at, rest, c.extents[d]);
        batch[d] = r;
        rest = q;
    }
    if batch_rank > 0 {
        batch[0] = rest;
    }
    batch
}

/// Every induction variable of `c`'s nest, for `substituted`: the batch ones at `batch`,
/// `i`, `j` and `k` at `(value, offset)` each. An access may list an induction variable it
/// does not use; any valid index serves there.
pub(super) fn every_iv(
    c: &Contraction,
    batch: &[Value],
    (i, di): (Value, i64),
    (j, dj): (Value, i64),
    (k, dk): (Value, i64),
) -> Vec<(Value, Value, i64, i64)> {
    let rank = c.extents.len();
    let mut s: Vec<(Value, Value, i64, i64)> = c.ivs[..rank - 2]
        .iter()
        .zip(batch)
        .map(|(&o, &v)| (o, v, 1, 0))
        .collect();
    s.extend([
        (c.ivs[rank - 2], i, 1, di),
        (c.ivs[rank - 1], j, 1, dj),
        (c.k_iv, k, 1, dk),
    ]);
    s
}

/// Whether `access` reads consecutive elements as `iv` grows (its last index is `iv`).
pub(super) fn contiguous_in(access: &Access, iv: Value) -> bool {
    let Some(last) = access.map.results.last() else {
        return false;
    };
    access
        .operands
        .iter()
        .position(|&o| o == iv)
        .is_some_and(|p| *last == tb_ir::affine::AffineExpr::dim(p as u32))
}

/// Where element `slot * threads + tid` of a `rows x cols` tile lies, as (row, column):
/// consecutive threads walk along the columns when `along_columns` (the dimension that is
/// contiguous in global memory), else along the rows, so a warp's copy of the tile
/// coalesces.
pub(super) fn tile_place(
    ctx: &mut Context,
    at: At,
    (tid, slot, threads): (Value, i64, i64),
    (rows, cols): (i64, i64),
    along_columns: bool,
) -> (Value, Value) {
    let e = at.add_index(ctx, tid, slot * threads);
    if along_columns {
        split(ctx, at, e, cols)
    } else {
        let (col, row) = split(ctx, at, e, rows);
        (row, col)
    }
}

/// The results of `map` applied to `operands` (dims, then symbols) as `index` values
/// computed with `arith` ops, for ops that take plain indices (`nvgpu.device_async_copy`).
/// `floordiv`, `ceildiv` and `mod` round as affine maps do, toward negative infinity.
pub(super) fn affine_values(
    ctx: &mut Context,
    at: At,
    map: &tb_ir::affine::AffineMap,
    operands: &[Value],
) -> Vec<Value> {
    let dims = map.num_dims as usize;
    map.results
        .iter()
        .map(|e| affine_value(ctx, at, e, &operands[..dims], &operands[dims..]))
        .collect()
}

fn affine_value(
    ctx: &mut Context,
    at: At,
    expr: &tb_ir::affine::AffineExpr,
    dims: &[Value],
    symbols: &[Value],
) -> Value {
    use tb_ir::affine::AffineExpr as E;
    let (a, b, op) = match expr {
        E::Dim(d) => return dims[*d as usize],
        E::Symbol(s) => return symbols[*s as usize],
        E::Constant(c) => return at.index_constant(ctx, *c),
        E::Add(a, b) => (a, b, "addi"),
        E::Mul(a, b) => (a, b, "muli"),
        E::FloorDiv(a, b) => (a, b, "floordivsi"),
        E::CeilDiv(a, b) => (a, b, "ceildivsi"),
        E::Mod(a, b) => (a, b, "mod"),
    };
    let a = affine_value(ctx, at, a, dims, symbols);
    let b = affine_value(ctx, at, b, dims, symbols);
    if op != "mod" {
        return at.index_op(ctx, op, a, b);
    }
    // a - b * floor(a / b): the remainder with the divisor's sign.
    let quotient = at.index_op(ctx, "floordivsi", a, b);
    let whole = at.index_op(ctx, "muli", quotient, b);
    at.index_op(ctx, "subi", a, whole)
}
