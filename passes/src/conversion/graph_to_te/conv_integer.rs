//! Integer convolutions as matrix products over their windows. An unpadded, ungrouped
//! `graph.conv` of integers (the `i32` sums of ConvInteger and QLinearConv, whose input
//! the importer pads with its zero point) is computed as
//! `C[(n, o), m] = sum_(c, k) X[n, c, o * stride + k * dilation] * W[m, c, k]`: a matmul
//! whose rows are the output positions of every image, whose columns are the output
//! channels and whose reduction runs over the window (channels and taps), every operand
//! read through one affine map (im2col as an access pattern, not a buffer). That is the
//! nest `loop-int-matmul-microkernel` recognises: it packs the windows of the 8-bit input
//! (the widening `te-fuse` inlines) as its `A` panels and the weights (constant, packed at
//! compile time) as `B`, so the products run on integer dot products. A second compute
//! lays `C` out as `[N, M, out...]`, which the epilogue reads (and fusion absorbs).

use tb_dialects::graph::shape::WindowGeometry;
use tb_ir::Value;
use tb_ir::affine::AffineExpr;

use super::builder::{Combiner, LowerResult, Lowering, Reduction, is_float_type};
use super::conv::window_leaves_input;

/// Whether the convolution of `x` (giving `element`s, in `group`s over geometry `g`) is
/// an integer one the window product computes.
pub(super) fn applies(l: &Lowering, element: tb_ir::Type, group: i64, g: &WindowGeometry) -> bool {
    !is_float_type(l.ctx, element)
        && group <= 1
        && !window_leaves_input(g)
        && !g.output.contains(&0)
        && !g.kernel.contains(&0)
}

/// `e` as a mixed-radix digit: `(e floordiv stride) mod extent`, without the `mod` for
/// the outermost digit (`outermost`), whose quotient is already below its extent.
fn digit(e: &AffineExpr, stride: i64, extent: i64, outermost: bool) -> AffineExpr {
    if extent == 1 {
        return AffineExpr::constant(0);
    }
    let quotient = if stride == 1 {
        e.clone()
    } else {
        e.clone().floor_div(stride)
    };
    if outermost {
        quotient
    } else {
        quotient.modulo(extent)
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The convolution of `x` `[N, C, in...]` by `w` `[M, C, k...]` over `g` (no padding
/// needed, one group), as `[N, M, out...]` in the compute type of `element`.
pub(super) fn window_product(
    l: &mut Lowering,
    x: Value,
    w: Value,
    g: &WindowGeometry,
    element: tb_ir::Type,
) -> LowerResult<Value> {
    let (xs, ws) = (l.shape(x), l.shape(w));
    let (batch, channels, m) = (xs[0], ws[1], ws[0]);
    let ns = g.kernel.len();
    let positions: i64 = g.output_spatial.iter().product();
    let taps: i64 = g.kernel.iter().product();
    let (out_strides, tap_strides) = (strides(&g.output_spatial), strides(&g.kernel));
    // Domain: row r = n * P + o (flattened), column m | k = c * taps + tap (flattened).
    let (row, column, k) = (AffineExpr::dim(0), AffineExpr::dim(1), AffineExpr::dim(2));
    let image = if batch == 1 {
        AffineExpr::constant(0)
    } else {
        row.clone().floor_div(positions)
    };
    let channel = if taps == 1 {
        k.clone()
    } else {
        k.clone().floor_div(taps)
    };
    let mut x_exprs = vec![image, channel.clone()];
    let mut w_exprs = vec![column, channel];
    for d in 0..ns {
        let o = digit(
            &row,
            out_strides[d],
            g.output_spatial[d],
            d == 0 && batch == 1,
        );
        let tap = digit(&k, tap_strides[d], g.kernel[d], channels == 1 && d == 0);
        x_exprs.push(o * g.strides[d] + tap.clone() * g.dilations[d]);
        w_exprs.push(tap);
    }
    let acc = l.compute_type(element);
    let rows = batch * positions;
    let product = l.compute(
        &[rows, m],
        acc,
        Some(Reduction {
            extents: &[channels * taps],
            combiner: Combiner::Sum,
        }),
        |b| {
            let xv = b.read_widened(x, x_exprs);
            let wv = b.read_widened(w, w_exprs);
            Ok(b.mul(xv, wv))
        },
    )?;
    // y[n, m, o...] = product[n * P + o (row-major), m].
    let mut flat = AffineExpr::dim(0) * positions;
    for (d, &stride) in out_strides.iter().enumerate() {
        flat = flat + AffineExpr::dim((2 + d) as u32) * stride;
    }
    l.compute(&g.output, acc, None, |b| {
        Ok(b.read(product, vec![flat, AffineExpr::dim(1)]))
    })
}
