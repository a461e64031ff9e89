//! Strip-mining one `loop.for` in place, carried values included: the tiling of a
//! reduction loop, whose accumulators flow from each tile into the next so every element
//! is still combined in the same order.

use tb_dialects::loop_::{self, Bound};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::{Context, OpId, Value};

use super::band::{BoundOperand, as_dims_only};
use super::build::{At, set_yield};

/// Splits `op` (`for iv = lb to ub step s iter_args(acc = init)`) into a tile loop
/// `for t = lb to ub step tile * s iter_args(a = init)` around a point loop
/// `for iv = t to min(ub, t + tile * s) step s iter_args(acc = a)` (no `min` when the
/// tiles are whole), which yields into the tile loop. Returns `(tile loop, point loop)`;
/// the point loop keeps `op`'s `unroll`/`vectorize` marks and `op` is erased.
pub fn strip_mine(ctx: &mut Context, op: OpId, tile: i64) -> Result<(OpId, OpId), String> {
    let dim = loop_::loop_dims(ctx, op)
        .and_then(|d| d.into_iter().next())
        .ok_or("the loop is malformed")?;
    if tile < 1 {
        return Err(format!("tile size {tile} is not positive"));
    }
    let body = loop_::body(ctx, op).ok_or("the loop has no body")?;
    let inits = loop_::inits(ctx, op).to_vec();
    let old_iter_args = loop_::iter_args(ctx, op);
    let old_yielded = loop_::yielded(ctx, op);
    let span = tile * dim.step;
    let at = At {
        before: op,
        loc: ctx.op(op).loc,
    };
    let (tile_loop, inside, tile_iv, tile_args) =
        at.for_loop(ctx, plain(&dim.lower), plain(&dim.upper), span, &inits);
    let whole = match (dim.lower.constant(), dim.upper.constant()) {
        (Some(lo), Some(hi)) => (hi - lo) % span == 0,
        _ => false,
    };
    let upper = if whole {
        (
            AffineMap::new(1, 0, vec![AffineExpr::dim(0) + span]),
            vec![tile_iv],
        )
    } else {
        let (map, operands) = as_dims_only(&dim.upper);
        let mut results = map.results.clone();
        results.push(AffineExpr::dim(map.num_dims) + span);
        let mut values = outside(&operands);
        values.push(tile_iv);
        (AffineMap::new(map.num_dims + 1, 0, results), values)
    };
    let (point_loop, point_inside, point_iv, point_args) = inside.for_loop(
        ctx,
        (AffineMap::identity(1), vec![tile_iv]),
        upper,
        dim.step,
        &tile_args,
    );
    let point_results = ctx.op(point_loop).results.clone();
    set_yield(ctx, inside, &point_results);
    let moved: Vec<OpId> = ctx.block_ops(body).collect();
    let (_, moved) = moved.split_last().ok_or("the loop has no terminator")?;
    for &inner in moved {
        ctx.unlink_op(inner);
        ctx.insert_op_before(point_inside.before, inner);
    }
    set_yield(ctx, point_inside, &old_yielded);
    ctx.replace_all_uses(dim.induction_var, point_iv);
    for (&old, &new) in old_iter_args.iter().zip(&point_args) {
        ctx.replace_all_uses(old, new);
    }
    let old_results = ctx.op(op).results.clone();
    let tile_results = ctx.op(tile_loop).results.clone();
    for (&old, &new) in old_results.iter().zip(&tile_results) {
        ctx.replace_all_uses(old, new);
    }
    copy_marks(ctx, op, point_loop);
    ctx.erase_op(op);
    Ok((tile_loop, point_loop))
}

/// The bound as `for_loop` takes it: its map with symbols as dims, and its operands.
fn plain(bound: &Bound) -> (AffineMap, Vec<Value>) {
    let (map, operands) = as_dims_only(bound);
    (map, outside(&operands))
}

fn outside(operands: &[BoundOperand]) -> Vec<Value> {
    operands
        .iter()
        .map(|o| match *o {
            BoundOperand::Outside(v) => v,
            BoundOperand::NewLoop(_) => unreachable!("as_dims_only gives outside values"),
        })
        .collect()
}

/// Gives `to` the `unroll`/`vectorize` marks of `from`.
pub fn copy_marks(ctx: &mut Context, from: OpId, to: OpId) {
    for name in ["unroll", "vectorize"] {
        if let Some(attr) = ctx.op_inherent_or_attr(from, name) {
            set_mark(ctx, to, name, attr);
        }
    }
}

/// Sets the property `name` of loop `op`.
pub fn set_mark(ctx: &mut Context, op: OpId, name: &str, attr: tb_ir::Attr) {
    let mut entries: Vec<(String, tb_ir::Attr)> = match ctx.op(op).properties {
        Some(dict) => ctx.dictionary_entries(dict).to_vec(),
        None => Vec::new(),
    };
    entries.retain(|(n, _)| n != name);
    entries.push((name.to_string(), attr));
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).properties = Some(dict);
}
