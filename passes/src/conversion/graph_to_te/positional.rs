//! Ops whose result depends on an element's position along an axis. Trilu selects by
//! `col - row` against `k`; CumSum is a sum reduction over the whole axis whose terms are
//! masked by their position relative to the output's (quadratic in the axis length, but
//! one affine `te.compute`); Hardmax is a max reduction (NaN left out), a min reduction
//! that finds the first position holding the max, and a compare.

use tb_dialects::graph::shape;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{Cmp, Combiner, LowerResult, Lowering, Reduction, identity_exprs, is_empty};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::Trilu => trilu,
        GraphOp::CumSum => cum_sum,
        GraphOp::Hardmax => hardmax,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

fn trilu(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (upper, k) = (a.bool("upper")?, a.i64("k")?);
    let x = l.operand(0);
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let r = out.len();
    let y = l.compute(&out, element, None, |b| {
        let v = b.read(x, identity_exprs(r));
        let diagonal = b.apply(&(dim(r - 1) - dim(r - 2)));
        let k = b.index_constant(k);
        let keep = b.cmp(if upper { Cmp::Ge } else { Cmp::Le }, diagonal, k);
        let zero = b.constant_like(0.0, v);
        Ok(b.select(keep, v, zero))
    })?;
    Ok(vec![y])
}

fn cum_sum(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (axis, exclusive, reverse) = (a.i64("axis")?, a.bool("exclusive")?, a.bool("reverse")?);
    let x = l.operand(0);
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let axis = shape::normalize_axis("CumSum", axis, out.len()).map_err(|e| e.message)?;
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let r = out.len();
    let acc = l.compute_type(element);
    // Term j counts toward output i when j - i is on the summed side of 0.
    let take = match (exclusive, reverse) {
        (false, false) => Cmp::Le,
        (true, false) => Cmp::Lt,
        (false, true) => Cmp::Ge,
        (true, true) => Cmp::Gt,
    };
    let sums = l.compute(
        &out,
        acc,
        Some(Reduction {
            extents: &[out[axis]],
            combiner: Combiner::Sum,
        }),
        |b| {
            let mut exprs = identity_exprs(r);
            exprs[axis] = dim(r);
            let v = b.read_widened(x, exprs);
            let offset = b.apply(&(dim(r) - dim(axis)));
            let zero_index = b.index_constant(0);
            let counts = b.cmp(take, offset, zero_index);
            let zero = b.constant_like(0.0, v);
            Ok(b.select(counts, v, zero))
        },
    )?;
    Ok(vec![super::matmul::narrow(l, sums, &out, element)?])
}

fn hardmax(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let axis = shape::normalize_axis("Hardmax", l.attrs().i64("axis")?, out.len())
        .map_err(|e| e.message)?;
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let r = out.len();
    let n = out[axis];
    let mut kept = out.clone();
    kept[axis] = 1;
    // Reads along the axis from a kept-dims result: the reduction index replaces the axis.
    let mut along = identity_exprs(r);
    along[axis] = dim(r);
    let mut at_kept = identity_exprs(r);
    at_kept[axis] = AffineExpr::constant(0);
    let extents = [n];
    let max = l.compute(
        &kept,
        element,
        Some(Reduction {
            extents: &extents,
            combiner: Combiner::Max,
        }),
        |b| {
            let v = b.read(x, along.clone());
            let nan = b.cmp(Cmp::Ne, v, v);
            let lowest = b.constant_like(f64::NEG_INFINITY, v);
            Ok(b.select(nan, lowest, v))
        },
    )?;
    let i64_ty = l.ctx.i64();
    let first = l.compute(
        &kept,
        i64_ty,
        Some(Reduction {
            extents: &extents,
            combiner: Combiner::Min,
        }),
        |b| {
            let v = b.read(x, along.clone());
            let m = b.read(max, at_kept.clone());
            let is_max = b.cmp(Cmp::Eq, v, m);
            let j = b.index(r);
            let j = b.index_cast(j, i64_ty);
            let past_end = b.constant(n as f64, i64_ty);
            Ok(b.select(is_max, j, past_end))
        },
    )?;
    let compute = l.compute_type(element);
    let y = l.compute(&out, element, None, |b| {
        let f = b.read(first, at_kept.clone());
        let i = b.index(axis);
        let i = b.index_cast(i, i64_ty);
        let hit = b.cmp(Cmp::Eq, f, i);
        let (one, zero) = (b.constant(1.0, compute), b.constant(0.0, compute));
        Ok(b.select(hit, one, zero))
    })?;
    Ok(vec![y])
}
