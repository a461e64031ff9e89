//! Convolutions. `graph.conv` is a sum over input channels of the group and kernel
//! positions, reading the input through `o * stride + k * dilation - pad` with zero
//! padding outside; `graph.conv_transpose` reads input position
//! `(o + pad - k * dilation) / stride` where that division is exact. A bias is an
//! elementwise epilogue. Grouped (and depthwise) convolutions pick the input channel
//! `group(m) * C/group + c`.

use tb_dialects::graph::shape::{self, WindowGeometry};
use tb_dialects::graph::{conv_attrs, conv_transpose_attrs};
use tb_ir::affine::AffineExpr;
use tb_ir::{Type, Value};

use super::LowerFn;
use super::builder::{Cmp, Combiner, LowerResult, Lowering, Reduction, identity_exprs};
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
    let ns = g.kernel.len();
    let group = attrs.conv.group.max(1);
    let (channels_per_group, out_per_group) = (xs[1] / group, ws[1]);
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
    Ok(vec![add_bias(l, sum, bias, &g.output, element)?])
}
