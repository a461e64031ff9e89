//! Reductions. `graph.reduce_*` reduce the `axes` of their input with a te combiner
//! (sum, max, min, prod), mapping each element first (L1: `|x|`, L2 and SumSquare: `x²`,
//! LogSumExp: `exp(x - max)`) and finishing elementwise (Mean: `/ count`, L2: `sqrt`,
//! LogSum(Exp): `log`). ArgMax/ArgMin find the extreme value, then the first (or last)
//! position that holds it: a min (max) reduction of matching positions.

use tb_dialects::graph::shape;
use tb_dialects::graph::{GraphOp, ReduceCombiner, ReduceKind as Kind};
use tb_ir::affine::AffineExpr;
use tb_ir::ods::OpKind;
use tb_ir::{Type, Value};

use super::LowerFn;
use super::builder::{
    Body, Cmp, Combiner, LowerResult, Lowering, Reduction, element_count, identity_exprs,
    is_float_type, no_lowering,
};

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::ArgMax | GraphOp::ArgMin => arg_reduce,
        _ if kind.reduce_kind().is_some() => reduce,
        _ => return None,
    })
}

/// The reading of an input of rank `rank` whose `axes` (sorted) are reduced: kept axes
/// are result dims (`keepdims`: at their own position), reduced ones the reduction axes
/// that follow the `out_rank` result dims.
pub(super) fn reduced_exprs(
    rank: usize,
    axes: &[usize],
    keepdims: bool,
    out_rank: usize,
) -> Vec<AffineExpr> {
    let mut kept = 0;
    (0..rank)
        .map(|j| match axes.iter().position(|&a| a == j) {
            Some(r) => AffineExpr::dim((out_rank + r) as u32),
            None => {
                let d = if keepdims { j } else { kept };
                kept += 1;
                AffineExpr::dim(d as u32)
            }
        })
        .collect()
}

/// `combiner` over `axes` of `x` into `out` (`ty` elements), each element mapped by `f`
/// (which also gets the body, to read other tensors).
#[allow(clippy::too_many_arguments)]
pub(super) fn reduce_over(
    l: &mut Lowering,
    x: Value,
    axes: &[usize],
    keepdims: bool,
    out: &[i64],
    ty: Type,
    combiner: Combiner,
    f: impl FnOnce(&mut Body, Value) -> LowerResult<Value>,
) -> LowerResult<Value> {
    let xs = l.shape(x);
    let extents: Vec<i64> = axes.iter().map(|&a| xs[a]).collect();
    let exprs = reduced_exprs(xs.len(), axes, keepdims, out.len());
    let widen = ty != l.element(x);
    // Over no axes (a 0-d input) each output reduces one element: combined with the
    // identity it is that element, so the compute only maps it.
    l.compute(
        out,
        ty,
        (!axes.is_empty()).then_some(Reduction {
            extents: &extents,
            combiner,
        }),
        |b| {
            let v = b.read(x, exprs);
            let v = if widen { b.widen(v) } else { v };
            f(b, v)
        },
    )
}

fn reduce(l: &mut Lowering) -> LowerResult {
    let kind = GraphOp::of(l.ctx, l.op)
        .and_then(GraphOp::reduce_kind)
        .ok_or_else(|| no_lowering("unknown reduction"))?;
    let a = l.attrs();
    let (axes, keepdims, noop) = (
        a.ints("axes")?.unwrap_or_default(),
        a.bool("keepdims")?,
        a.bool("noop_with_empty_axes")?,
    );
    let x = l.operand(0);
    let xs = l.shape(x);
    let g = shape::reduce_geometry("Reduce", &xs, &axes, keepdims, noop).map_err(|e| e.message)?;
    if g.axes.is_empty() && noop {
        return Ok(vec![x]);
    }
    let element = l.element(x);
    let float = is_float_type(l.ctx, element);
    let extreme = kind.is_extreme();
    if !float && matches!(kind, Kind::L2 | Kind::LogSum | Kind::LogSumExp) {
        return Err(no_lowering("a logarithmic or L2 reduction of integers"));
    }
    let out = g.output.clone();
    let reduced: Vec<i64> = g.axes.iter().map(|&a| xs[a]).collect();
    let count = element_count(&reduced)?;
    if count == 0 {
        return Ok(vec![l.splat(&out, element, empty_value(l, kind, element))]);
    }
    // Max and min do not round: they reduce in the element type itself.
    let acc = if extreme {
        element
    } else {
        l.compute_type(element)
    };
    let combiner = kind.combiner();
    let rank = out.len();
    let shift = if kind == Kind::LogSumExp {
        // exp(x - max) cannot overflow; an infinite max shifts by 0, as the kernel does.
        let m = reduce_over(l, x, &g.axes, keepdims, &out, acc, Combiner::Max, |_, v| {
            Ok(v)
        })?;
        Some(l.compute(&out, acc, None, |b| {
            let m = b.read(m, identity_exprs(rank));
            let infinite = b.math_predicate("math.isinf", m);
            let zero = b.constant_like(0.0, m);
            Ok(b.select(infinite, zero, m))
        })?)
    } else {
        None
    };
    let reduced = reduce_over(l, x, &g.axes, keepdims, &out, acc, combiner, |b, v| {
        Ok(match kind {
            Kind::L1 => b.abs(v),
            Kind::L2 | Kind::SumSquare => b.mul(v, v),
            Kind::LogSumExp => {
                let s = b.read(shift.expect("computed above"), identity_exprs(rank));
                let d = b.sub(v, s);
                b.math("math.exp", d)
            }
            _ => v,
        })
    })?;
    if !matches!(kind, Kind::Mean | Kind::L2 | Kind::LogSum | Kind::LogSumExp) {
        return Ok(vec![super::matmul::narrow(l, reduced, &out, element)?]);
    }
    let y = l.compute(&out, element, None, |b| {
        let v = b.read(reduced, identity_exprs(rank));
        Ok(match kind {
            Kind::Mean => {
                let n = b.constant_like(count as f64, v);
                b.div(v, n)
            }
            Kind::L2 => b.math("math.sqrt", v),
            Kind::LogSum => b.math("math.log", v),
            Kind::LogSumExp => {
                let s = b.read(shift.expect("computed above"), identity_exprs(rank));
                let log = b.math("math.log", v);
                b.add(s, log)
            }
            _ => v,
        })
    })?;
    Ok(vec![y])
}

/// What a reduction of no elements gives, as the kernel defines it.
fn empty_value(l: &Lowering, kind: Kind, element: Type) -> f64 {
    let float = is_float_type(l.ctx, element);
    match kind {
        Kind::Prod => 1.0,
        Kind::Max if float => f64::NEG_INFINITY,
        Kind::Min if float => f64::INFINITY,
        // Integers saturate to the type's extremes when the constant is built.
        Kind::Max => f64::NEG_INFINITY,
        Kind::Min => f64::INFINITY,
        Kind::Mean if float => f64::NAN,
        Kind::LogSum | Kind::LogSumExp => f64::NEG_INFINITY,
        _ => 0.0,
    }
}

fn arg_reduce(l: &mut Lowering) -> LowerResult {
    let is_max = l.ctx.op_name(l.op) == "graph.arg_max";
    let a = l.attrs();
    let (axis, keepdims, last) = (
        a.i64("axis")?,
        a.bool("keepdims")?,
        a.bool("select_last_index")?,
    );
    let x = l.operand(0);
    let xs = l.shape(x);
    let element = l.element(x);
    let axis = shape::normalize_axis("ArgReduce", axis, xs.len()).map_err(|e| e.message)?;
    if xs[axis] == 0 {
        return Err(no_lowering("an arg reduction over an empty axis"));
    }
    let mut kept = xs.clone();
    kept[axis] = 1;
    let extreme = if is_max { Combiner::Max } else { Combiner::Min };
    let m = reduce_over(l, x, &[axis], true, &kept, element, extreme, |_, v| Ok(v))?;
    let out = l.result_shape(0);
    let i64_ty = l.ctx.i64();
    let x_exprs = reduced_exprs(xs.len(), &[axis], keepdims, out.len());
    let mut m_exprs = x_exprs.clone();
    m_exprs[axis] = AffineExpr::constant(0);
    let float = is_float_type(l.ctx, element);
    let y = l.compute(
        &out,
        i64_ty,
        Some(Reduction {
            extents: &[xs[axis]],
            combiner: if last { Combiner::Max } else { Combiner::Min },
        }),
        |b| {
            let v = b.read(x, x_exprs);
            let best = b.read(m, m_exprs);
            // A NaN wins over numbers, so a NaN extreme is matched by NaNs.
            let mut hit = b.cmp(Cmp::Eq, v, best);
            if float {
                let nan = b.cmpf_pred("uno", v, v);
                hit = b.or(hit, nan);
            }
            let position = b.index(out.len());
            let position = b.index_cast(position, i64_ty);
            let none = b.constant(if last { -1.0 } else { i64::MAX as f64 }, i64_ty);
            Ok(b.select(hit, position, none))
        },
    )?;
    Ok(vec![y])
}
