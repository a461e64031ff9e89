//! Reads and writes at index tuples, and TopK.
//!
//! GatherND reads the data at the index tuple with `te.read_at`. A scatter is a reduction
//! over the update positions: an update "hits" an output position when its index tuple
//! names it. With a reduction, the hits are summed (multiplied, maxed) and combined with
//! the data; without one, a max reduction finds the last hit (row-major), whose update is
//! then read, or the data where nothing hits. TopK ranks every element along the axis by
//! counting the elements before it (a sum reduction), finds the index holding each rank
//! (another), and reads the values there: quadratic in the axis length.

use tb_dialects::graph::shape;
use tb_ir::affine::AffineExpr;
use tb_ir::{Type, Value};

use super::LowerFn;
use super::builder::{
    Body, Cmp, Combiner, LowerResult, Lowering, Reduction, identity_exprs, is_empty, no_lowering,
};
use super::shape_ops::axis_index;
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::GatherNd => gather_nd,
        GraphOp::ScatterNd => scatter_nd,
        GraphOp::ScatterElements => scatter_elements,
        GraphOp::TopK => top_k,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

fn gather_nd(l: &mut Lowering) -> LowerResult {
    let batch = usize::try_from(l.attrs().i64("batch_dims")?)
        .map_err(|_| no_lowering("a negative batch_dims"))?;
    let (data, indices) = (l.operand(0), l.operand(1));
    let (ds, is) = (l.shape(data), l.shape(indices));
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let q = is.len();
    let k = is[q - 1] as usize;
    let y = l.compute(&out, element, None, |b| {
        let mut at: Vec<Value> = (0..batch).map(|d| b.index(d)).collect();
        for j in 0..k {
            let mut exprs: Vec<AffineExpr> = (0..q - 1).map(dim).collect();
            exprs.push(AffineExpr::constant(j as i64));
            let raw = b.read(indices, exprs);
            at.push(axis_index(b, raw, ds[batch + j]));
        }
        at.extend((batch + k..ds.len()).map(|d| b.index(q - 1 + d - batch - k)));
        Ok(b.read_at(data, &at))
    })?;
    Ok(vec![y])
}

/// How a scatter combines updates with the data.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scatter {
    Replace,
    Combine(Combiner),
}

fn scatter_kind(l: &Lowering) -> LowerResult<Scatter> {
    Ok(
        match l
            .attrs()
            .choice("reduction", &["none", "add", "mul", "max", "min"])?
            .as_str()
        {
            "add" => Scatter::Combine(Combiner::Sum),
            "mul" => Scatter::Combine(Combiner::Prod),
            "max" => Scatter::Combine(Combiner::Max),
            "min" => Scatter::Combine(Combiner::Min),
            _ => Scatter::Replace,
        },
    )
}

/// The scatter of one op: `hit` says whether the update at the reduction indices lands on
/// the output position, `update` reads it, `position` gives its row-major position among
/// the updates (as i64) and `read_last` reads the update at such a position.
struct ScatterParts<'f> {
    extents: Vec<i64>,
    hit: &'f dyn Fn(&mut Body) -> Value,
    update: &'f dyn Fn(&mut Body) -> Value,
    position: &'f dyn Fn(&mut Body) -> Value,
    read_last: &'f dyn Fn(&mut Body, Value) -> Value,
}

fn scatter(l: &mut Lowering, parts: &ScatterParts) -> LowerResult {
    let data = l.operand(0);
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) || is_empty(&parts.extents) {
        return Ok(vec![data]);
    }
    let rank = out.len();
    let i64_ty = l.ctx.i64();
    match scatter_kind(l)? {
        Scatter::Replace => {
            let last = l.compute(
                &out,
                i64_ty,
                Some(Reduction {
                    extents: &parts.extents,
                    combiner: Combiner::Max,
                }),
                |b| {
                    let hit = (parts.hit)(b);
                    let at = (parts.position)(b);
                    let none = b.constant(-1.0, i64_ty);
                    Ok(b.select(hit, at, none))
                },
            )?;
            let y = l.compute(&out, element, None, |b| {
                let last = b.read(last, identity_exprs(rank));
                let zero = b.constant(0.0, i64_ty);
                let written = b.cmp(Cmp::Ge, last, zero);
                let at = b.max(last, zero);
                let update = (parts.read_last)(b, at);
                let old = b.read(data, identity_exprs(rank));
                Ok(b.select(written, update, old))
            })?;
            Ok(vec![y])
        }
        Scatter::Combine(combiner) => {
            let extreme = matches!(combiner, Combiner::Max | Combiner::Min);
            let acc: Type = if extreme {
                element
            } else {
                l.compute_type(element)
            };
            let combined = l.compute(
                &out,
                acc,
                Some(Reduction {
                    extents: &parts.extents,
                    combiner,
                }),
                |b| {
                    let hit = (parts.hit)(b);
                    let u = (parts.update)(b);
                    let u = if extreme { u } else { b.widen(u) };
                    // What leaves the result alone where nothing hits.
                    let neutral = match combiner {
                        Combiner::Sum => b.constant_like(0.0, u),
                        Combiner::Prod => b.constant_like(1.0, u),
                        _ => b.read(data, identity_exprs(rank)),
                    };
                    Ok(b.select(hit, u, neutral))
                },
            )?;
            let y = l.compute(&out, element, None, |b| {
                let old = b.read(data, identity_exprs(rank));
                let old = if extreme { old } else { b.widen(old) };
                let c = b.read(combined, identity_exprs(rank));
                Ok(match combiner {
                    Combiner::Sum => b.add(old, c),
                    Combiner::Prod => b.mul(old, c),
                    Combiner::Max => b.max(old, c),
                    Combiner::Min => b.min(old, c),
                })
            })?;
            Ok(vec![y])
        }
    }
}

/// `Σ dim(first + d) * stride(d)`: the row-major position of the reduction indices over
/// `extents`, as i64.
fn linear_position(b: &mut Body, first: usize, extents: &[i64]) -> Value {
    let mut expr = AffineExpr::constant(0);
    let mut stride = 1;
    for (d, &e) in extents.iter().enumerate().rev() {
        expr = expr + dim(first + d) * stride;
        stride *= e;
    }
    let at = b.apply(&expr);
    let i64_ty = b.ctx.i64();
    b.index_cast(at, i64_ty)
}

/// The coordinates of row-major position `at` (i64) over `extents`, as index values.
fn coordinates(b: &mut Body, at: Value, extents: &[i64]) -> Vec<Value> {
    let i64_ty = b.ctx.i64();
    let index_ty = b.ctx.index_type();
    let mut coords = Vec::with_capacity(extents.len());
    let mut stride: i64 = extents.iter().product();
    for &e in extents {
        stride /= e.max(1);
        let s = b.constant(stride as f64, i64_ty);
        let n = b.constant(e as f64, i64_ty);
        let q = b.op("arith.divsi", &[at, s], i64_ty);
        let c = b.op("arith.remsi", &[q, n], i64_ty);
        coords.push(b.index_cast(c, index_ty));
    }
    coords
}

fn scatter_nd(l: &mut Lowering) -> LowerResult {
    let (indices, updates) = (l.operand(1), l.operand(2));
    let ds = l.shape(l.operand(0));
    let is = l.shape(indices);
    let r = ds.len();
    let q = is.len();
    let k = is[q - 1] as usize;
    let extents: Vec<i64> = is[..q - 1].to_vec();
    let update_exprs = |rest_from: usize| -> Vec<AffineExpr> {
        let mut e: Vec<AffineExpr> = (0..q - 1).map(|t| dim(r + t)).collect();
        e.extend((k..rest_from).map(dim));
        e
    };
    let hit = |b: &mut Body| {
        let mut all: Option<Value> = None;
        for (j, &extent) in ds.iter().enumerate().take(k) {
            let mut exprs: Vec<AffineExpr> = (0..q - 1).map(|t| dim(r + t)).collect();
            exprs.push(AffineExpr::constant(j as i64));
            let raw = b.read(indices, exprs);
            let i = axis_index(b, raw, extent);
            let here = b.index(j);
            let same = b.cmp(Cmp::Eq, i, here);
            all = Some(match all {
                Some(prev) => b.and(prev, same),
                None => same,
            });
        }
        all.expect("k is at least 1")
    };
    let update = |b: &mut Body| b.read(updates, update_exprs(r));
    let position = |b: &mut Body| linear_position(b, r, &extents);
    let read_last = |b: &mut Body, at: Value| {
        let mut at = coordinates(b, at, &extents);
        at.extend((k..r).map(|d| b.index(d)));
        b.read_at(updates, &at)
    };
    scatter(
        l,
        &ScatterParts {
            extents: extents.clone(),
            hit: &hit,
            update: &update,
            position: &position,
            read_last: &read_last,
        },
    )
}

fn scatter_elements(l: &mut Lowering) -> LowerResult {
    let (indices, updates) = (l.operand(1), l.operand(2));
    let ds = l.shape(l.operand(0));
    let is = l.shape(indices);
    let r = ds.len();
    let axis = shape::normalize_axis("ScatterElements", l.attrs().i64("axis")?, r)
        .map_err(|e| e.message)?;
    let at_update: Vec<AffineExpr> = (0..r).map(|d| dim(r + d)).collect();
    let hit = |b: &mut Body| {
        let raw = b.read(indices, at_update.clone());
        let target = axis_index(b, raw, ds[axis]);
        let here = b.index(axis);
        let mut all = b.cmp(Cmp::Eq, target, here);
        for d in (0..r).filter(|&d| d != axis) {
            let (u, o) = (b.index(r + d), b.index(d));
            let same = b.cmp(Cmp::Eq, u, o);
            all = b.and(all, same);
        }
        all
    };
    let update = |b: &mut Body| b.read(updates, at_update.clone());
    // Hits differ only along the axis, so the last one has the largest axis position.
    let position = |b: &mut Body| {
        let at = b.index(r + axis);
        let i64_ty = b.ctx.i64();
        b.index_cast(at, i64_ty)
    };
    let read_last = |b: &mut Body, at: Value| {
        let index_ty = b.ctx.index_type();
        let mut coords: Vec<Value> = (0..r).map(|d| b.index(d)).collect();
        coords[axis] = b.index_cast(at, index_ty);
        b.read_at(updates, &coords)
    };
    scatter(
        l,
        &ScatterParts {
            extents: is,
            hit: &hit,
            update: &update,
            position: &position,
            read_last: &read_last,
        },
    )
}

/// Whether `a` (at index `i`) comes before `b` (at `j`) in TopK's order: by value, NaN
/// beyond every number, equal values by index.
fn before(b: &mut Body, a: Value, i: Value, v: Value, j: Value, largest: bool) -> Value {
    let a_nan = b.cmp(Cmp::Ne, a, a);
    let v_nan = b.cmp(Cmp::Ne, v, v);
    let (first_nan, other_nan, strict) = if largest {
        (a_nan, v_nan, b.cmp(Cmp::Gt, a, v))
    } else {
        (v_nan, a_nan, b.cmp(Cmp::Lt, a, v))
    };
    let other_number = b.not(other_nan);
    let nan_first = b.and(first_nan, other_number);
    let wins = b.or(strict, nan_first);
    let both_nan = b.and(a_nan, v_nan);
    let equal = b.cmp(Cmp::Eq, a, v);
    let tie = b.or(equal, both_nan);
    let earlier = b.cmp(Cmp::Lt, i, j);
    let tie_break = b.and(tie, earlier);
    b.or(wins, tie_break)
}

fn top_k(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let largest = a.bool("largest")?;
    let x = l.operand(0);
    let xs = l.shape(x);
    let r = xs.len();
    let axis = shape::normalize_axis("TopK", a.i64("axis")?, r).map_err(|e| e.message)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let i64_ty = l.ctx.i64();
    if is_empty(&out) {
        return Ok(vec![
            l.splat(&out, element, 0.0),
            l.splat(&out, i64_ty, 0.0),
        ]);
    }
    let n = xs[axis];
    let mut along = identity_exprs(r);
    along[axis] = dim(r);
    // The rank of each element: how many come before it.
    let rank = l.compute(
        &xs,
        i64_ty,
        Some(Reduction {
            extents: &[n],
            combiner: Combiner::Sum,
        }),
        |b| {
            let other = b.read(x, along.clone());
            let this = b.read(x, identity_exprs(r));
            let (i, j) = (b.index(r), b.index(axis));
            let first = before(b, other, i, this, j, largest);
            let (one, zero) = (b.constant(1.0, i64_ty), b.constant(0.0, i64_ty));
            Ok(b.select(first, one, zero))
        },
    )?;
    // The index holding each rank.
    let indices = l.compute(
        &out,
        i64_ty,
        Some(Reduction {
            extents: &[n],
            combiner: Combiner::Sum,
        }),
        |b| {
            let rank_j = b.read(rank, along.clone());
            let wanted = b.index(axis);
            let wanted = b.index_cast(wanted, i64_ty);
            let hit = b.cmp(Cmp::Eq, rank_j, wanted);
            let j = b.index(r);
            let j = b.index_cast(j, i64_ty);
            let zero = b.constant(0.0, i64_ty);
            Ok(b.select(hit, j, zero))
        },
    )?;
    let values = l.compute(&out, element, None, |b| {
        let index_ty = b.ctx.index_type();
        let j = b.read(indices, identity_exprs(r));
        let j = b.index_cast(j, index_ty);
        let mut at: Vec<Value> = (0..r).map(|d| b.index(d)).collect();
        at[axis] = j;
        Ok(b.read_at(x, &at))
    })?;
    Ok(vec![values, indices])
}
