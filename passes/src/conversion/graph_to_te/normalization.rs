//! Normalizations and softmax, as chains of reductions and elementwise computes:
//!
//! - BatchNormalization (inference): per channel `a = scale / sqrt(var + eps)` and
//!   `b = B - mean * a`, then `x * a + b`, as the kernel folds it;
//! - InstanceNormalization and LayerNormalization: the mean, the mean of squared
//!   deviations, `1 / sqrt(var + eps)`, then `(x - mean) * inv * scale + B` (LayerNorm also
//!   returns Mean and InvStdDev in f32, or f64 for f64 inputs);
//! - Softmax: the max along the axis, the sum of `exp(x - max)`, the quotient;
//!   LogSoftmax: `x - max - log(sum)`.

use tb_dialects::graph::shape;
use tb_ir::affine::AffineExpr;
use tb_ir::{Type, Value};

use super::LowerFn;
use super::builder::{
    Combiner, LowerResult, Lowering, broadcast_exprs, element_count, identity_exprs, is_float_type,
    no_lowering,
};
use super::reduce::reduce_over;
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::BatchNormalization => batch_norm,
        GraphOp::InstanceNormalization => instance_norm,
        GraphOp::LayerNormalization => layer_norm,
        GraphOp::Softmax | GraphOp::LogSoftmax => softmax,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

fn check_float(l: &Lowering, element: Type) -> LowerResult<()> {
    if is_float_type(l.ctx, element) {
        Ok(())
    } else {
        Err(no_lowering("a normalization of integers"))
    }
}

fn batch_norm(l: &mut Lowering) -> LowerResult {
    let eps = l.attrs().f64("epsilon")?;
    let [x, scale, bias, mean, var] = [0, 1, 2, 3, 4].map(|i| l.operand(i));
    let (xs, element) = (l.shape(x), l.element(x));
    check_float(l, element)?;
    let channels = [xs[1]];
    let acc = l.compute_type(element);
    let one = identity_exprs(1);
    let a = l.compute(&channels, acc, None, |b| {
        let s = b.read_widened(scale, one.clone());
        let v = b.read_widened(var, one.clone());
        let e = b.constant_like(eps, v);
        let d = b.add(v, e);
        let d = b.math("math.sqrt", d);
        Ok(b.div(s, d))
    })?;
    let shift = l.compute(&channels, acc, None, |b| {
        let bv = b.read_widened(bias, one.clone());
        let m = b.read_widened(mean, one.clone());
        let av = b.read(a, one.clone());
        let p = b.mul(m, av);
        Ok(b.sub(bv, p))
    })?;
    let y = l.compute(&xs, element, None, |b| {
        let v = b.read_widened(x, identity_exprs(xs.len()));
        let av = b.read(a, vec![dim(1)]);
        let sv = b.read(shift, vec![dim(1)]);
        let p = b.mul(v, av);
        Ok(b.add(p, sv))
    })?;
    Ok(vec![y])
}

/// The mean and `1 / sqrt(variance + eps)` of `x` over `axes`, as tensors of `stats`
/// (`x`'s shape with 1 at the reduced axes) and `ty` elements.
fn moments(
    l: &mut Lowering,
    x: Value,
    axes: &[usize],
    eps: f64,
    ty: Type,
) -> LowerResult<(Value, Value)> {
    let xs = l.shape(x);
    let mut stats = xs.clone();
    for &a in axes {
        stats[a] = 1;
    }
    let rank = xs.len();
    let reduced: Vec<i64> = axes.iter().map(|&a| xs[a]).collect();
    let count = element_count(&reduced)?;
    let sum = reduce_over(l, x, axes, true, &stats, ty, Combiner::Sum, |_, v| Ok(v))?;
    let mean = l.compute(&stats, ty, None, |b| {
        let s = b.read(sum, identity_exprs(rank));
        let n = b.constant_like(count as f64, s);
        Ok(b.div(s, n))
    })?;
    let squares = reduce_over(l, x, axes, true, &stats, ty, Combiner::Sum, |b, v| {
        let m = b.read(mean, identity_exprs(rank));
        let d = b.sub(v, m);
        Ok(b.mul(d, d))
    })?;
    let inv_std = l.compute(&stats, ty, None, |b| {
        let s = b.read(squares, identity_exprs(rank));
        let n = b.constant_like(count as f64, s);
        let var = b.div(s, n);
        let e = b.constant_like(eps, var);
        let v = b.add(var, e);
        let sd = b.math("math.sqrt", v);
        let one = b.constant_like(1.0, sd);
        Ok(b.div(one, sd))
    })?;
    Ok((mean, inv_std))
}

/// `(x - mean) * inv_std * scale + bias`; the stats are read at `stats_exprs`, scale and
/// bias at theirs.
fn normalize(
    l: &mut Lowering,
    x: Value,
    (mean, inv_std): (Value, Value),
    stats_exprs: Vec<AffineExpr>,
    (scale, scale_exprs): (Value, Vec<AffineExpr>),
    bias: Option<(Value, Vec<AffineExpr>)>,
) -> LowerResult<Value> {
    let (xs, element) = (l.shape(x), l.element(x));
    l.compute(&xs, element, None, |b| {
        let v = b.read_widened(x, identity_exprs(xs.len()));
        let m = b.read(mean, stats_exprs.clone());
        let inv = b.read(inv_std, stats_exprs);
        let d = b.sub(v, m);
        let n = b.mul(d, inv);
        let s = b.read_widened(scale, scale_exprs);
        let mut y = b.mul(n, s);
        if let Some((bias, exprs)) = bias {
            let bv = b.read_widened(bias, exprs);
            y = b.add(y, bv);
        }
        Ok(y)
    })
}

fn instance_norm(l: &mut Lowering) -> LowerResult {
    let eps = l.attrs().f64("epsilon")?;
    let [x, scale, bias] = [0, 1, 2].map(|i| l.operand(i));
    let (xs, element) = (l.shape(x), l.element(x));
    check_float(l, element)?;
    let acc = l.compute_type(element);
    let axes: Vec<usize> = (2..xs.len()).collect();
    let stats = moments(l, x, &axes, eps, acc)?;
    let stats_exprs = (0..xs.len())
        .map(|j| {
            if j < 2 {
                dim(j)
            } else {
                AffineExpr::constant(0)
            }
        })
        .collect();
    let y = normalize(
        l,
        x,
        stats,
        stats_exprs,
        (scale, vec![dim(1)]),
        Some((bias, vec![dim(1)])),
    )?;
    Ok(vec![y])
}

fn layer_norm(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (eps, axis) = (a.f64("epsilon")?, a.i64("axis")?);
    let x = l.operand(0);
    let scale = l.operand(1);
    let bias = (l.num_operands() > 2).then(|| l.operand(2));
    let (xs, element) = (l.shape(x), l.element(x));
    check_float(l, element)?;
    let axis =
        shape::normalize_axis("LayerNormalization", axis, xs.len()).map_err(|e| e.message)?;
    // Statistics are f32 (ONNX's stash_type), or f64 for f64 inputs.
    let f32 = l.f32();
    let stash = if element == l.ctx.float_type(tb_ir::FloatKind::F64) {
        element
    } else {
        f32
    };
    let axes: Vec<usize> = (axis..xs.len()).collect();
    let (mean, inv_std) = moments(l, x, &axes, eps, stash)?;
    let stats_exprs = (0..xs.len())
        .map(|j| {
            if j < axis {
                dim(j)
            } else {
                AffineExpr::constant(0)
            }
        })
        .collect();
    let scale_exprs = broadcast_exprs(&l.shape(scale), &xs);
    let bias = bias.map(|b| (b, broadcast_exprs(&l.shape(b), &xs)));
    let y = normalize(
        l,
        x,
        (mean, inv_std),
        stats_exprs,
        (scale, scale_exprs),
        bias,
    )?;
    let mut results = vec![y, mean, inv_std];
    for (i, r) in results
        .iter_mut()
        .enumerate()
        .skip(1)
        .take(l.num_results() - 1)
    {
        // The declared stats type must be the stash type; convert if it is not.
        let want = l.result_element(i);
        if l.element(*r) != want {
            let stats = l.result_shape(i);
            *r = super::matmul::narrow(l, *r, &stats, want)?;
        }
    }
    results.truncate(l.num_results());
    Ok(results)
}

fn softmax(l: &mut Lowering) -> LowerResult {
    let log = l.ctx.op_name(l.op) == "graph.log_softmax";
    let axis = l.attrs().i64("axis")?;
    let x = l.operand(0);
    let (xs, element) = (l.shape(x), l.element(x));
    check_float(l, element)?;
    let axis = shape::normalize_axis("Softmax", axis, xs.len()).map_err(|e| e.message)?;
    if xs[axis] == 0 {
        return Ok(vec![x]);
    }
    let acc = l.compute_type(element);
    let mut stats = xs.clone();
    stats[axis] = 1;
    let rank = xs.len();
    let max = reduce_over(l, x, &[axis], true, &stats, acc, Combiner::Max, |_, v| {
        Ok(v)
    })?;
    let sum = reduce_over(l, x, &[axis], true, &stats, acc, Combiner::Sum, |b, v| {
        let m = b.read(max, identity_exprs(rank));
        let d = b.sub(v, m);
        Ok(b.math("math.exp", d))
    })?;
    let mut stats_exprs = identity_exprs(rank);
    stats_exprs[axis] = AffineExpr::constant(0);
    let y = l.compute(&xs, element, None, |b| {
        let v = b.read_widened(x, identity_exprs(rank));
        let m = b.read(max, stats_exprs.clone());
        let s = b.read(sum, stats_exprs);
        let d = b.sub(v, m);
        Ok(if log {
            let ls = b.math("math.log", s);
            b.sub(d, ls)
        } else {
            let e = b.math("math.exp", d);
            b.div(e, s)
        })
    })?;
    Ok(vec![y])
}
