//! Convolutions. `graph.conv` is a sum over input channels of the group and kernel
//! positions, reading the input through `o * stride + k * dilation - pad` with zero
//! padding outside; `graph.conv_transpose` reads input position
//! `(o + pad - k * dilation) / stride` where that division is exact (with a stride, unit
//! dilations and no negative pad: per output phase, only the taps that divide). A bias is an
//! elementwise epilogue. Grouped (and depthwise) convolutions pick the input channel
//! `group(m) * C/group + c`. Unpadded, ungrouped integer convolutions are window products
//! (`conv_integer.rs`), which the integer matmul micro-kernel blocks.

use tb_dialects::graph::shape::{self, WindowGeometry};
use tb_dialects::graph::{conv_attrs, conv_transpose_attrs};
use tb_ir::affine::AffineExpr;
use tb_ir::{Type, Value};

use super::LowerFn;
use super::builder::{Cmp, Combiner, LowerResult, Lowering, Reduction, identity_exprs};
use super::conv_integer;
use super::matmul::narrow;
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::Conv => conv,
        GraphOp::ConvTranspose => conv_transpose,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

/// Whether a window position `o * stride + k * dilation - pad` may leave the input: a
/// begin pad, or a last window that reaches past the end.
pub(super) fn window_leaves_input(g: &WindowGeometry) -> bool {
    (0..g.kernel.len()).any(|i| {
        let last = (g.output_spatial[i] - 1).max(0) * g.strides[i]
            + (g.kernel[i] - 1) * g.dilations[i]
            - g.pads_begin[i];
        g.pads_begin[i] > 0 || last >= g.input_spatial[i]
    })
}

fn conv(l: &mut Lowering) -> LowerResult {
    let attrs = conv_attrs(&l.attrs())?;
    let (x, w) = (l.operand(0), l.operand(1));
    let bias = (l.num_operands() > 2).then(|| l.operand(2));
    let (xs, ws) = (l.shape(x), l.shape(w));
    let g = shape::conv_geometry(&xs, &ws, None, &attrs).map_err(|e| e.message)?;
    let element = l.result_element(0);
    let ns = g.kernel.len();
    let (channels_per_group, out_per_group) = (ws[1], ws[0] / attrs.group.max(1));
    // Domain: n, m, o_0.. | c, k_0..
    let c = dim(2 + ns);
    let channel = if attrs.group == 1 {
        c.clone()
    } else {
        dim(1).floor_div(out_per_group) * channels_per_group + c.clone()
    };
    let mut x_exprs = vec![dim(0), channel];
    let mut w_exprs = vec![dim(1), c];
    for i in 0..ns {
        let (o, k) = (dim(2 + i), dim(3 + ns + i));
        x_exprs.push(o * g.strides[i] + k.clone() * g.dilations[i] - g.pads_begin[i]);
        w_exprs.push(k);
    }
    let padded = window_leaves_input(&g);
    let mut extents = vec![channels_per_group];
    extents.extend(&g.kernel);
    let acc = l.compute_type(element);
    let sum = if conv_integer::applies(l, element, attrs.group, &g) {
        conv_integer::window_product(l, x, w, &g, element)?
    } else if extents.contains(&0) {
        l.splat(&g.output, acc, 0.0)
    } else {
        l.compute(
            &g.output,
            acc,
            Some(Reduction {
                extents: &extents,
                combiner: Combiner::Sum,
            }),
            |b| {
                let xv = if padded {
                    b.read_padded(x, x_exprs, 0.0)
                } else {
                    b.read(x, x_exprs)
                };
                let xv = b.widen(xv);
                let wv = b.read_widened(w, w_exprs);
                Ok(b.mul(xv, wv))
            },
        )?
    };
    Ok(vec![add_bias(l, sum, bias, &g.output, element)?])
}

/// `y + bias[m]` (channel dimension 1), in `element`s.
fn add_bias(
    l: &mut Lowering,
    y: Value,
    bias: Option<Value>,
    out: &[i64],
    element: Type,
) -> LowerResult<Value> {
    let Some(bias) = bias else {
        return narrow(l, y, out, element);
    };
    l.compute(out, element, None, |b| {
        let v = b.read(y, identity_exprs(out.len()));
        let bv = b.read_widened(bias, vec![dim(1)]);
        Ok(b.add(v, bv))
    })
}

fn conv_transpose(l: &mut Lowering) -> LowerResult {
    let attrs = conv_transpose_attrs(&l.attrs())?;
    let (x, w) = (l.operand(0), l.operand(1));
    let bias = (l.num_operands() > 2).then(|| l.operand(2));
    let (xs, ws) = (l.shape(x), l.shape(w));
    let g = shape::conv_transpose_geometry(&xs, &ws, None, &attrs).map_err(|e| e.message)?;
    let element = l.result_element(0);
    let group = attrs.conv.group.max(1);
    let (channels_per_group, out_per_group) = (xs[1] / group, ws[1]);
    let strided = g.strides.iter().any(|&s| s > 1);
    // The phase form needs unit dilations (taps of one phase are then a stride apart) and
    // no negative begin pad (which would put outputs before phase 0).
    let phased = strided
        && g.dilations.iter().all(|&d| d == 1)
        && g.pads_begin.iter().all(|&p| p >= 0)
        && !g.kernel.contains(&0);
    let sum = if phased {
        conv_transpose_by_phase(l, x, w, &g, channels_per_group, out_per_group, group)?
    } else {
        conv_transpose_direct(l, x, w, &g, channels_per_group, out_per_group, group)?
    };
    Ok(vec![add_bias(l, sum, bias, &g.output, element)?])
}

/// A strided transposed convolution split by output phase (sub-pixel form): writing
/// `o + pad = q * stride + r`, only the taps `k = r + j * stride` reach output `o`, each
/// from input `q - j`. So every phase `r` is a dense convolution over `j` (kernel extent
/// `ceil(K / stride)`) with no remainder test, instead of testing all `K` taps per output
/// and discarding `1 - 1/stride` of them. Phases are computed into `[n, r.., m, q..]`
/// (the input's spatial positions innermost, so reads are contiguous) and interleaved
/// into the output by a second, elementwise compute.
fn conv_transpose_by_phase(
    l: &mut Lowering,
    x: Value,
    w: Value,
    g: &WindowGeometry,
    channels_per_group: i64,
    out_per_group: i64,
    group: i64,
) -> LowerResult<Value> {
    let ns = g.kernel.len();
    let acc = l.compute_type(l.result_element(0));
    // Domain: n, r_0.., m, q_0.. | c, j_0..
    let (r, m, q) = (
        |i: usize| dim(1 + i),
        dim(1 + ns),
        |i: usize| dim(2 + ns + i),
    );
    let (c, j) = (dim(2 + 2 * ns), |i: usize| dim(3 + 2 * ns + i));
    let channel = if group == 1 {
        c
    } else {
        m.clone().floor_div(out_per_group) * channels_per_group + c
    };
    let out_in_group = if group == 1 {
        m
    } else {
        m.modulo(out_per_group)
    };
    let mut x_exprs = vec![dim(0), channel.clone()];
    let mut w_exprs = vec![channel, out_in_group];
    let mut phases = vec![g.output[0]];
    phases.extend(&g.strides);
    phases.push(g.output[1]);
    let mut extents = vec![channels_per_group];
    for i in 0..ns {
        x_exprs.push(q(i) - j(i));
        w_exprs.push(r(i) + j(i) * g.strides[i]);
        let reach = g.output_spatial[i] + g.pads_begin[i];
        phases.push((reach + g.strides[i] - 1) / g.strides[i]);
        extents.push((g.kernel[i] + g.strides[i] - 1) / g.strides[i]);
    }
    let by_phase = l.compute(
        &phases,
        acc,
        Some(Reduction {
            extents: &extents,
            combiner: Combiner::Sum,
        }),
        |b| {
            // Inputs before the first or past the last position, and taps past the
            // kernel's end (when the stride does not divide it), contribute zero.
            let xv = b.read_padded(x, x_exprs, 0.0);
            let xv = b.widen(xv);
            let wv = b.read_padded(w, w_exprs, 0.0);
            let wv = b.widen(wv);
            Ok(b.mul(xv, wv))
        },
    )?;
    // out[n, m, o..] = by_phase[n, (o + pad) mod s.., m, (o + pad) floordiv s..]
    let mut exprs = vec![dim(0)];
    let shifted = |i: usize| dim(2 + i) + g.pads_begin[i];
    exprs.extend((0..ns).map(|i| shifted(i).modulo(g.strides[i])));
    exprs.push(dim(1));
    exprs.extend((0..ns).map(|i| shifted(i).floor_div(g.strides[i])));
    l.compute(&g.output, acc, None, |b| Ok(b.read(by_phase, exprs)))
}

/// A transposed convolution read through `(o + pad - k * dilation) / stride`, every tap
/// tested for an exact division: the form for unit strides and for dilated kernels.
fn conv_transpose_direct(
    l: &mut Lowering,
    x: Value,
    w: Value,
    g: &WindowGeometry,
    channels_per_group: i64,
    out_per_group: i64,
    group: i64,
) -> LowerResult<Value> {
    let ns = g.kernel.len();
    let element = l.result_element(0);
    // Domain: n, m, o_0.. | c, k_0..
    let c = dim(2 + ns);
    let channel = if group == 1 {
        c
    } else {
        dim(1).floor_div(out_per_group) * channels_per_group + c
    };
    let out_in_group = if group == 1 {
        dim(1)
    } else {
        dim(1).modulo(out_per_group)
    };
    let mut x_exprs = vec![dim(0), channel.clone()];
    let mut w_exprs = vec![channel, out_in_group];
    // Input positions `o + pad - k * dilation` that the stride must divide.
    let mut strided = Vec::new();
    for i in 0..ns {
        let (o, k) = (dim(2 + i), dim(3 + ns + i));
        let at = o + g.pads_begin[i] - k.clone() * g.dilations[i];
        if g.strides[i] != 1 {
            strided.push((at.clone(), g.strides[i]));
        }
        x_exprs.push(at.floor_div(g.strides[i]));
        w_exprs.push(k);
    }
    let mut extents = vec![channels_per_group];
    extents.extend(&g.kernel);
    let acc = l.compute_type(element);
    let sum = if extents.contains(&0) {
        l.splat(&g.output, acc, 0.0)
    } else {
        l.compute(
            &g.output,
            acc,
            Some(Reduction {
                extents: &extents,
                combiner: Combiner::Sum,
            }),
            |b| {
                let xv = b.read_padded(x, x_exprs, 0.0);
                let xv = b.widen(xv);
                let wv = b.read_widened(w, w_exprs);
                let mut p = b.mul(xv, wv);
                // Only positions the stride divides (exactly: `%` is zero) contribute.
                let mut exact = None;
                for (at, stride) in &strided {
                    let at = b.apply(at);
                    let stride = b.index_constant(*stride);
                    let remainder = b.rem(at, stride);
                    let zero = b.index_constant(0);
                    let divides = b.cmp(Cmp::Eq, remainder, zero);
                    exact = Some(match exact {
                        Some(e) => b.and(e, divides),
                        None => divides,
                    });
                }
                if let Some(exact) = exact {
                    let zero = b.constant_like(0.0, p);
                    p = b.select(exact, p, zero);
                }
                Ok(p)
            },
        )?
    };
    Ok(sum)
}
