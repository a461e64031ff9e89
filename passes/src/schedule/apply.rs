//! Applying a [`Schedule`] to a rectangular band: multi-level tiling with partial tiles,
//! loop order, and the annotations (threads, vector width, unroll) the backend reads.
//! `loop-tile`, `loop-interchange` and `loop-apply-schedule` are all this one function.

use tb_dialects::loop_::{Packing, Schedule};
use tb_ir::{AttrKind, Context, Diagnostic, OpId};

use super::band::{Band, Header, as_dims_only, iv_bound, point_upper, rebuild};
use super::nest::{LoopNest, outermost_nests};
use super::strip_mine::{set_mark, strip_mine};

/// Rebuilds `band` as `schedule` says.
///
/// For each dimension with tiles `t1 > t2 > ...`, one tile loop per level steps by
/// `t * step` (levels outermost first, each level's loops in the schedule's order), then
/// every dimension's point loop runs over its innermost tile (untiled dimensions over
/// their whole range), in the schedule's order. A tile that does not divide the range
/// outside it ends in a partial tile: the point loop's upper bound is the minimum of the
/// tile's end and the loop's. Dimensions listed as parallel have their outermost loop
/// marked `parallel`; the innermost loop gets `vectorize` and `unroll` when they exceed 1,
/// and the point loops keep the annotations of the loops they come from.
pub fn apply_schedule(ctx: &mut Context, band: &Band, schedule: &Schedule) -> Result<(), String> {
    let rank = band.loops.len();
    schedule.verify(rank, &vec![false; rank])?;
    if schedule.pack != Packing::None {
        return Err(format!(
            "packing ({}) is not applied to loop bands yet",
            schedule.pack.keyword()
        ));
    }
    let order = schedule.effective_order();
    let levels = schedule.tiles.iter().map(Vec::len).max().unwrap_or(0);
    let mut headers: Vec<Header> = Vec::new();
    // The new loop that iterates each dimension's tiles at the innermost level so far.
    let mut enclosing: Vec<Option<(usize, i64)>> = vec![None; rank];
    let mut outermost: Vec<Option<usize>> = vec![None; rank];
    for level in 0..levels {
        for &d in &order {
            let Some(&size) = schedule.tiles[d].get(level) else {
                continue;
            };
            let dim = &band.dims[d];
            let span = size * dim.step;
            let (lower, upper) = match enclosing[d] {
                None => (as_dims_only(&dim.lower), as_dims_only(&dim.upper)),
                Some((outer, outer_span)) => {
                    let whole = whole_tiles(band, d, &schedule.tiles[d][..=level]);
                    (
                        iv_bound(outer),
                        point_upper(&dim.upper, outer, outer_span, whole),
                    )
                }
            };
            outermost[d].get_or_insert(headers.len());
            enclosing[d] = Some((headers.len(), span));
            headers.push(Header {
                lower,
                upper,
                step: span,
                annotations_from: None,
                set: Vec::new(),
            });
        }
    }
    let mut new_iv_of_old = vec![0; rank];
    for &d in &order {
        let dim = &band.dims[d];
        let (lower, upper) = match enclosing[d] {
            None => (as_dims_only(&dim.lower), as_dims_only(&dim.upper)),
            Some((outer, span)) => {
                let whole = whole_tiles(band, d, &schedule.tiles[d]);
                (iv_bound(outer), point_upper(&dim.upper, outer, span, whole))
            }
        };
        outermost[d].get_or_insert(headers.len());
        new_iv_of_old[d] = headers.len();
        headers.push(Header {
            lower,
            upper,
            step: dim.step,
            annotations_from: Some(band.loops[d]),
            set: Vec::new(),
        });
    }
    annotate(ctx, &mut headers, schedule, &outermost);
    rebuild(ctx, band, &headers, &new_iv_of_old);
    Ok(())
}

/// Whether the tiles of sizes `sizes` (outermost first) of dimension `d` are all whole:
/// its range is constant and each size divides the range or tile outside it.
fn whole_tiles(band: &Band, d: usize, sizes: &[i64]) -> bool {
    let dim = &band.dims[d];
    let (Some(lo), Some(hi)) = (dim.lower.constant(), dim.upper.constant()) else {
        return false;
    };
    let mut outer = hi - lo;
    for &size in sizes {
        let width = size * dim.step;
        if outer % width != 0 {
            return false;
        }
        outer = width;
    }
    true
}

/// Marks the new loops: threads on each parallel dimension's outermost loop, vector width
/// and unroll factor on the innermost loop (overriding what that loop kept).
fn annotate(
    ctx: &mut Context,
    headers: &mut [Header],
    schedule: &Schedule,
    outermost: &[Option<usize>],
) {
    let unit = ctx.unit_attr();
    for &d in &schedule.parallel {
        if let Some(i) = outermost[d] {
            headers[i].set.push(("parallel", unit));
        }
    }
    let i64_ty = ctx.i64();
    let Some(innermost) = headers.last_mut() else {
        return;
    };
    for (name, value) in [("vectorize", schedule.vector), ("unroll", schedule.unroll)] {
        if value > 1 {
            let attr = ctx.intern_attr(AttrKind::Integer {
                ty: i64_ty,
                value: value as i128,
            });
            innermost.set.push((name, attr));
        }
    }
}

/// Applies `schedule` to a nest of spatial dimensions and reduction loops (see
/// [`LoopNest`]): the spatial dimensions become a band of `loop.for`s tiled and ordered as
/// the schedule says (a `loop.parallel` that becomes loops keeps threads only on the
/// dimensions the schedule lists), with the reduction loops inside, each strip-mined by
/// its tiles in place, so accumulators stay in registers. The reductions therefore stay
/// innermost, in their order; `vector` and `unroll` mark the innermost loop: the innermost
/// spatial loop of a nest without reductions, else the innermost reduction loop, which
/// then combines its terms in `vector` interleaved partial sums (the backend's vectorizer
/// may reorder that loop's reduction, and only that loop's).
pub fn apply_to_nest(
    ctx: &mut Context,
    nest: &LoopNest,
    schedule: &Schedule,
) -> Result<(), String> {
    let rank = nest.rank();
    schedule.verify(rank, &nest.reduction_flags())?;
    if schedule.pack != Packing::None {
        return Err(format!(
            "packing ({}) is only applied by a micro-kernel",
            schedule.pack.keyword()
        ));
    }
    let spatial = nest.spatial.dims.len();
    let order = schedule.effective_order();
    if order[spatial..].iter().copied().ne(spatial..rank) {
        return Err(format!(
            "order {order:?} moves a reduction dimension; reductions stay innermost, in their order"
        ));
    }
    let mut innermost_reduction = None;
    for (r, &point) in nest.reductions.iter().enumerate() {
        let mut point = point;
        for &size in &schedule.tiles[spatial + r] {
            point = strip_mine(ctx, point, size)?.1;
        }
        innermost_reduction = Some(point);
    }
    if let Some(point) = innermost_reduction {
        let i64_ty = ctx.i64();
        for (name, value) in [("unroll", schedule.unroll), ("vectorize", schedule.vector)] {
            if value > 1 {
                let attr = ctx.intern_attr(AttrKind::Integer {
                    ty: i64_ty,
                    value: value as i128,
                });
                set_mark(ctx, point, name, attr);
            }
        }
    }
    if spatial == 0 {
        return Ok(());
    }
    let spatial_schedule = Schedule {
        tiles: schedule.tiles[..spatial].to_vec(),
        order: order[..spatial].to_vec(),
        parallel: schedule.parallel.clone(),
        vector: if nest.reductions.is_empty() {
            schedule.vector
        } else {
            1
        },
        unroll: if nest.reductions.is_empty() {
            schedule.unroll
        } else {
            1
        },
        pack: Packing::None,
    };
    apply_schedule(ctx, &nest.spatial, &spatial_schedule)
}

/// Applies `schedule` to every nest under `root` that has as many dimensions: a
/// `loop.parallel` with its reductions or a reduction loop ([`apply_to_nest`]), or a
/// rectangular band of `loop.for`s ([`apply_schedule`]). Nests of another rank or form are
/// left as they are; a schedule that does not fit a nest of its rank is an error there.
pub fn apply_everywhere(
    ctx: &mut Context,
    root: OpId,
    schedule: &Schedule,
) -> Result<(), Diagnostic> {
    let rank = schedule.tiles.len();
    for outer in outermost_nests(ctx, root) {
        let loc = ctx.op(outer).loc;
        let result = match LoopNest::of(ctx, outer) {
            Ok(nest) if nest.rank() == rank => apply_to_nest(ctx, &nest, schedule),
            Ok(_) => Ok(()),
            Err(_) => match Band::of(ctx, outer, rank) {
                Ok(band) => apply_schedule(ctx, &band, schedule),
                Err(_) => Ok(()),
            },
        };
        result.map_err(|why| Diagnostic::error(loc, why))?;
    }
    Ok(())
}
