//! The pointwise kernel of `loop-conv-microkernel`: a 1x1 convolution that reads its input
//! rows with a unit column stride and no padding, vectorized along the output row, in the
//! result's own layout, so nothing is transposed.
//!
//! Such a convolution is a matrix product of the weights `W[co][c]` and the input rows:
//! `Y[co][oh][ow] = sum_c W[co][c] * X[c][oh * S + o][ow + o']`. The channel-vectorized
//! kernel computes it channels-last and transposes every result back; this one keeps
//! pixels in the vector lanes, as the depthwise kernel does:
//!
//! - per block of `MR` output channels and output row (on threads), blocks of `V` vectors
//!   of `W` neighbouring pixels carry `MR * V` vector accumulators through the loop over
//!   input channels: each step loads `V` input vectors of the row, broadcasts `MR` weights
//!   and does `MR * V` FMAs;
//! - pixels left over by the block are done one vector at a time, and a last partial vector
//!   is recomputed overlapping the one before it (it stores the same values again);
//! - channels left over by `MR` get one smaller block;
//! - the sums go straight into the result rows, or through the elementwise nest that reads
//!   the result (bias, activation, residual add) computed on the same vectors
//!   ([`super::vector_epilogue`]), and the result is never written.
//!
//! Convolutions with a window over few input channels (an image's stem: 3 colour channels,
//! a 7x7 window, stride 2) run on the same kernel. Their sum per output is short, so the
//! channel-vectorized kernel's transposition of every result costs a large share of the
//! arithmetic. The steps then loop over `c, kh, kw`, and a padded or column-strided input is
//! first copied once, phase-split as for the depthwise kernel (`Xs[C][S][Hp][Wq]`, see
//! [`super::conv_depthwise`]), so the columns the windows of consecutive pixels read are
//! consecutive.
//!
//! Rows narrower than a full vector of the target keep the channel-vectorized kernel.
//! Each output sums over `c, kh, kw` in the original order; the FMA rounds once where the
//! original multiply and add round twice.

use tb_ir::affine::AffineExpr;
use tb_ir::{Context, TypeKind, Value};

use super::Target;
use super::build::{At, set_yield};
use super::conv_depthwise::{stage_input, staged_extents};
use super::conv_nest::{C, CO, ConvNest, KH, KW, OH, OW};
use super::loop_conv_microkernel::{constant, d, map, outer_loops};
use super::vector_epilogue::{VectorEpilogue, vector_type};

/// The register block of the pointwise kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointwiseBlocking {
    /// Output channels of a block (`MR`).
    pub channels: i64,
    /// Vectors of pixels of a block (`V`).
    pub vectors: i64,
    /// Lanes of a vector (`W`).
    pub width: i64,
    pub threads: bool,
    /// Whether the loop over output rows is outside the loop over blocks of output
    /// channels (else inside it); see [`rows_outside`].
    pub rows_outer: bool,
}

/// Whether the loop over output rows goes outside the loop over channel blocks: when
/// that re-reads fewer bytes. With the rows inside, each block of `MR` output channels
/// reads the whole input again (a large input then comes from memory once per block);
/// with the rows outside, each row reads all the weights again, while its input row stays
/// in the core's first-level cache for every block.
pub fn rows_outside(c: &ConvNest, channels: i64) -> bool {
    if c.extents[OH] <= 1 {
        return false;
    }
    let bytes = |dims: &[i64]| dims.iter().product::<i64>() * 4;
    let blocks = (c.extents[CO] + channels - 1) / channels.max(1);
    let input = bytes(&c.input_shape);
    let weights = bytes(&[c.extents[CO], c.extents[C], c.extents[KH], c.extents[KW]]);
    (blocks - 1) * input > (c.extents[OH] - 1) * weights
}

/// Whether the pointwise kernel computes nest `c`: a 1x1 convolution (one group) whose
/// window never leaves the input and reads consecutive columns for consecutive pixels.
pub fn applies(c: &ConvNest) -> bool {
    one_group(c)
        && c.extents[KH] == 1
        && c.extents[KW] == 1
        && c.pad.is_none()
        && c.cols.stride == 1
}

/// Input channels up to which a convolution with a window runs on this kernel: the colour
/// channels of an image.
pub const MAX_WINDOWED_INPUT_CHANNELS: i64 = 4;

/// Whether the kernel computes nest `c` as a convolution with a window over few input
/// channels (see the module's comment): any window, padding, stride and dilation.
pub fn applies_windowed(c: &ConvNest) -> bool {
    one_group(c) && !applies(c) && c.extents[C] <= MAX_WINDOWED_INPUT_CHANNELS
}

fn one_group(c: &ConvNest) -> bool {
    !c.depthwise && c.tap.weights().is_some() && c.extents.iter().all(|&e| e > 0)
}

/// The pointwise blocking of `c` on `target`, or `None` when the kernel does not apply or
/// the rows are narrower than a full vector: up to 4 vectors of the row, and as many output channels as the vector
/// registers left by the input vectors and the weight broadcast hold (at most 8), or the
/// largest count down to half of that which divides the output channels (channels left
/// over by the block take a second pass over the input).
pub fn default_pointwise_blocking(
    target: &Target,
    c: &ConvNest,
    threads: bool,
) -> Option<PointwiseBlocking> {
    let width = target.lanes(4);
    let row = c.extents[OW];
    if !(applies(c) || applies_windowed(c)) || row < width {
        return None;
    }
    let vectors = (row / width).clamp(1, 4);
    let most = ((target.vector_registers - vectors - 1) / vectors)
        .clamp(1, 8)
        .min(c.extents[CO]);
    let channels = ((most + 1) / 2..=most)
        .rev()
        .find(|&n| c.extents[CO] % n == 0)
        .unwrap_or(most);
    Some(PointwiseBlocking {
        channels,
        vectors,
        width,
        threads,
        rows_outer: rows_outside(c, channels),
    })
}

/// `c` with each `H x W` plane seen as one row of `H * W` pixels (`OH = 1`), when the
/// input and the result are row-major planes of the same size that the convolution reads
/// and writes pixel for pixel (a 1x1 convolution with unit strides and no padding): then
/// rows narrower than a vector still fill whole vectors, with one partial vector per plane
/// instead of one per row. The input and result of the nest returned are still `c`'s;
/// [`plane_views`] makes the views the kernel reads and writes.
///
/// Only for an expansion (fewer input channels than output channels) over a plane of at
/// least [`MIN_PLANE_VECTORS`] vectors of `lanes`: each output then sums few products, so
/// the channel-vectorized kernel's transposition of every result costs more than the
/// plane's partial vector. Measured on one thread on a 16-lane host, against the
/// channel-vectorized kernel: 64 to 384 channels at 14x14 0.088 against 0.095 ms, 96 to
/// 576 0.198 against 0.204; but 384 to 64 0.088 against 0.084 and, at 7x7 (three full
/// vectors and one partial), 160 to 960 0.168 against 0.138.
pub fn as_plane(ctx: &Context, c: &ConvNest, lanes: i64) -> Option<ConvNest> {
    let [_, oh, ow, ..] = c.extents;
    let [_, h, w] = c.input_shape;
    let row_major = |v: Value| {
        matches!(
            ctx.type_kind(ctx.value_type(v)),
            TypeKind::MemRef { layout: None, shape, .. } if shape.len() == 4 && shape[0] == 1
        )
    };
    let unit = |win: &super::conv_nest::Window| win.stride == 1 && win.offset == 0;
    if !applies(c) || !unit(&c.rows) || !unit(&c.cols) || (h, w) != (oh, ow) || oh < 2 {
        return None;
    }
    if c.extents[C] >= c.extents[CO] || oh * ow < MIN_PLANE_VECTORS * lanes {
        return None;
    }
    if !row_major(c.input) || !row_major(c.output) {
        return None;
    }
    let mut plane = c.clone();
    plane.extents[OH] = 1;
    plane.extents[OW] = oh * ow;
    plane.input_shape = [c.input_shape[0], 1, h * w];
    Some(plane)
}

/// The fewest whole vectors a plane seen as one row holds (see [`as_plane`]).
pub const MIN_PLANE_VECTORS: i64 = 8;

/// Views of `buffers` (row-major, their last two dimensions `oh x ow`) with each plane one
/// row, `[.., 1, oh * ow]`, made at `at`.
fn plane_views(ctx: &mut Context, at: At, buffers: &[Value]) -> Vec<Value> {
    buffers
        .iter()
        .map(|&buffer| {
            let TypeKind::MemRef {
                shape,
                element,
                memory_space,
                ..
            } = ctx.type_kind(ctx.value_type(buffer)).clone()
            else {
                unreachable!("plane views are made of memrefs");
            };
            let n = shape.len();
            let mut flat = shape[..n - 2].to_vec();
            flat.extend([1, shape[n - 2] * shape[n - 1]]);
            let mut strides = vec![1i64; n];
            for i in (0..n - 1).rev() {
                strides[i] = strides[i + 1] * flat[i + 1];
            }
            let ty = ctx.intern_type(TypeKind::MemRef {
                shape: flat.clone(),
                element,
                layout: None,
                memory_space,
            });
            at.reinterpret_cast(ctx, buffer, ty, 0, &strides)
        })
        .collect()
}

/// Where the kernel reads its input: the input itself, or its padded, phase-split copy
/// `Xs[C][S][Hp][Wq]`.
#[derive(Clone, Copy)]
struct Input {
    memref: Value,
    staged: bool,
}

/// Rewrites `c` with the pointwise kernel blocked by `b`; with `plane` (`c` as
/// [`as_plane`] sees it), on views of its planes as rows (the epilogue's buffers too).
pub fn rewrite_pointwise(
    ctx: &mut Context,
    c: &ConvNest,
    plane: Option<&ConvNest>,
    b: PointwiseBlocking,
    mut epilogue: Option<VectorEpilogue>,
) {
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    if let Some(e) = &epilogue {
        e.prepare(ctx, c.parallel);
    }
    let viewed;
    let c = match plane {
        Some(plane) => {
            let plane_shape = (c.extents[OH], c.extents[OW]);
            // The result, unless the epilogue writes its own buffers instead (the result
            // is then never written, and goes away).
            let mut buffers = vec![c.input];
            match &epilogue {
                Some(e) => buffers.extend(e.plane_buffers(ctx, plane_shape).unwrap_or_default()),
                None => buffers.push(c.output),
            }
            let views = plane_views(ctx, at, &buffers);
            if let Some(e) = epilogue.as_mut() {
                for (&buffer, &view) in buffers.iter().zip(&views).skip(1) {
                    e.view(buffer, view);
                }
            }
            viewed = ConvNest {
                input: views[0],
                output: if epilogue.is_some() {
                    c.output
                } else {
                    views[1]
                },
                ..plane.clone()
            };
            &viewed
        }
        None => c,
    };
    let [m, oh_n, _, ..] = c.extents;
    let staged = (c.pad.is_some() || c.cols.stride > 1)
        .then(|| stage_input(ctx, c, at, b.threads, staged_extents(c)));
    let input = Input {
        memref: staged.unwrap_or(c.input),
        staged: staged.is_some(),
    };
    let full = m - m % b.channels;
    if full > 0 {
        let (row, co0, oh) = if b.rows_outer {
            let (row, ivs) = outer_loops(ctx, at, &[oh_n, full], &[1, b.channels], b.threads);
            (row, ivs[1], ivs[0])
        } else {
            let (row, ivs) = outer_loops(ctx, at, &[full, oh_n], &[b.channels, 1], b.threads);
            (row, ivs[0], ivs[1])
        };
        emit_row(
            ctx,
            c,
            b,
            epilogue.as_ref(),
            input,
            row,
            co0,
            oh,
            b.channels,
        );
    }
    if full < m {
        // The channels left over: one block of `m - full` channels per row.
        let (row, ivs) = outer_loops(ctx, at, &[oh_n], &[1], b.threads);
        let first = row.index_constant(ctx, full);
        emit_row(
            ctx,
            c,
            b,
            epilogue.as_ref(),
            input,
            row,
            first,
            ivs[0],
            m - full,
        );
    }
    if let Some(buffer) = staged {
        at.dealloc(ctx, buffer);
    }
    ctx.erase_op(c.parallel);
    if let Some(e) = epilogue {
        super::conv_epilogue::finish(ctx, e.epilogue, c, m);
    }
}

/// One output row `oh` of the `channels` output channels from `co0`, at `row`.
#[allow(clippy::too_many_arguments)]
fn emit_row(
    ctx: &mut Context,
    c: &ConvNest,
    b: PointwiseBlocking,
    epilogue: Option<&VectorEpilogue>,
    input: Input,
    row: At,
    co0: Value,
    oh: Value,
    channels: i64,
) {
    let ow_n = c.extents[OW];
    let block = b.vectors * b.width;
    // Blocks of V vectors, then one block of the whole vectors left, then one overlapping
    // vector.
    let full = ow_n - ow_n % block;
    let singles = ow_n - ow_n % b.width;
    let mut groups: Vec<(i64, i64, i64)> = vec![(0, full, block)];
    if full < singles {
        groups.push((full, full + 1, singles - full));
    }
    if singles < ow_n {
        groups.push((ow_n - b.width, ow_n - b.width + 1, b.width));
    }
    // The channel indices of the block, made once per row.
    let offsets: Vec<Value> = (0..channels).map(|j| row.add_index(ctx, co0, j)).collect();
    for (lo, hi, pixels) in groups.into_iter().filter(|&(lo, hi, _)| lo < hi) {
        emit_block(
            ctx,
            c,
            b,
            epilogue,
            input,
            row,
            (lo, hi, pixels),
            &offsets,
            oh,
        );
    }
}

/// The blocks of `pixels` pixels starting at `lo, lo + pixels, ..` below `hi` of row `oh`,
/// for the output channels `channels`.
#[allow(clippy::too_many_arguments)]
fn emit_block(
    ctx: &mut Context,
    c: &ConvNest,
    b: PointwiseBlocking,
    epilogue: Option<&VectorEpilogue>,
    input: Input,
    row: At,
    (lo, hi, pixels): (i64, i64, i64),
    channels: &[Value],
    oh: Value,
) {
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = vector_type(ctx, f32_ty, b.width);
    let weights = c.tap.weights().expect("a pointwise nest has weights");
    let vectors = pixels / b.width;
    let (_, block, ow0, _) = row.for_loop(ctx, constant(lo), constant(hi), pixels, &[]);
    let splat = block.broadcast(ctx, c.init, vec_ty);
    let inits = vec![splat; channels.len() * vectors as usize];
    let (c_loop, c_body, ci, c_acc) =
        block.for_loop(ctx, constant(0), constant(c.extents[C]), 1, &inits);
    // A window's rows and columns are loops inside the one over input channels; a 1x1
    // convolution has none.
    let windowed = c.extents[KH] > 1 || c.extents[KW] > 1;
    let (kh_loop, kh_body, kh, kh_acc) = if windowed {
        let (l, body, iv, acc) =
            c_body.for_loop(ctx, constant(0), constant(c.extents[KH]), 1, &c_acc);
        (Some(l), body, Some(iv), acc)
    } else {
        (None, c_body, None, c_acc)
    };
    let (kw_loop, body, kw, acc) = if windowed {
        let (l, body, iv, acc) =
            kh_body.for_loop(ctx, constant(0), constant(c.extents[KW]), 1, &kh_acc);
        (Some(l), body, Some(iv), acc)
    } else {
        (None, kh_body, None, kh_acc)
    };
    // The operands (ci, oh, ow0[, kh, kw]) of the input and weight maps.
    let mut operands = vec![ci, oh, ow0];
    operands.extend(kh.into_iter().chain(kw));
    let dims = operands.len() as u32;
    let (kh_expr, kw_expr) = if windowed {
        (d(3), d(4))
    } else {
        (AffineExpr::constant(0), AffineExpr::constant(0))
    };
    let row_expr = d(1) * c.rows.stride + kh_expr.clone() * c.rows.dilation;
    let column = kw_expr.clone() * c.cols.dilation;
    let xs: Vec<Value> = (0..vectors)
        .map(|v| {
            let first = v * b.width;
            let indices = if input.staged {
                // Xs[ci][col mod S][row][ow0 + v * W + col floordiv S] (padded coordinates).
                let s = c.cols.stride;
                vec![
                    d(0),
                    column.clone().modulo(s),
                    row_expr.clone(),
                    d(2) + first + column.clone().floor_div(s),
                ]
            } else {
                // X[0][ci][oh * S + kh * D + o][ow0 + v * W + kw * D' + o'].
                vec![
                    AffineExpr::constant(0),
                    d(0),
                    row_expr.clone() + c.rows.offset,
                    d(2) + column.clone() + (first + c.cols.offset),
                ]
            };
            body.load(
                ctx,
                true,
                input.memref,
                map(dims, indices),
                &operands,
                vec_ty,
            )
        })
        .collect();
    let mut next = Vec::with_capacity(acc.len());
    for (j, &co) in channels.iter().enumerate() {
        // W[co][ci][kh][kw] for the operands (co, ci[, kh, kw]), broadcast.
        let window: Vec<AffineExpr> = if windowed {
            vec![d(2), d(3)]
        } else {
            vec![AffineExpr::constant(0), AffineExpr::constant(0)]
        };
        let wmap = map(dims - 1, [d(0), d(1)].into_iter().chain(window).collect());
        let w_operands: Vec<Value> = [co, ci].into_iter().chain(kh).chain(kw).collect();
        let w = body.load(ctx, false, weights, wmap, &w_operands, f32_ty);
        let wb = body.broadcast(ctx, w, vec_ty);
        for (v, &x) in xs.iter().enumerate() {
            next.push(body.fma(ctx, x, wb, acc[j * vectors as usize + v]));
        }
    }
    set_yield(ctx, body, &next);
    if let Some(kw_loop) = kw_loop {
        let results = ctx.op(kw_loop).results.to_vec();
        set_yield(ctx, kh_body, &results);
    }
    if let Some(kh_loop) = kh_loop {
        let results = ctx.op(kh_loop).results.to_vec();
        set_yield(ctx, c_body, &results);
    }
    let sums = ctx.op(c_loop).results.to_vec();
    for (j, &co) in channels.iter().enumerate() {
        for v in 0..vectors {
            let sum = sums[j * vectors as usize + v as usize];
            let first = v * b.width;
            match epilogue {
                Some(e) => e.emit(ctx, block, &[co, oh, ow0], &[0, 0, first], sum, b.width),
                None => {
                    let omap = map(3, vec![AffineExpr::constant(0), d(0), d(1), d(2) + first]);
                    block.store(ctx, true, sum, c.output, omap, &[co, oh, ow0]);
                }
            }
        }
    }
}
