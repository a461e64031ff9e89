//! Data movement: each op is a copy `te.compute` whose read map says where an output
//! element comes from. Reshape, Flatten, Squeeze and Unsqueeze pair up groups of
//! dimensions with equal element counts and re-index within each group (a plain
//! identity when only unit dimensions change); Transpose permutes, Slice/Split offset
//! and stride, Expand broadcasts, Tile wraps, DepthToSpace/SpaceToDepth split and merge
//! channel indices. Concat selects among padded reads of its inputs; Gather and
//! GatherElements read at the (wrapped, clamped) indices with `te.read_at`, and ask for a
//! run-time check that the indices are in range (`checks`).

use tb_dialects::graph::shape;
use tb_ir::Value;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{
    Body, Cmp, LowerResult, Lowering, broadcast_exprs, element_count, identity_exprs, is_empty,
};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::Reshape | GraphOp::Flatten | GraphOp::Squeeze | GraphOp::Unsqueeze => reshape,
        GraphOp::Transpose => transpose,
        GraphOp::Concat => concat,
        GraphOp::Split => split,
        GraphOp::Slice => slice,
        GraphOp::Gather => gather,
        GraphOp::GatherElements => gather_elements,
        GraphOp::Expand => expand,
        GraphOp::Tile => tile,
        GraphOp::DepthToSpace => depth_to_space,
        GraphOp::SpaceToDepth => space_to_depth,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

/// A copy of `x` into result 0, reading `x` at `exprs` of the result indices.
fn copy(l: &mut Lowering, x: Value, exprs: Vec<AffineExpr>) -> LowerResult<Value> {
    let (out, element) = (l.result_shape(0), l.result_element(0));
    copy_to(l, x, &out, element, exprs)
}

fn copy_to(
    l: &mut Lowering,
    x: Value,
    out: &[i64],
    element: tb_ir::Type,
    exprs: Vec<AffineExpr>,
) -> LowerResult<Value> {
    if is_empty(out) || is_empty(&l.shape(x)) {
        return Ok(l.splat(out, element, 0.0));
    }
    l.compute(out, element, None, |b| Ok(b.read(x, exprs)))
}

/// Where each input element of a reshape from `input` to `output` (same element count,
/// none zero) comes from. Unit input dims read 0; the other dims are paired in groups of
/// equal products, and within a group the output indices are linearized and split again
/// into input indices (one dim to one dim: the identity).
pub(super) fn reshape_exprs(input: &[i64], output: &[i64]) -> Vec<AffineExpr> {
    let mut exprs = vec![AffineExpr::constant(0); input.len()];
    let ins: Vec<usize> = (0..input.len()).filter(|&k| input[k] != 1).collect();
    let outs: Vec<usize> = (0..output.len()).filter(|&k| output[k] != 1).collect();
    let (mut i, mut j) = (0, 0);
    while i < ins.len() && j < outs.len() {
        let (gi, gj) = (i, j);
        let (mut pi, mut pj) = (input[ins[i]], output[outs[j]]);
        (i, j) = (i + 1, j + 1);
        while pi != pj {
            if pi < pj && i < ins.len() {
                pi *= input[ins[i]];
                i += 1;
            } else if j < outs.len() {
                pj *= output[outs[j]];
                j += 1;
            } else {
                break;
            }
        }
        // The position within the group, in row-major order of its output dims.
        let mut linear = AffineExpr::constant(0);
        let mut stride = 1;
        for &k in outs[gj..j].iter().rev() {
            linear = linear + dim(k) * stride;
            stride *= output[k];
        }
        let mut inner = 1;
        for (n, &k) in ins[gi..i].iter().enumerate().rev() {
            let quotient = linear.clone().floor_div(inner);
            exprs[k] = if n == 0 {
                quotient
            } else {
                quotient.modulo(input[k])
            };
            inner *= input[k];
        }
    }
    exprs
}

fn reshape(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (xs, out) = (l.shape(x), l.result_shape(0));
    if xs == out {
        return Ok(vec![x]);
    }
    let exprs = if is_empty(&out) {
        Vec::new()
    } else {
        // Products within a group are at most the element counts, checked here.
        element_count(&xs)?;
        element_count(&out)?;
        reshape_exprs(&xs, &out)
    };
    Ok(vec![copy(l, x, exprs)?])
}

fn transpose(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let xs = l.shape(x);
    let perm = l.attrs().ints("perm")?;
    let perm = shape::transpose_perm(&xs, perm.as_deref()).map_err(|e| e.message)?;
    // Output dim i is input dim perm[i].
    let mut exprs = vec![AffineExpr::constant(0); xs.len()];
    for (i, &p) in perm.iter().enumerate() {
        exprs[p] = dim(i);
    }
    Ok(vec![copy(l, x, exprs)?])
}

fn concat(l: &mut Lowering) -> LowerResult {
    let axis = l.attrs().i64("axis")?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let axis = shape::normalize_axis("Concat", axis, out.len()).map_err(|e| e.message)?;
    // Inputs with no elements along the axis contribute nothing.
    let mut parts = Vec::new();
    let mut offset = 0;
    for x in l.operands() {
        let size = l.shape(x)[axis];
        if size > 0 {
            parts.push((x, offset));
        }
        offset += size;
    }
    if parts.len() == 1 {
        let (x, _) = parts[0];
        return Ok(vec![copy(l, x, identity_exprs(out.len()))?]);
    }
    if parts.is_empty() || is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let y = l.compute(&out, element, None, |b| {
        let at = |start: i64| {
            let mut e = identity_exprs(out.len());
            e[axis] = dim(axis) - start;
            e
        };
        let values: Vec<Value> = parts
            .iter()
            .map(|&(x, start)| b.read_padded(x, at(start), 0.0))
            .collect();
        // The last input whose start the position has reached.
        let mut v = values[values.len() - 1];
        for k in (0..parts.len() - 1).rev() {
            let next = b.index_constant(parts[k + 1].1);
            let index = b.index(axis);
            let before_next = b.cmp(Cmp::Lt, index, next);
            v = b.select(before_next, values[k], v);
        }
        Ok(v)
    })?;
    Ok(vec![y])
}

fn split(l: &mut Lowering) -> LowerResult {
    let axis = l.attrs().i64("axis")?;
    let x = l.operand(0);
    let xs = l.shape(x);
    let axis = shape::normalize_axis("Split", axis, xs.len()).map_err(|e| e.message)?;
    let mut results = Vec::new();
    let mut offset = 0;
    for r in 0..l.num_results() {
        let (out, element) = (l.result_shape(r), l.result_element(r));
        let mut exprs = identity_exprs(out.len());
        exprs[axis] = dim(axis) + offset;
        offset += out[axis];
        results.push(copy_to(l, x, &out, element, exprs)?);
    }
    Ok(results)
}

fn slice(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (starts, ends) = (a.required_ints("starts")?, a.required_ints("ends")?);
    let (axes, steps) = (a.ints("axes")?, a.ints("steps")?);
    let x = l.operand(0);
    let xs = l.shape(x);
    let g = shape::slice_geometry(&xs, &starts, &ends, axes.as_deref(), steps.as_deref())
        .map_err(|e| e.message)?;
    let exprs = (0..xs.len())
        .map(|j| dim(j) * g.steps[j] + g.starts[j])
        .collect();
    Ok(vec![copy(l, x, exprs)?])
}

/// An index value read from an indices tensor: negative indices count from the end of an
/// axis of `extent`, and out-of-range ones are clamped, so the read stays inside the data
/// (the lowering also checks them: see `checks`).
pub(super) fn axis_index(b: &mut Body, raw: Value, extent: i64) -> Value {
    let index_ty = b.ctx.index_type();
    let i = b.index_cast(raw, index_ty);
    let zero = b.index_constant(0);
    let n = b.index_constant(extent);
    let negative = b.cmp(Cmp::Lt, i, zero);
    let wrapped = b.add(i, n);
    let i = b.select(negative, wrapped, i);
    b.clamp_index(i, 0, extent - 1)
}

fn gather(l: &mut Lowering) -> LowerResult {
    let axis = l.attrs().i64("axis")?;
    let (data, indices) = (l.operand(0), l.operand(1));
    let (ds, is) = (l.shape(data), l.shape(indices));
    let axis = shape::normalize_axis("Gather", axis, ds.len()).map_err(|e| e.message)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) || ds[axis] == 0 {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    let q = is.len();
    l.check_index_range(indices, ds[axis], "Gather")?;
    let y = l.compute(&out, element, None, |b| {
        let raw = b.read(indices, (axis..axis + q).map(dim).collect());
        let i = axis_index(b, raw, ds[axis]);
        let mut at: Vec<Value> = (0..axis).map(|d| b.index(d)).collect();
        at.push(i);
        at.extend((axis + 1..ds.len()).map(|d| b.index(d + q - 1)));
        Ok(b.read_at(data, &at))
    })?;
    Ok(vec![y])
}

fn gather_elements(l: &mut Lowering) -> LowerResult {
    let axis = l.attrs().i64("axis")?;
    let (data, indices) = (l.operand(0), l.operand(1));
    let ds = l.shape(data);
    let axis = shape::normalize_axis("GatherElements", axis, ds.len()).map_err(|e| e.message)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) || ds[axis] == 0 {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    l.check_index_range(indices, ds[axis], "GatherElements")?;
    let y = l.compute(&out, element, None, |b| {
        let raw = b.read(indices, identity_exprs(out.len()));
        let i = axis_index(b, raw, ds[axis]);
        let mut at: Vec<Value> = (0..ds.len()).map(|d| b.index(d)).collect();
        at[axis] = i;
        Ok(b.read_at(data, &at))
    })?;
    Ok(vec![y])
}

fn expand(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (xs, out) = (l.shape(x), l.result_shape(0));
    if xs == out {
        return Ok(vec![x]);
    }
    Ok(vec![copy(l, x, broadcast_exprs(&xs, &out))?])
}

fn tile(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (xs, out) = (l.shape(x), l.result_shape(0));
    let exprs = xs
        .iter()
        .enumerate()
        .map(|(j, &n)| match n {
            1 => AffineExpr::constant(0),
            _ if out[j] == n => dim(j),
            _ => dim(j).modulo(n),
        })
        .collect();
    Ok(vec![copy(l, x, exprs)?])
}

/// DepthToSpace: output `[n, c, h * b + i, w * b + j]` is input channel
/// `(i * b + j) * C' + c` (DCR) or `c * b² + i * b + j` (CRD) at `[h, w]`.
fn depth_to_space(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (bs, crd) = (
        a.i64("blocksize")?,
        a.choice("mode", &["DCR", "CRD"])? == "CRD",
    );
    let x = l.operand(0);
    let out = l.result_shape(0);
    let (i, j) = (dim(2).modulo(bs), dim(3).modulo(bs));
    let channel = if crd {
        dim(1) * (bs * bs) + i * bs + j
    } else {
        (i * bs + j) * out[1] + dim(1)
    };
    let exprs = vec![dim(0), channel, dim(2).floor_div(bs), dim(3).floor_div(bs)];
    Ok(vec![copy(l, x, exprs)?])
}

/// SpaceToDepth: output channel `(i * b + j) * C + c` at `[h, w]` is input `[c, h * b + i,
/// w * b + j]`.
fn space_to_depth(l: &mut Lowering) -> LowerResult {
    let bs = l.attrs().i64("blocksize")?;
    let x = l.operand(0);
    let c = l.shape(x)[1];
    let block = dim(1).floor_div(c);
    let exprs = vec![
        dim(0),
        dim(1).modulo(c),
        dim(2) * bs + block.clone().floor_div(bs),
        dim(3) * bs + block.modulo(bs),
    ];
    Ok(vec![copy(l, x, exprs)?])
}
