//! The Winograd kernel of `loop-conv-microkernel`: a 3x3 convolution with unit stride and
//! dilation, one group and constant weights computed by Winograd's minimal filtering
//! algorithm F(2x2, 3x3), which makes each 2x2 block of outputs from a 4x4 block of input
//! with 16 multiplications per input and output channel pair instead of 36.
//!
//! With `d` a 4x4 input tile, `g` a 3x3 filter and `Bᵀ`, `G`, `Aᵀ` the transform matrices
//! below, the 2x2 outputs are `Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A`, summed over input channels
//! before the output transform. The kernel runs in three phases:
//!
//! 1. the input, copied once into a channels-last buffer with its padding
//!    (`Xp[Hp][Wp][C]`, `Hp = 2 * ceil(OH / 2) + 2`; or written there by its producer,
//!    see [`super::padded_in_place`]), is transformed tile by tile into
//!    `V[16][T][C]` (`T` tiles, each of the 16 positions of `Bᵀ d B` a matrix of tiles by
//!    channels), vectorized over channels: `Bᵀ` and `B` only add and subtract;
//! 2. the 16 products `M[p] = V[p] U[p]` (`T x C` by `C x M`) with the register-blocked
//!    micro-kernel of the direct convolution: `U = G g Gᵀ` is computed at compile time
//!    from the constant weights and stored in the kernel's `NR`-channel panels
//!    (`U[16][M / NR][C][NR]`); positions and channel blocks run on threads;
//! 3. each tile's 16 vectors of channels are transformed by `Aᵀ` and `A` into its 2x2
//!    outputs, stored channels-last into `Ot[2 * TH][2 * TW][M]`, from which the result
//!    (or the elementwise epilogue) is written as the direct kernel writes it. Outputs of
//!    the last tile row and column past the result's edge are computed and never read.
//!
//! The products take 16/36 of the direct kernel's multiplications (with a 7x7 output,
//! whose tiles cover 8x8, 16 * 64 / (36 * 49) of them); the transforms and the 16/9 times
//! larger weights are the price. The sums are reassociated: the result differs from the
//! direct convolution's by rounding (`G` holds halves, exact in binary; `Bᵀ` and `Aᵀ` add
//! and subtract).

use tb_ir::affine::AffineExpr;
use tb_ir::{AttrKind, Context, OpId, Type, TypeKind, Value};

use super::Target;
use super::build::{At, set_yield};
use super::constant_pack::{ConstantBuffer, constant_f32, packed_global, release};
use super::conv_epilogue;
use super::conv_nest::{CO, ConvNest, OH, OW};
use super::loop_conv_microkernel::{
    ConvBlocking, alloc, constant, d, default_conv_blocking, for_nest, map, next_panel,
    outer_loops, prefetch_vectors, prefetching_blocks, store_accumulators, write_result,
};
use super::padded_in_place::PaddedCopy;
use super::strip_mine::set_mark;

/// `Bᵀ`: the input transform's rows.
const BT: [[i8; 4]; 4] = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]];
/// `G`: the filter transform's rows.
const G: [[f64; 3]; 4] = [
    [1.0, 0.0, 0.0],
    [0.5, 0.5, 0.5],
    [0.5, -0.5, 0.5],
    [0.0, 0.0, 1.0],
];
/// `Aᵀ`: the output transform's rows.
const AT: [[i8; 4]; 2] = [[1, 1, 1, 0], [0, 1, -1, -1]];
/// Positions of a transformed tile (4x4).
const POSITIONS: i64 = 16;

/// The smallest output (rows and columns) worth the transforms.
const MIN_OUTPUT_SIDE: i64 = 4;
/// Input channels below which the products are too short to pay for the transforms.
const MIN_CHANNELS: i64 = 16;
/// Output channels below which the products are too narrow to pay for the input
/// transform (256 to 16 channels at 28x28 ran 1.15x the direct kernel's time).
const MIN_OUTPUT_CHANNELS: i64 = 32;

/// The most bytes the products' operands and results (`V[16][T][C]` and `M[16][T][M]`,
/// four times the input and the output each) may take: beyond it a large image keeps the
/// direct kernel, whose buffers do not grow with the transforms.
const MAX_SCRATCH_BYTES: i64 = 128 << 20;

/// The tile grid of `c`: `(TH, TW)`, tiles of 2x2 outputs.
fn tiles(c: &ConvNest) -> (i64, i64) {
    ((c.extents[OH] + 1) / 2, (c.extents[OW] + 1) / 2)
}

/// Whether `c` is a convolution this kernel computes, with `lanes`-wide vectors.
pub(super) fn fits(c: &ConvNest, lanes: i64) -> bool {
    let [m, oh, ow, ch, kh, kw] = c.extents;
    let unit = |w: &super::conv_nest::Window| w.stride == 1 && w.dilation == 1;
    !c.depthwise
        && kh == 3
        && kw == 3
        && unit(&c.rows)
        && unit(&c.cols)
        && c.tap.weights().is_some()
        && c.input_shape[0] == ch
        && ch >= MIN_CHANNELS
        && ch % lanes == 0
        && m >= MIN_OUTPUT_CHANNELS
        && m % lanes == 0
        && oh >= MIN_OUTPUT_SIDE
        && ow >= MIN_OUTPUT_SIDE
        && {
            let (th, tw) = tiles(c);
            POSITIONS
                .checked_mul(th * tw)
                .and_then(|n| n.checked_mul((ch + m) * 4))
                .is_some_and(|bytes| bytes <= MAX_SCRATCH_BYTES)
        }
}

/// The product's blocking: `NR` output channels (dividing `M`) of `width` lanes, `MR`
/// tiles, on threads when `threads`.
fn blocking(target: &Target, c: &ConvNest, width: i64, threads: bool) -> Option<ConvBlocking> {
    let (th, tw) = tiles(c);
    let mut b = default_conv_blocking(target, c.extents[CO], th * tw, 0);
    if b.width != width || c.extents[CO] % b.nr != 0 {
        b.width = width;
        b.nr = width;
    }
    b.threads = threads;
    (c.extents[CO] % b.nr == 0).then_some(b)
}

/// `U[p][block][c][j] = (G g Gᵀ)[p]` of output channel `block * NR + j`, for the constant
/// weights `source` (`W[co][c][kh][kw]`), as a new constant global.
fn transformed_weights(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    nr: i64,
    source: &ConstantBuffer,
) -> Option<Value> {
    let [m, _, _, ch, ..] = c.extents;
    let blocks = m / nr;
    let mut values = vec![0f32; (POSITIONS * m * ch) as usize];
    for co in 0..m {
        for ci in 0..ch {
            let mut g = [[0f64; 3]; 3];
            for (y, row) in g.iter_mut().enumerate() {
                for (x, w) in row.iter_mut().enumerate() {
                    *w = source.at(&[co, ci, y as i64, x as i64])? as f64;
                }
            }
            // G g, then (G g) Gᵀ.
            let mut gg = [[0f64; 3]; 4];
            for (i, row) in gg.iter_mut().enumerate() {
                for (x, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|y| G[i][y] * g[y][x]).sum();
                }
            }
            for (i, gg_row) in gg.iter().enumerate() {
                for (j, g_row) in G.iter().enumerate() {
                    let u: f64 = (0..3).map(|x| gg_row[x] * g_row[x]).sum();
                    let p = (i * 4 + j) as i64;
                    let index = ((p * blocks + co / nr) * ch + ci) * nr + co % nr;
                    values[index as usize] = u as f32;
                }
            }
        }
    }
    Some(packed_global(
        ctx,
        at,
        source,
        vec![POSITIONS, blocks, ch, nr],
        &values,
    ))
}

/// `Σ coeffs[i] * values[i]` for coefficients in {-1, 0, 1} with at least one 1: the
/// positive terms added, then the negative ones subtracted.
fn combine(ctx: &mut Context, at: At, coeffs: &[i8], values: &[Value]) -> Value {
    let ty = ctx.value_type(values[0]);
    let terms = |sign: i8| {
        coeffs
            .iter()
            .zip(values)
            .filter(move |(k, _)| **k == sign)
            .map(|(_, v)| *v)
    };
    let sum = terms(1)
        .reduce(|s, v| arith(ctx, at, "arith.addf", s, v, ty))
        .expect("every transform row has a +1");
    terms(-1).fold(sum, |s, v| arith(ctx, at, "arith.subf", s, v, ty))
}

fn arith(ctx: &mut Context, at: At, name: &str, a: Value, b: Value, ty: Type) -> Value {
    let op = at.create(ctx, name, vec![a, b], vec![ty], vec![], 0);
    ctx.op(op).results[0]
}

/// `L t Lᵀ` of the square tile `t` (row-major, `n x n`) for the `k x n` matrix `L` of
/// ±1 and 0 entries: row-major `k x k`.
fn transform<const N: usize>(ctx: &mut Context, at: At, l: &[[i8; N]], t: &[Value]) -> Vec<Value> {
    // L t: k x n.
    let mut left = Vec::new();
    for row in l {
        for col in 0..N {
            let column: Vec<Value> = (0..N).map(|i| t[i * N + col]).collect();
            left.push(combine(ctx, at, row, &column));
        }
    }
    // (L t) Lᵀ: k x k.
    let mut out = Vec::new();
    for i in 0..l.len() {
        for row in l {
            out.push(combine(ctx, at, row, &left[i * N..(i + 1) * N]));
        }
    }
    out
}

/// Rewrites `c` with the Winograd kernel when it fits and its weights are constant;
/// returns whether it did.
pub(super) fn rewrite(
    ctx: &mut Context,
    c: &ConvNest,
    target: &Target,
    (width, threads): (i64, bool),
    (epilogues, prefetch): (bool, bool),
    copies: &mut Vec<PaddedCopy>,
) -> bool {
    if !fits(c, width) {
        return false;
    }
    let Some(b) = blocking(target, c, width, threads) else {
        return false;
    };
    let Some(source) = c.tap.weights().and_then(|w| constant_f32(ctx, w)) else {
        return false;
    };
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let Some(panels) = transformed_weights(ctx, c, at, b.nr, &source) else {
        return false;
    };
    let [m, _, _, ch, ..] = c.extents;
    let (th, tw) = tiles(c);
    let t_n = th * tw;
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = ctx.intern_type(TypeKind::Vector {
        shape: vec![b.width],
        scalable: vec![false],
        element: f32_ty,
    });

    let (staged, copy) = stage_channels_last(ctx, c, at, (th, tw), b.threads);
    let v = alloc(ctx, at, vec![POSITIONS, t_n, ch], f32_ty);
    transform_input(ctx, at, (staged, v), (th, tw, ch), vec_ty, b);
    let products = alloc(ctx, at, vec![POSITIONS, t_n, m], f32_ty);
    multiply(
        ctx,
        c,
        at,
        (v, panels, products),
        t_n,
        vec_ty,
        (b, prefetch),
    );
    let staged_out = alloc(ctx, at, vec![2 * th, 2 * tw, m], f32_ty);
    transform_output(ctx, at, (products, staged_out), (th, tw, m), vec_ty, b);

    let epilogue = epilogues.then(|| conv_epilogue::find(ctx, c)).flatten();
    let after = write_result(
        ctx,
        c,
        at,
        staged_out,
        (m, b.nr),
        b.threads,
        epilogue.as_ref(),
    );
    let staged_dealloc = after.dealloc(ctx, staged);
    for buffer in [v, products, staged_out] {
        after.dealloc(ctx, buffer);
    }
    if let Some(copy) = copy {
        copies.push(PaddedCopy {
            input: c.input,
            padded: staged,
            copy,
            dealloc: staged_dealloc,
            origin: (-c.rows.offset, -c.cols.offset),
            channels_last: true,
        });
    }
    ctx.erase_op(c.parallel);
    if let Some(e) = epilogue {
        conv_epilogue::finish(ctx, e, c, m);
    }
    release(ctx, &source);
    true
}

/// The padded input, channels-last, `Xp[2 * TH + 2][2 * TW + 2][C]`: every tile's 4x4
/// window lies inside it; positions outside the input hold the padding value (zero when
/// the convolution has no padding: the windows of the last tiles may still reach past
/// the input). Returns it and the loop that copies an input row's columns into it.
///
/// Channels are the innermost loop of every piece, so the stores are consecutive and LLVM
/// vectorizes them: the border rows whole, then the rows where the input lies (on
/// threads), each with its left border, its input columns and its right border. A copy
/// that runs along the rows instead stores every element into another cache line.
fn stage_channels_last(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    (th, tw): (i64, i64),
    threads: bool,
) -> (Value, Option<OpId>) {
    let (hp, wp) = (2 * th + 2, 2 * tw + 2);
    let f32_ty = ctx.value_type(c.init);
    let pad = match c.pad {
        Some(pad) => pad,
        None => {
            let zero = ctx.intern_attr(AttrKind::Float {
                bits: 0,
                ty: f32_ty,
            });
            let op = at.create(
                ctx,
                "arith.constant",
                vec![],
                vec![f32_ty],
                vec![("value", zero)],
                0,
            );
            ctx.op(op).results[0]
        }
    };
    let [channels, h, w] = c.input_shape;
    let staged = alloc(ctx, at, vec![hp, wp, channels], f32_ty);
    // The padded rows and columns where the input lies.
    let rows = ((-c.rows.offset).clamp(0, hp), hp.min(h - c.rows.offset));
    let cols = ((-c.cols.offset).clamp(0, wp), wp.min(w - c.cols.offset));
    // Sets `Xp[y][x][..]` to the padding for `y` in `ys` and `x` in `xs`.
    let fill_rows = |ctx: &mut Context, ys: (i64, i64), xs: (i64, i64)| {
        if ys.0 < ys.1 && xs.0 < xs.1 {
            let (body, ivs) = for_nest(ctx, at, &[ys, xs, (0, channels)]);
            body.store(
                ctx,
                false,
                pad,
                staged,
                map(3, vec![d(0), d(1), d(2)]),
                &ivs,
            );
        }
    };
    if rows.0 >= rows.1 || cols.0 >= cols.1 {
        fill_rows(ctx, (0, hp), (0, wp));
        return (staged, None);
    }
    fill_rows(ctx, (0, rows.0), (0, wp));
    fill_rows(ctx, (rows.1, hp), (0, wp));
    // The rows where the input lies: `Xp[rows.0 + y]`.
    let (row, y) = outer_loops(ctx, at, &[rows.1 - rows.0], &[1], threads);
    let y = y[0];
    let to = map(3, vec![d(0) + rows.0, d(1), d(2)]);
    let fill_columns = |ctx: &mut Context, xs: (i64, i64)| {
        if xs.0 < xs.1 {
            let (body, ivs) = for_nest(ctx, row, &[xs, (0, channels)]);
            body.store(ctx, false, pad, staged, to.clone(), &[y, ivs[0], ivs[1]]);
        }
    };
    fill_columns(ctx, (0, cols.0));
    let (copy, columns, x, _) = row.for_loop(ctx, constant(cols.0), constant(cols.1), 1, &[]);
    let (body, channel) = for_nest(ctx, columns, &[(0, channels)]);
    let operands = [y, x, channel[0]];
    let from = map(
        3,
        vec![
            AffineExpr::constant(0),
            d(2),
            d(0) + (rows.0 + c.rows.offset),
            d(1) + c.cols.offset,
        ],
    );
    let value = body.load(ctx, false, c.input, from, &operands, f32_ty);
    body.store(ctx, false, value, staged, to.clone(), &operands);
    fill_columns(ctx, (cols.1, wp));
    (staged, Some(copy))
}

/// The loops of a transform: tile rows (on threads when `b.threads`), tile columns, and
/// `channels` a vector of `b.width` at a time; returns the body and `(ty, tx, channel)`.
/// The channel loop is marked `unroll = 1`: a transform's body is already 16 loads, 16
/// stores and 32 adds, and LLVM unrolling that short loop only costs compile time.
fn tile_loops(
    ctx: &mut Context,
    at: At,
    (th, tw, channels): (i64, i64, i64),
    b: ConvBlocking,
) -> (At, [Value; 3]) {
    let (rows, ty) = outer_loops(ctx, at, &[th], &[1], b.threads);
    let (_, columns, tx, _) = rows.for_loop(ctx, constant(0), constant(tw), 1, &[]);
    let (channel_loop, body, channel, _) =
        columns.for_loop(ctx, constant(0), constant(channels), b.width, &[]);
    let i64_ty = ctx.i64();
    let once = ctx.intern_attr(AttrKind::Integer {
        ty: i64_ty,
        value: 1,
    });
    set_mark(ctx, channel_loop, "unroll", once);
    (body, [ty[0], tx, channel])
}

/// Phase 1: `V[p][t][c] = (Bᵀ d B)[p]` of tile `t`'s window `d`, a vector of channels at a
/// time, tile rows on threads.
fn transform_input(
    ctx: &mut Context,
    at: At,
    (staged, v): (Value, Value),
    (th, tw, ch): (i64, i64, i64),
    vec_ty: Type,
    b: ConvBlocking,
) {
    let (body, operands) = tile_loops(ctx, at, (th, tw, ch), b);
    let mut window = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            let at_ij = map(3, vec![d(0) * 2 + i, d(1) * 2 + j, d(2)]);
            window.push(body.load(ctx, true, staged, at_ij, &operands, vec_ty));
        }
    }
    let transformed = transform(ctx, body, &BT, &window);
    for (p, value) in transformed.into_iter().enumerate() {
        let to_v = map(
            3,
            vec![AffineExpr::constant(p as i64), d(0) * tw + d(1), d(2)],
        );
        body.store(ctx, true, value, v, to_v, &operands);
    }
}

/// Phase 2: `M[p] = V[p] U[p]` for the 16 positions, positions and `NR`-channel blocks
/// on threads, `MR` tiles by `NR` channels of accumulators carried through the channel
/// loop. The tiles left over by `MR` are recomputed by one block overlapping the one
/// before it; with `prefetch`, the last block also reads the next channel block's panel
/// of `U` ahead ([`prefetching_blocks`]): with few tiles (a 7x7 output) each panel serves
/// only a few blocks, and `U`, 16 times the weights, comes from memory.
fn multiply(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    (v, panels, products): (Value, Value, Value),
    t_n: i64,
    vec_ty: Type,
    (b, prefetch): (ConvBlocking, bool),
) {
    let [m, _, _, ch, ..] = c.extents;
    let f32_ty = ctx.value_type(c.init);
    let columns = b.nr / b.width;
    let (blocks, outer) = outer_loops(ctx, at, &[POSITIONS, m], &[1, b.nr], b.threads);
    let (p, mb) = (outer[0], outer[1]);
    let next = (prefetch && m > b.nr).then(|| next_panel(ctx, blocks, mb, b.nr, m / b.nr));
    for (lo, hi, mr, ahead) in prefetching_blocks(t_n, b.mr, next.is_some()) {
        let (_, tiles, t0, _) = blocks.for_loop(ctx, constant(lo), constant(hi), mr, &[]);
        let zero = tiles.broadcast(ctx, c.init, vec_ty);
        let accumulators = vec![zero; (mr * columns) as usize];
        let (c_loop, body, ci, acc) =
            tiles.for_loop(ctx, constant(0), constant(ch), 1, &accumulators);
        // U[p][mb / NR][c][j * W]
        let weights: Vec<Value> = (0..columns)
            .map(|j| {
                let wmap = map(
                    3,
                    vec![
                        d(0),
                        d(1).floor_div(b.nr),
                        d(2),
                        AffineExpr::constant(j * b.width),
                    ],
                );
                body.load(ctx, true, panels, wmap, &[p, mb, ci], vec_ty)
            })
            .collect();
        if let Some(next) = next.filter(|_| ahead) {
            prefetch_vectors(ctx, body, panels, &[p, next, ci], columns, b.width);
        }
        let mut next = Vec::new();
        for r in 0..mr {
            let vmap = map(3, vec![d(0), d(1) + r, d(2)]);
            let x = body.load(ctx, false, v, vmap, &[p, t0, ci], f32_ty);
            let xb = body.broadcast(ctx, x, vec_ty);
            for (j, &w) in weights.iter().enumerate() {
                next.push(body.fma(ctx, xb, w, acc[(r * columns) as usize + j]));
            }
        }
        set_yield(ctx, body, &next);
        let sums = ctx.op(c_loop).results.to_vec();
        // M[p][t0 + r][mb + j * W]
        store_accumulators(ctx, tiles, &sums, products, [p, t0, mb], (mr, b.width));
    }
}

/// Phase 3: each tile's 2x2 outputs `Aᵀ M A`, a vector of channels at a time, into
/// `Ot[2 * ty + a][2 * tx + b][co]`, tile rows on threads.
fn transform_output(
    ctx: &mut Context,
    at: At,
    (products, staged_out): (Value, Value),
    (th, tw, m): (i64, i64, i64),
    vec_ty: Type,
    b: ConvBlocking,
) {
    let (body, operands) = tile_loops(ctx, at, (th, tw, m), b);
    let tile: Vec<Value> = (0..POSITIONS)
        .map(|p| {
            let from = map(3, vec![AffineExpr::constant(p), d(0) * tw + d(1), d(2)]);
            body.load(ctx, true, products, from, &operands, vec_ty)
        })
        .collect();
    let outputs = transform(ctx, body, &AT, &tile);
    for (k, value) in outputs.into_iter().enumerate() {
        let (a, bb) = (k as i64 / 2, k as i64 % 2);
        let to = map(3, vec![d(0) * 2 + a, d(1) * 2 + bb, d(2)]);
        body.store(ctx, true, value, staged_out, to, &operands);
    }
}
