//! The depthwise kernel of `loop-conv-microkernel`, for depthwise convolutions and pools:
//! vectorized along the output row, in the result's own layout, so nothing is transposed.
//!
//! - The input is copied into `Xs[S][Hp][Wq]`, padding included, with its columns split by
//!   phase modulo the column stride `S` (`Xs[x mod S][y][x floordiv S]`), so the columns a
//!   strided window reads for consecutive output pixels are consecutive; an unpadded
//!   stride-1 convolution reads its input where it lies. The copy is made per channel,
//!   just before that channel's rows are computed, into a buffer on the thread's stack: it
//!   is still in the core's caches when the windows read it, where a copy of the whole
//!   input would go out to memory and back. Few channels (too few to share between
//!   threads) or a channel too large for the stack keep one copy of every channel,
//!   `Xs[C][S][Hp][Wq]`, made before the rows are computed (on threads, per row).
//! - Per channel and output row, blocks of `MR` pixels (`MR / W` vectors)
//!   carry their vector accumulators through the `kh`, `kw` loops: each step broadcasts
//!   one weight, loads `MR / W` input vectors and does as many FMAs (a pool applies its
//!   elementwise prologue and combining op to each vector instead); the results are stored
//!   straight into the result row.
//! - Pixels left over by `MR` are done one vector at a time; a last partial vector is
//!   recomputed overlapping the one before it (it stores the same values again), so only
//!   rows narrower than one vector are left to the loop schedules.

use std::collections::HashMap;
use tb_ir::affine::{AffineExpr, AffineMap};

use tb_ir::{Context, OpId, TypeKind, Value};

use super::build::{At, set_yield};
use super::conv_epilogue;
use super::conv_nest::{ConvNest, KH, KW, OW};
use super::loop_conv_microkernel::{ConvBlocking, alloc, constant, d, for_nest, map, outer_loops};
use super::pool_tap::{PoolTap, Tap};
use super::vector_epilogue::{VectorEpilogue, vector_type, widened};

/// Whether `b` can compute depthwise nest `c`: a vector fits in a row, and a block is
/// whole vectors.
pub fn fits(c: &ConvNest, b: ConvBlocking) -> bool {
    b.width >= 1 && b.width <= c.extents[OW] && b.mr >= b.width && b.mr % b.width == 0
}

/// The depthwise blocking on a target with `lanes`-element vectors: the widest vector
/// (halving down to 2 lanes) that fits in a row, blocks of up to 4 vectors.
pub fn default_depthwise_blocking(lanes: i64, row: i64, threads: bool) -> ConvBlocking {
    let mut width = lanes.max(1);
    while width > 2 && width > row {
        width /= 2;
    }
    let vectors = (row / width).clamp(1, 4);
    ConvBlocking {
        mr: vectors * width,
        nr: 1,
        width,
        threads,
    }
}

/// Output rows a block computes at once with `registers` vector registers: as many as
/// keep the block's accumulators (`vectors` per row) beside the window's weights, at most
/// [`MAX_BLOCK_ROWS`]; 1 (one row at a time, the window in loops) for a window of more
/// than [`MAX_UNROLLED_TAPS`] taps, whose steps are not written out one by one.
pub fn default_depthwise_rows(registers: i64, c: &ConvNest, b: ConvBlocking) -> i64 {
    let taps = c.extents[KH] * c.extents[KW];
    let vectors = (b.mr / b.width.max(1)).max(1);
    if taps > MAX_UNROLLED_TAPS {
        return 1;
    }
    ((registers - 2 - taps) / vectors).clamp(1, MAX_BLOCK_ROWS)
}

/// The most output rows of a block.
pub const MAX_BLOCK_ROWS: i64 = 4;
/// The largest window whose steps a block of several rows writes out one by one.
pub const MAX_UNROLLED_TAPS: i64 = 25;

/// What every row block of the kernel shares.
struct Kernel<'a> {
    c: &'a ConvNest,
    b: ConvBlocking,
    epilogue: Option<&'a VectorEpilogue>,
    splats: &'a HashMap<Value, Value>,
    /// The staged input, if any, and whether it holds one channel only.
    staged: Option<Value>,
    per_channel: bool,
}

pub fn rewrite_depthwise(
    ctx: &mut Context,
    c: &ConvNest,
    b: ConvBlocking,
    rows: i64,
    epilogue: Option<VectorEpilogue>,
) {
    let [channels, oh_n, ..] = c.extents;
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let s = c.cols.stride;
    if let Some(e) = &epilogue {
        e.prepare(ctx, c.parallel);
    }
    let splats = match &c.tap {
        Tap::Pool(pool) => outside_splats(ctx, at, pool, b.width),
        Tap::Product { .. } => HashMap::new(),
    };
    let staging = (c.pad.is_some() || s > 1).then(|| staged_extents(c));
    let per_channel = staging.is_some_and(|e| stage_per_channel(c, e));
    let rows = rows.clamp(1, oh_n.max(1));
    // Whole blocks of `rows` rows, then one block of the rows left.
    let full = oh_n - oh_n % rows;
    let mut kernel = Kernel {
        c,
        b,
        epilogue: epilogue.as_ref(),
        splats: &splats,
        staged: None,
        per_channel,
    };
    if per_channel {
        let extents = staging.expect("staging is needed");
        let (channel, ivs) = outer_loops(ctx, at, &[channels], &[1], b.threads);
        let ch = ivs[0];
        kernel.staged = Some(stage_channel(ctx, c, channel, ch, extents));
        if full > 0 {
            let (_, row, oh, _) = channel.for_loop(ctx, constant(0), constant(full), rows, &[]);
            emit_rows(ctx, &kernel, row, ch, oh, rows);
        }
        if full < oh_n {
            let oh = channel.index_constant(ctx, full);
            emit_rows(ctx, &kernel, channel, ch, oh, oh_n - full);
        }
    } else {
        kernel.staged = staging.map(|e| stage_input(ctx, c, at, b.threads, e));
        if full > 0 {
            let (row, ivs) = outer_loops(ctx, at, &[channels, full], &[1, rows], b.threads);
            emit_rows(ctx, &kernel, row, ivs[0], ivs[1], rows);
        }
        if full < oh_n {
            let (row, ivs) = outer_loops(ctx, at, &[channels], &[1], b.threads);
            let oh = row.index_constant(ctx, full);
            emit_rows(ctx, &kernel, row, ivs[0], oh, oh_n - full);
        }
    }
    if let Some(buffer) = kernel.staged.filter(|_| !per_channel) {
        at.dealloc(ctx, buffer);
    }
    ctx.erase_op(c.parallel);
    if let Some(e) = epilogue {
        conv_epilogue::finish(ctx, e.epilogue, c, channels);
    }
}

/// The pixel blocks of a row: blocks of `MR` pixels, then single vectors, then one vector
/// overlapping the one before it, as `(first, end, pixels)` of a loop over the row.
fn pixel_blocks(ow_n: i64, b: ConvBlocking) -> Vec<(i64, i64, i64)> {
    let full = ow_n - ow_n % b.mr;
    let singles = ow_n - ow_n % b.width;
    let mut blocks: Vec<(i64, i64, i64)> = vec![(0, full, b.mr), (full, singles, b.width)];
    if singles < ow_n {
        blocks.push((ow_n - b.width, ow_n - b.width + 1, b.width));
    }
    blocks.retain(|&(lo, hi, _)| lo < hi);
    blocks
}

/// Output rows `oh .. oh + rows` of channel `ch`, at `row`: one row with the window in
/// loops, or several with the window's steps written out, each input row loaded once for
/// every output row whose window holds it.
fn emit_rows(ctx: &mut Context, k: &Kernel, row: At, ch: Value, oh: Value, rows: i64) {
    for block in pixel_blocks(k.c.extents[OW], k.b) {
        if rows == 1 {
            emit_single_row(ctx, k, row, ch, oh, block);
        } else {
            emit_row_block(ctx, k, row, ch, oh, rows, block);
        }
    }
}

/// The input vector `first` lanes into the pixel block at output row `oh` and first pixel
/// `ow0` (expressions of the map's `dims` operands, the channel `d0` first), input row
/// `offset` (padded, relative to `oh` times the stride) and window column `kw`.
fn input_vector_map(
    k: &Kernel,
    dims: u32,
    (oh, ow0): (AffineExpr, AffineExpr),
    offset: AffineExpr,
    kw: AffineExpr,
    first: i64,
) -> AffineMap {
    let c = k.c;
    let s = c.cols.stride;
    let row_expr = oh * c.rows.stride + offset;
    let column = kw * c.cols.dilation;
    let indices = match k.staged {
        Some(_) => {
            let channel = if k.per_channel { vec![] } else { vec![d(0)] };
            channel
                .into_iter()
                .chain([
                    column.clone().modulo(s),
                    row_expr,
                    ow0 + first + column.floor_div(s),
                ])
                .collect()
        }
        None => vec![
            AffineExpr::constant(0),
            d(0),
            row_expr + c.rows.offset,
            ow0 + first + column + c.cols.offset,
        ],
    };
    map(dims, indices)
}

/// One step of the window: `acc` combined with the input vector `x` (weighted by `w` for a
/// convolution).
fn step(ctx: &mut Context, k: &Kernel, body: At, x: Value, w: Option<Value>, acc: Value) -> Value {
    match (&k.c.tap, w) {
        (Tap::Pool(pool), _) => pool_step(ctx, body, pool, k.splats, x, acc, k.b.width),
        (Tap::Product { .. }, Some(wb)) => body.fma(ctx, x, wb, acc),
        (Tap::Product { .. }, None) => unreachable!("a product tap has weights"),
    }
}

/// Stores (or hands to the epilogue) the sums of one output row's pixel block.
fn finish_row(ctx: &mut Context, k: &Kernel, block: At, ivs: [Value; 3], sums: &[Value]) {
    for (v, &sum) in sums.iter().enumerate() {
        let first = v as i64 * k.b.width;
        if let Some(e) = k.epilogue {
            e.emit(ctx, block, &ivs, &[0, 0, first], sum, k.b.width);
            continue;
        }
        let omap = map(3, vec![AffineExpr::constant(0), d(0), d(1), d(2) + first]);
        block.store(ctx, true, sum, k.c.output, omap, &ivs);
    }
}

/// Pixel block `(lo, hi, pixels)` of output row `oh`, the window in `kh`, `kw` loops
/// carrying the block's accumulators.
fn emit_single_row(
    ctx: &mut Context,
    k: &Kernel,
    row: At,
    ch: Value,
    oh: Value,
    (lo, hi, pixels): (i64, i64, i64),
) {
    let c = k.c;
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = vector_type(ctx, f32_ty, k.b.width);
    let vectors = pixels / k.b.width;
    let (_, block, ow0, _) = row.for_loop(ctx, constant(lo), constant(hi), pixels, &[]);
    let splat = block.broadcast(ctx, c.init, vec_ty);
    let inits = vec![splat; vectors as usize];
    let (kh_loop, kh_body, kh, kh_acc) =
        block.for_loop(ctx, constant(0), constant(c.extents[KH]), 1, &inits);
    let (kw_loop, body, kw, acc) =
        kh_body.for_loop(ctx, constant(0), constant(c.extents[KW]), 1, &kh_acc);
    // W[ch][0][kh][kw], broadcast, for a convolution.
    let weight = c.tap.weights().map(|weights| {
        let w = body.load(
            ctx,
            false,
            weights,
            map(3, vec![d(0), AffineExpr::constant(0), d(1), d(2)]),
            &[ch, kh, kw],
            f32_ty,
        );
        body.broadcast(ctx, w, vec_ty)
    });
    let next: Vec<Value> = (0..vectors)
        .map(|v| {
            // Operands (ch, oh, kh, ow0, kw).
            let m = input_vector_map(
                k,
                5,
                (d(1), d(3)),
                d(2) * c.rows.dilation,
                d(4),
                v * k.b.width,
            );
            let source = k.staged.unwrap_or(c.input);
            let x = body.load(ctx, true, source, m, &[ch, oh, kh, ow0, kw], vec_ty);
            step(ctx, k, body, x, weight, acc[v as usize])
        })
        .collect();
    set_yield(ctx, body, &next);
    let kw_results = ctx.op(kw_loop).results.to_vec();
    set_yield(ctx, kh_body, &kw_results);
    let sums = ctx.op(kh_loop).results.to_vec();
    finish_row(ctx, k, block, [ch, oh, ow0], &sums);
}

/// Pixel block `(lo, hi, pixels)` of the `rows` output rows from `oh`: the window's steps
/// written out, input row by input row, so an input vector shared by the windows of
/// several output rows is loaded once. Each output still combines its window in the
/// original order (`kh`, then `kw`).
// `acc[r][v]`: the vector index picks a column of the accumulators of several rows.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn emit_row_block(
    ctx: &mut Context,
    k: &Kernel,
    row: At,
    ch: Value,
    oh: Value,
    rows: i64,
    (lo, hi, pixels): (i64, i64, i64),
) {
    let c = k.c;
    let [_, _, _, _, kh_n, kw_n] = c.extents;
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = vector_type(ctx, f32_ty, k.b.width);
    let vectors = (pixels / k.b.width) as usize;
    let (_, block, ow0, _) = row.for_loop(ctx, constant(lo), constant(hi), pixels, &[]);
    let splat = block.broadcast(ctx, c.init, vec_ty);
    // W[ch][0][kh][kw], broadcast, made once per block.
    let weights: Vec<Option<Value>> = (0..kh_n * kw_n)
        .map(|tap| {
            c.tap.weights().map(|weights| {
                let (kh, kw) = (tap / kw_n, tap % kw_n);
                let wmap = map(
                    1,
                    vec![
                        d(0),
                        AffineExpr::constant(0),
                        AffineExpr::constant(kh),
                        AffineExpr::constant(kw),
                    ],
                );
                let w = block.load(ctx, false, weights, wmap, &[ch], f32_ty);
                block.broadcast(ctx, w, vec_ty)
            })
        })
        .collect();
    let mut acc = vec![vec![splat; vectors]; rows as usize];
    // Input rows (relative to oh * stride), each with the (output row, kh) windows it is in.
    let mut input_rows: Vec<(i64, Vec<(usize, i64)>)> = Vec::new();
    for r in 0..rows {
        for kh in 0..kh_n {
            let offset = r * c.rows.stride + kh * c.rows.dilation;
            match input_rows.iter_mut().find(|(o, _)| *o == offset) {
                Some((_, uses)) => uses.push((r as usize, kh)),
                None => input_rows.push((offset, vec![(r as usize, kh)])),
            }
        }
    }
    input_rows.sort_by_key(|(offset, _)| *offset);
    let source = k.staged.unwrap_or(c.input);
    for (offset, uses) in &input_rows {
        for kw in 0..kw_n {
            for v in 0..vectors {
                let first = v as i64 * k.b.width;
                let m = input_vector_map(
                    k,
                    3,
                    (d(1), d(2)),
                    AffineExpr::constant(*offset),
                    AffineExpr::constant(kw),
                    first,
                );
                let x = block.load(ctx, true, source, m, &[ch, oh, ow0], vec_ty);
                for &(r, kh) in uses {
                    let w = weights[(kh * kw_n + kw) as usize];
                    acc[r][v] = step(ctx, k, block, x, w, acc[r][v]);
                }
            }
        }
    }
    for (r, sums) in acc.iter().enumerate() {
        let oh_r = block.add_index(ctx, oh, r as i64);
        finish_row(ctx, k, block, [ch, oh_r, ow0], sums);
    }
}

/// The padded rows and columns the windows read, `(Hp, Wp)`: one channel's staged input
/// holds `S * Hp * ceil(Wp / S)` elements.
pub(super) fn staged_extents(c: &ConvNest) -> (i64, i64) {
    let [_, oh, ow, _, kh, kw] = c.extents;
    let hp = c.rows.stride * (oh - 1) + c.rows.dilation * (kh - 1) + 1;
    let wp = c.cols.stride * (ow - 1) + c.cols.dilation * (kw - 1) + 1;
    (hp, wp)
}

/// Channels below which the channels are too few to share between threads one at a time;
/// the rows of every channel are shared instead.
const MIN_CHANNELS_PER_CHANNEL_STAGING: i64 = 16;
/// The largest per-channel copy kept on a thread's stack.
const MAX_CHANNEL_STAGING_BYTES: i64 = 256 << 10;
/// The stack copy's alignment: a cache line, enough for the widest vector loads.
const STAGING_ALIGNMENT: i64 = 64;

/// Whether the input is staged one channel at a time (see the module's comment).
fn stage_per_channel(c: &ConvNest, (hp, wp): (i64, i64)) -> bool {
    let s = c.cols.stride;
    let bytes = s * hp * ((wp + s - 1) / s) * 4;
    c.extents[0] >= MIN_CHANNELS_PER_CHANNEL_STAGING && bytes <= MAX_CHANNEL_STAGING_BYTES
}

/// The padded, phase-split copy `Xs[C][S][Hp][Wq]` of every channel of the input: per
/// channel (on threads when the kernel runs on threads), the border the windows read
/// outside the input is set to the padding value, then the input is copied inside it.
/// Positions no window reads (past the last column of a phase) are left unset.
pub(super) fn stage_input(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    threads: bool,
    (hp, wp): (i64, i64),
) -> Value {
    let channels = c.input_shape[0];
    let f32_ty = ctx.value_type(c.init);
    let s = c.cols.stride;
    let staged = alloc(ctx, at, vec![channels, s, hp, (wp + s - 1) / s], f32_ty);
    // Xs[c][x mod S][y][x floordiv S] for the operands (c, y, x).
    let to_staged = map(3, vec![d(0), d(2).modulo(s), d(1), d(2).floor_div(s)]);
    fill_padded(ctx, c, at, threads, staged, &to_staged, s, (hp, wp));
    staged
}

/// Channel `ch`'s padded, phase-split copy `Xs[S][Hp][Wq]`, in a stack buffer made at `at`
/// (the body of the loop over channels) and filled there.
fn stage_channel(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    ch: Value,
    (hp, wp): (i64, i64),
) -> Value {
    let f32_ty = ctx.value_type(c.init);
    let s = c.cols.stride;
    let ty = ctx.intern_type(TypeKind::MemRef {
        shape: vec![s, hp, (wp + s - 1) / s],
        element: f32_ty,
        layout: None,
        memory_space: None,
    });
    let staged = at.alloca(ctx, ty, STAGING_ALIGNMENT);
    // Xs[x mod S][y][x floordiv S] for the operands (c, y, x).
    let to_staged = map(3, vec![d(2).modulo(s), d(1), d(2).floor_div(s)]);
    fill_channel(ctx, c, at, ch, staged, &to_staged, s, (hp, wp));
    staged
}

/// Fills `staged`, the padded input laid out by `to_staged` over `(c, y, x)` (`y < hp`,
/// `x < wp` in padded coordinates): per channel (on threads when `threads`), the border
/// the windows read outside the input is set to the padding value, then the input is
/// copied inside it, so every element is written once. `phases` is the number of phases
/// `to_staged` splits the columns into (`x mod phases`; 1: not split). Returns the loop
/// that copies a row's input columns, when one loop copies them all (see
/// [`super::padded_in_place`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn fill_padded(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    threads: bool,
    staged: Value,
    to_staged: &AffineMap,
    phases: i64,
    (hp, wp): (i64, i64),
) -> Option<OpId> {
    let channels = c.input_shape[0];
    let (per_channel, ch) = outer_loops(ctx, at, &[channels], &[1], threads);
    fill_channel(
        ctx,
        c,
        per_channel,
        ch[0],
        staged,
        to_staged,
        phases,
        (hp, wp),
    )
}

/// Fills channel `ch` of `staged` at `per_channel` (see [`fill_padded`]): the border rows
/// whole, then one loop over the rows where the input lies, which sets each row's left
/// border, copies its input columns and sets its right border. A row's pieces stay in one
/// loop body so that only the copy along the row is a loop LLVM vectorizes: border
/// columns in loops of their own over the rows would be vectorized down the column, into
/// gathers and scatters. Returns the loop copying the row's input columns when one loop
/// copies them all.
#[allow(clippy::too_many_arguments)]
fn fill_channel(
    ctx: &mut Context,
    c: &ConvNest,
    per_channel: At,
    ch: Value,
    staged: Value,
    to_staged: &AffineMap,
    phases: i64,
    (hp, wp): (i64, i64),
) -> Option<OpId> {
    let f32_ty = ctx.value_type(c.init);
    let [_, h, w] = c.input_shape;
    // The padded rows and columns where the input lies.
    let rows = ((-c.rows.offset).clamp(0, hp), hp.min(h - c.rows.offset));
    let cols = ((-c.cols.offset).clamp(0, wp), wp.min(w - c.cols.offset));
    let inside = rows.0 < rows.1 && cols.0 < cols.1;
    let whole_rows = if inside {
        vec![(0, rows.0), (rows.1, hp)]
    } else {
        vec![(0, hp)]
    };
    if let Some(pad) = c.pad {
        for ys in whole_rows {
            if ys.0 >= ys.1 {
                continue;
            }
            // Phase by phase: each phase's row is consecutive in the staged layout (also
            // setting the positions past a phase's last column, which no window reads).
            for p in 0..phases {
                let groups = (0, (wp + phases - 1) / phases);
                let (body, ivs) = for_nest(ctx, per_channel, &[ys, groups]);
                let column = map(3, vec![d(0), d(1), d(2) * phases + p]);
                let store_map = to_staged.compose(&column).simplify();
                body.store(ctx, false, pad, staged, store_map, &[ch, ivs[0], ivs[1]]);
            }
        }
    }
    if !inside {
        return None;
    }
    let (row, y) = for_nest(ctx, per_channel, &[rows]);
    let y = y[0];
    // Sets the columns `xs` (padded coordinates) of row `y` to the padding value.
    let pad_columns = |ctx: &mut Context, xs: (i64, i64)| {
        if let Some(pad) = c.pad
            && xs.0 < xs.1
        {
            let (body, x) = for_nest(ctx, row, &[xs]);
            body.store(ctx, false, pad, staged, to_staged.clone(), &[ch, y, x[0]]);
        }
    };
    // Copies the input columns `xs` (padded coordinates) of row `y`, one at a time, in the
    // loop it returns.
    let copy_columns = |ctx: &mut Context, xs: (i64, i64)| {
        if xs.0 >= xs.1 {
            return None;
        }
        let (body, x) = for_nest(ctx, row, &[xs]);
        let operands = [ch, y, x[0]];
        let v = body.load(ctx, false, c.input, input_map(c, 1, 0), &operands, f32_ty);
        body.store(ctx, false, v, staged, to_staged.clone(), &operands);
        loop_of_iv(ctx, x[0])
    };
    pad_columns(ctx, (0, cols.0));
    let s = phases;
    // Whole groups of S columns: column S*j + p goes to phase p's row at j, so each phase's
    // stores are consecutive and the loads of a group are one interleaved block, which
    // LLVM vectorizes; a copy column by column through `mod`/`floordiv` would not be.
    let groups = ((cols.0 + s - 1) / s, cols.1 / s);
    let mut single_copy = None;
    if s == 1 || groups.0 >= groups.1 {
        single_copy = copy_columns(ctx, cols);
    } else {
        copy_columns(ctx, (cols.0, s * groups.0));
        let (body, j) = for_nest(ctx, row, &[groups]);
        let operands = [ch, y, j[0]];
        for p in 0..s {
            let x = body.load(ctx, false, c.input, input_map(c, s, p), &operands, f32_ty);
            // (c, y, j) -> (c, y, S*j + p), then the staged layout.
            let column = map(3, vec![d(0), d(1), d(2) * s + p]);
            let store_map = to_staged.compose(&column).simplify();
            body.store(ctx, false, x, staged, store_map, &operands);
        }
        copy_columns(ctx, (s * groups.1, cols.1));
    }
    pad_columns(ctx, (cols.1, wp));
    single_copy
}

/// The loop whose induction variable `iv` is.
fn loop_of_iv(ctx: &Context, iv: Value) -> Option<OpId> {
    let tb_ir::value::ValueDef::BlockArgument { block, .. } = ctx.value(iv).def else {
        return None;
    };
    let region = ctx.block(block).parent?;
    ctx.region(region).parent
}

/// The input element of padded row `y` and padded column `scale * x + shift` for the
/// operands `(c, y, x)`.
fn input_map(c: &ConvNest, scale: i64, shift: i64) -> AffineMap {
    map(
        3,
        vec![
            AffineExpr::constant(0),
            d(0),
            d(1) + c.rows.offset,
            d(2) * scale + (shift + c.cols.offset),
        ],
    )
}

/// Splats, made once before the nest, of the values from outside it that the pool's
/// prologue and combining op read.
fn outside_splats(ctx: &mut Context, at: At, pool: &PoolTap, width: i64) -> HashMap<Value, Value> {
    let chain: Vec<Value> = pool
        .prologue
        .iter()
        .map(|&op| ctx.op(op).results[0])
        .chain([pool.x])
        .collect();
    let mut splats = HashMap::new();
    for &op in pool.prologue.iter().chain([&pool.combine]) {
        for (i, v) in ctx.op(op).operands.clone().into_iter().enumerate() {
            let is_acc = op == pool.combine && i == pool.acc_operand;
            if is_acc || chain.contains(&v) || splats.contains_key(&v) {
                continue;
            }
            let ty = vector_type(ctx, ctx.value_type(v), width);
            splats.insert(v, at.broadcast(ctx, v, ty));
        }
    }
    splats
}

/// One pooling step on a vector `x` of the input: the prologue and the combining op,
/// each cloned with vector operands and results, into the accumulator `acc`.
fn pool_step(
    ctx: &mut Context,
    body: At,
    pool: &PoolTap,
    splats: &HashMap<Value, Value>,
    x: Value,
    acc: Value,
    width: i64,
) -> Value {
    let mut vectors: HashMap<Value, Value> = splats.clone();
    vectors.insert(pool.x, x);
    let acc_scalar = ctx.op(pool.combine).operands[pool.acc_operand];
    vectors.insert(acc_scalar, acc);
    let mut last = x;
    for &op in pool.prologue.iter().chain([&pool.combine]) {
        let operands = ctx.op(op).operands.iter().map(|v| vectors[v]).collect();
        last = widened(ctx, body, op, operands, width);
        vectors.insert(ctx.op(op).results[0], last);
    }
    last
}
