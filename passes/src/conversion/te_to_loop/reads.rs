//! The reads of a `te.compute` body as loads from buffers.
//!
//! - `te.read %x[map]` is `loop.load %x[map](ivs)`: the same affine map, applied to the
//!   induction variables of the loops that walk the iteration domain.
//! - A padded `te.read` may leave its input. Its indices are computed as values, tested
//!   against the input's bounds and clamped into them, so the load stays in the buffer;
//!   `arith.select` then picks the padding where the test failed (no branch). Only the
//!   bounds the indices can actually cross (by interval analysis over the domain) are
//!   tested.
//! - `te.read_at %x[%i, %j]` is `loop.load %x[%i, %j]`; its indices are in bounds by the
//!   op's contract (out-of-bounds is undefined behaviour).

use tb_dialects::te;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::affine::{Interval, expr_interval};
use tb_ir::{Context, OpId, Value};

use super::builder::Builder;
use super::index_arith;

/// The loops walking a `te.compute`'s iteration domain: one induction variable per
/// domain dimension (result dimensions, then reduction axes) and the extents they cover.
pub(super) struct Domain {
    pub ivs: Vec<Value>,
    pub extents: Vec<i64>,
}

impl Domain {
    /// The range each induction variable takes (`None` for an empty dimension).
    fn intervals(&self) -> Vec<Option<Interval>> {
        self.extents
            .iter()
            .map(|&e| (e > 0).then(|| Interval { lo: 0, hi: e - 1 }))
            .collect()
    }
}

/// Why the padded read `read` cannot be lowered, if it cannot.
pub(super) fn unsupported_padded_read(ctx: &Context, read: OpId) -> Option<String> {
    te::read_padding(ctx, read)?;
    let map = te::read_map(ctx, read)?;
    map.results.iter().enumerate().find_map(|(i, result)| {
        index_arith::unsupported(&result.simplify())
            .map(|why| format!("has a padded index map whose result #{i} ({result}) {why}"))
    })
}

/// Emits the load of `te.read` `read` (whose input is already a buffer) and gives the
/// loaded element.
pub(super) fn lower_read(ctx: &mut Context, at: &Builder, read: OpId, domain: &Domain) -> Value {
    let at = at.with_loc(ctx.op(read).loc);
    let buffer = ctx.op(read).operands[0];
    let map = te::read_map(ctx, read).expect("verified te.read").clone();
    match te::read_padding(ctx, read) {
        Some(padding) => padded_read(ctx, &at, buffer, &map, padding, domain),
        None => at.load(ctx, buffer, map, &domain.ivs),
    }
}

/// A bound an index of a padded read may cross.
struct Crossing {
    below_zero: bool,
    past_end: bool,
}

fn padded_read(
    ctx: &mut Context,
    at: &Builder,
    buffer: Value,
    map: &AffineMap,
    padding: tb_ir::Attr,
    domain: &Domain,
) -> Value {
    let element = super::builder::scalar_type(ctx, buffer);
    let shape = ctx
        .type_kind(ctx.value_type(buffer))
        .shape()
        .expect("a ranked buffer")
        .to_vec();
    // An empty input holds nothing to read: every element is padding.
    if shape.contains(&0) {
        return at.constant(ctx, padding, element);
    }
    let intervals = domain.intervals();
    let results: Vec<AffineExpr> = map.results.iter().map(AffineExpr::simplify).collect();
    let crossings: Vec<Crossing> = results
        .iter()
        .zip(&shape)
        .map(|(expr, &size)| {
            let range = expr_interval(expr, &intervals);
            Crossing {
                below_zero: range.is_none_or(|r| r.lo < 0),
                past_end: range.is_none_or(|r| r.hi >= size),
            }
        })
        .collect();
    if crossings.iter().all(|c| !c.below_zero && !c.past_end) {
        return at.load(ctx, buffer, map.clone(), &domain.ivs);
    }
    let mut inside: Option<Value> = None;
    let mut indices = Vec::with_capacity(results.len());
    for ((expr, &size), crossing) in results.iter().zip(&shape).zip(&crossings) {
        let index = index_arith::emit(ctx, at, expr, &domain.ivs);
        let mut clamped = index;
        let mut test = |ctx: &mut Context, predicate: &str, bound: i64, clamp: &str| {
            let bound = at.index_constant(ctx, bound);
            let ok = at.cmpi(ctx, predicate, index, bound);
            inside = Some(match inside {
                Some(so_far) => at.binary(ctx, "arith.andi", so_far, ok),
                None => ok,
            });
            clamped = at.binary(ctx, clamp, clamped, bound);
        };
        if crossing.below_zero {
            test(ctx, "sge", 0, "arith.maxsi");
        }
        if crossing.past_end {
            test(ctx, "sle", size - 1, "arith.minsi");
        }
        indices.push(clamped);
    }
    let inside = inside.expect("some bound is crossed");
    let rank = indices.len() as u32;
    let loaded = at.load(ctx, buffer, AffineMap::identity(rank), &indices);
    let padding = at.constant(ctx, padding, element);
    at.select(ctx, inside, loaded, padding)
}

/// Emits the load of `te.read_at` `read_at`, whose index operands map to `indices`.
pub(super) fn lower_read_at(
    ctx: &mut Context,
    at: &Builder,
    read_at: OpId,
    indices: &[Value],
) -> Value {
    let at = at.with_loc(ctx.op(read_at).loc);
    let buffer = ctx.op(read_at).operands[0];
    let map = AffineMap::identity(indices.len() as u32);
    at.load(ctx, buffer, map, indices)
}
