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
//!
//! The same phases also run F(4x4, 3x3) ([`F4`]: 6x6 input tiles, 36 positions, 4x4
//! outputs per tile), which takes 36/144 of the direct kernel's multiplications and
//! transforms a tile into 2.25 times its outputs instead of 4, but whose weights are 4
//! times the originals and whose transforms multiply by small integers (FMAs with
//! splats) and round further from the direct sums. It pays where many tiles share each
//! weight: [`algorithm`] picks it for outputs of at least [`MIN_F4_TILES`] tiles.

use std::collections::HashMap;

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

/// One of Winograd's minimal filtering algorithms, F(m x m, 3 x 3): `m x m` outputs from
/// an `a x a` input tile (`a = m + 2`), with `a²` multiplications per channel pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Algorithm {
    /// `m`, the outputs along a tile's side.
    outputs: usize,
    /// `Bᵀ`, row-major `a x a`: the input transform.
    bt: &'static [i8],
    /// `G`, row-major `a x 3`: the filter transform.
    g: &'static [f64],
    /// `Aᵀ`, row-major `m x a`: the output transform.
    at: &'static [i8],
}

/// F(2x2, 3x3), interpolating at 0, 1, -1 and infinity: the transforms only add and
/// subtract.
pub(super) const F2: Algorithm = Algorithm {
    outputs: 2,
    bt: &[1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1],
    g: &[1.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.0, 0.0, 1.0],
    at: &[1, 1, 1, 0, 0, 1, -1, -1],
};

/// F(4x4, 3x3), interpolating at 0, 1, -1, 2, -2 and infinity (Lavin and Gray's
/// matrices): 36 multiplications per 16 outputs instead of F2's 64, and a transformed
/// tile 2.25 times its outputs instead of 4 times; the transforms also multiply by 2, 4,
/// 5 and 8, and `G` holds sixths, so the results round a little further from the direct
/// sums.
pub(super) const F4: Algorithm = Algorithm {
    outputs: 4,
    bt: &[
        4, 0, -5, 0, 1, 0, //
        0, -4, -4, 1, 1, 0, //
        0, 4, -4, -1, 1, 0, //
        0, -2, -1, 2, 1, 0, //
        0, 2, -1, -2, 1, 0, //
        0, 4, 0, -5, 0, 1,
    ],
    g: &[
        1.0 / 4.0,
        0.0,
        0.0,
        -1.0 / 6.0,
        -1.0 / 6.0,
        -1.0 / 6.0,
        -1.0 / 6.0,
        1.0 / 6.0,
        -1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 12.0,
        1.0 / 6.0,
        1.0 / 24.0,
        -1.0 / 12.0,
        1.0 / 6.0,
        0.0,
        0.0,
        1.0,
    ],
    at: &[
        1, 1, 1, 1, 1, 0, //
        0, 1, -1, 2, -2, 0, //
        0, 1, 1, 4, 4, 0, //
        0, 1, -1, 8, -8, 1,
    ],
};

impl Algorithm {
    /// `a`, the input tile's side.
    fn side(self) -> usize {
        self.outputs + 2
    }

    /// The transformed tile's positions, `a²`.
    fn positions(self) -> i64 {
        (self.side() * self.side()) as i64
    }

    /// The tile grid of `c`: `(TH, TW)`, tiles of `m x m` outputs.
    fn tiles(self, c: &ConvNest) -> (i64, i64) {
        let m = self.outputs as i64;
        ((c.extents[OH] + m - 1) / m, (c.extents[OW] + m - 1) / m)
    }
}

/// F4 needs at least this many tiles: each transformed weight is read once per tile, and
/// F4's weights are 36/9 the originals' (F2's 16/9), so with fewer tiles (ResNet-18's
/// 14x14 layers: 16) the products wait for memory instead of computing.
const MIN_F4_TILES: i64 = 32;

/// The algorithm for `c`: `choice` 2 or 4 asks for F2 or F4, 0 (the pass refuses any
/// other value) picks F4 where it has enough tiles (see [`MIN_F4_TILES`]) and F2
/// elsewhere.
pub(super) fn algorithm(c: &ConvNest, choice: i64) -> Algorithm {
    match choice {
        2 => F2,
        4 => F4,
        _ => {
            let (th, tw) = F4.tiles(c);
            if th * tw >= MIN_F4_TILES { F4 } else { F2 }
        }
    }
}

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

/// Whether `c` is a convolution this kernel computes with `alg`, with `lanes`-wide
/// vectors.
fn fits(c: &ConvNest, alg: Algorithm, lanes: i64) -> bool {
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
            let (th, tw) = alg.tiles(c);
            alg.positions()
                .checked_mul(th * tw)
                .and_then(|n| n.checked_mul((ch + m) * 4))
                .is_some_and(|bytes| bytes <= MAX_SCRATCH_BYTES)
        }
}

/// The product's blocking: `NR` output channels (dividing `M`) of `width` lanes, `MR`
/// tiles, on threads when `threads`.
fn blocking(
    target: &Target,
    c: &ConvNest,
    alg: Algorithm,
    width: i64,
    threads: bool,
) -> Option<ConvBlocking> {
    let (th, tw) = alg.tiles(c);
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
    alg: Algorithm,
    at: At,
    nr: i64,
    source: &ConstantBuffer,
) -> Option<Value> {
    let [m, _, _, ch, ..] = c.extents;
    let blocks = m / nr;
    let a = alg.side();
    let g_row = |i: usize| &alg.g[i * 3..i * 3 + 3];
    let mut values = vec![0f32; (alg.positions() * m * ch) as usize];
    for co in 0..m {
        for ci in 0..ch {
            let mut g = [[0f64; 3]; 3];
            for (y, row) in g.iter_mut().enumerate() {
                for (x, w) in row.iter_mut().enumerate() {
                    *w = source.at(&[co, ci, y as i64, x as i64])? as f64;
                }
            }
            // G g (a x 3), then (G g) Gᵀ (a x a).
            let gg: Vec<[f64; 3]> = (0..a)
                .map(|i| std::array::from_fn(|x| (0..3).map(|y| g_row(i)[y] * g[y][x]).sum()))
                .collect();
            for (i, gg_row) in gg.iter().enumerate() {
                for j in 0..a {
                    let u: f64 = (0..3).map(|x| gg_row[x] * g_row(j)[x]).sum();
                    let p = (i * a + j) as i64;
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
        vec![alg.positions(), blocks, ch, nr],
        &values,
    ))
}

/// Splats of the transforms' integer coefficients beyond ±1, made once per loop body.
struct Coefficients {
    at: At,
    vec_ty: Type,
    splats: HashMap<i8, Value>,
}

impl Coefficients {
    fn new(at: At, vec_ty: Type) -> Coefficients {
        Coefficients {
            at,
            vec_ty,
            splats: HashMap::new(),
        }
    }

    fn splat(&mut self, ctx: &mut Context, k: i8) -> Value {
        if let Some(&v) = self.splats.get(&k) {
            return v;
        }
        let scalar = self.at.f32_constant(ctx, f32::from(k));
        let v = self.at.broadcast(ctx, scalar, self.vec_ty);
        self.splats.insert(k, v);
        v
    }
}

/// `Σ coeffs[i] * values[i]` for small integer coefficients: the terms of 1 added, then
/// those of -1 subtracted, then each larger one multiplied in by an FMA (the first term
/// by a multiply when no coefficient is 1).
fn combine(
    ctx: &mut Context,
    at: At,
    coeffs: &[i8],
    values: &[Value],
    splats: &mut Coefficients,
) -> Value {
    let ty = ctx.value_type(values[0]);
    let terms = |sign: i8| {
        coeffs
            .iter()
            .zip(values)
            .filter(move |(k, _)| **k == sign)
            .map(|(_, v)| *v)
    };
    let mut scaled = coeffs
        .iter()
        .zip(values)
        .filter(|(k, _)| k.abs() > 1)
        .map(|(&k, &v)| (k, v));
    let mut sum = match terms(1).reduce(|s, v| arith(ctx, at, "arith.addf", s, v, ty)) {
        Some(sum) => sum,
        None => {
            let (k, v) = scaled
                .next()
                .expect("every transform row has a coefficient");
            let k = splats.splat(ctx, k);
            arith(ctx, at, "arith.mulf", k, v, ty)
        }
    };
    sum = terms(-1).fold(sum, |s, v| arith(ctx, at, "arith.subf", s, v, ty));
    for (k, v) in scaled {
        let k = splats.splat(ctx, k);
        sum = at.fma(ctx, k, v, sum);
    }
    sum
}

fn arith(ctx: &mut Context, at: At, name: &str, a: Value, b: Value, ty: Type) -> Value {
    let op = at.create(ctx, name, vec![a, b], vec![ty], vec![], 0);
    ctx.op(op).results[0]
}

/// `L t Lᵀ` of the square tile `t` (row-major, `n x n`) for the `k x n` matrix `l`
/// (row-major) of small integers: row-major `k x k`.
fn transform(
    ctx: &mut Context,
    at: At,
    (l, n): (&[i8], usize),
    t: &[Value],
    splats: &mut Coefficients,
) -> Vec<Value> {
    let rows: Vec<&[i8]> = l.chunks(n).collect();
    // L t: k x n.
    let mut left = Vec::new();
    for row in &rows {
        for col in 0..n {
            let column: Vec<Value> = (0..n).map(|i| t[i * n + col]).collect();
            left.push(combine(ctx, at, row, &column, splats));
        }
    }
    // (L t) Lᵀ: k x k.
    let mut out = Vec::new();
    for i in 0..rows.len() {
        for row in &rows {
            out.push(combine(ctx, at, row, &left[i * n..(i + 1) * n], splats));
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
    alg: Algorithm,
    (width, threads): (i64, bool),
    (epilogues, prefetch): (bool, bool),
    copies: &mut Vec<PaddedCopy>,
) -> bool {
    if !fits(c, alg, width) {
        return false;
    }
    let Some(b) = blocking(target, c, alg, width, threads) else {
        return false;
    };
    let Some(source) = c.tap.weights().and_then(|w| constant_f32(ctx, w)) else {
        return false;
    };
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let Some(panels) = transformed_weights(ctx, c, alg, at, b.nr, &source) else {
        return false;
    };
    let [m, _, _, ch, ..] = c.extents;
    let (th, tw) = alg.tiles(c);
    let (positions, side) = (alg.positions(), alg.outputs as i64);
    let t_n = th * tw;
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = ctx.intern_type(TypeKind::Vector {
        shape: vec![b.width],
        scalable: vec![false],
        element: f32_ty,
    });

    let (staged, copy) = stage_channels_last(ctx, c, at, (side * th, side * tw), b.threads);
    let v = alloc(ctx, at, vec![positions, t_n, ch], f32_ty);
    transform_input(ctx, alg, at, (staged, v), (th, tw, ch), vec_ty, b);
    let products = alloc(ctx, at, vec![positions, t_n, m], f32_ty);
    multiply(
        ctx,
        c,
        at,
        (v, panels, products),
        (positions, t_n),
        vec_ty,
        (b, prefetch),
    );
    let staged_out = alloc(ctx, at, vec![side * th, side * tw, m], f32_ty);
    transform_output(ctx, alg, at, (products, staged_out), (th, tw, m), vec_ty, b);

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

/// The padded input, channels-last, `Xp[m * TH + 2][m * TW + 2][C]` (`covered` is
/// `(m * TH, m * TW)`): every tile's window lies inside it; positions outside the input hold the padding value (zero when
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
    covered: (i64, i64),
    threads: bool,
) -> (Value, Option<OpId>) {
    let (hp, wp) = (covered.0 + 2, covered.1 + 2);
    let f32_ty = ctx.value_type(c.init);
    let pad = c.pad.unwrap_or_else(|| at.f32_constant(ctx, 0.0));
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
    alg: Algorithm,
    at: At,
    (staged, v): (Value, Value),
    (th, tw, ch): (i64, i64, i64),
    vec_ty: Type,
    b: ConvBlocking,
) {
    let (body, operands) = tile_loops(ctx, at, (th, tw, ch), b);
    let (a, m) = (alg.side() as i64, alg.outputs as i64);
    let mut window = Vec::new();
    for i in 0..a {
        for j in 0..a {
            let at_ij = map(3, vec![d(0) * m + i, d(1) * m + j, d(2)]);
            window.push(body.load(ctx, true, staged, at_ij, &operands, vec_ty));
        }
    }
    let mut splats = Coefficients::new(body, vec_ty);
    let transformed = transform(ctx, body, (alg.bt, alg.side()), &window, &mut splats);
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
    (positions, t_n): (i64, i64),
    vec_ty: Type,
    (b, prefetch): (ConvBlocking, bool),
) {
    let [m, _, _, ch, ..] = c.extents;
    let f32_ty = ctx.value_type(c.init);
    let columns = b.nr / b.width;
    let (blocks, outer) = outer_loops(ctx, at, &[positions, m], &[1, b.nr], b.threads);
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

/// Phase 3: each tile's `m x m` outputs `Aᵀ M A`, a vector of channels at a time, into
/// `Ot[m * ty + a][m * tx + b][co]`, tile rows on threads.
fn transform_output(
    ctx: &mut Context,
    alg: Algorithm,
    at: At,
    (products, staged_out): (Value, Value),
    (th, tw, m): (i64, i64, i64),
    vec_ty: Type,
    b: ConvBlocking,
) {
    let (body, operands) = tile_loops(ctx, at, (th, tw, m), b);
    let tile: Vec<Value> = (0..alg.positions())
        .map(|p| {
            let from = map(3, vec![AffineExpr::constant(p), d(0) * tw + d(1), d(2)]);
            body.load(ctx, true, products, from, &operands, vec_ty)
        })
        .collect();
    let mut splats = Coefficients::new(body, vec_ty);
    let outputs = transform(ctx, body, (alg.at, alg.side()), &tile, &mut splats);
    let side = alg.outputs as i64;
    for (k, value) in outputs.into_iter().enumerate() {
        let (a, bb) = (k as i64 / side, k as i64 % side);
        let to = map(3, vec![d(0) * side + a, d(1) * side + bb, d(2)]);
        body.store(ctx, true, value, staged_out, to, &operands);
    }
}
