//! `loop-conv-microkernel{mr,nr,vector,threads}`: rewrites 2-D convolution nests (batch 1,
//! one group or depthwise; see [`super::conv_nest`]) into register-blocked direct
//! convolutions. Depthwise convolutions get their own kernel ([`super::conv_depthwise`]),
//! which also runs pools (max, min or sum over a window, [`super::pool_tap`]); 1x1
//! convolutions that read consecutive columns without padding, and convolutions with a
//! window over at most 4 input channels (stems), with rows of at least one vector, no
//! schedule and no `mr`/`nr` option, get the pointwise kernel
//! ([`super::conv_pointwise`], pixels in the vector lanes; option `pointwise`); 3x3
//! convolutions with unit stride and dilation, constant weights and channel counts the
//! vector divides, with no schedule and no `mr`/`nr` option, get Winograd's F(2x2, 3x3)
//! or, on outputs of many tiles, F(4x4, 3x3) ([`super::conv_winograd`], options `winograd`
//! and `winograd-tile`); any other convolution with one group is
//! vectorized over output channels:
//!
//! - a padded input is copied once into a buffer that holds the padding (`Xp[C][Hp][Wp]`),
//!   so the kernel reads no clamp and no select; an unpadded input is read where it lies;
//!   where the input is a buffer the function allocates, its producer writes it straight
//!   into the copy's interior instead (`in-place`, see [`super::padded_in_place`]);
//! - the weights are packed into `NR`-channel panels `Wp[M/NR][C][KH][KW][NR]`: on every
//!   call, or once at compile time into a new constant global when they are a constant
//!   global (`pack-constants`);
//! - per block of `NR` output channels and output row (on threads), per `MR` output
//!   pixels of the row, `MR * NR / W` vector accumulators are carried through the `c`,
//!   `kh`, `kw` loops in `iter_args`: each step loads `NR / W` weight vectors and, per
//!   pixel, broadcasts one input value and does `NR / W` FMAs; the accumulators are stored
//!   channels-last into `Ot[OH][OW][M]`, which is then transposed into the result, or,
//!   when an elementwise nest (bias, activation, residual add) is the result's only
//!   reader, that nest is computed in the transposition instead and the result is never
//!   written (`epilogues`, see [`super::conv_epilogue`]);
//! - while a block of channels is computed, its last block of pixels also prefetches the
//!   next block's weight panel, step by step (`prefetch`): a model's weights seldom stay in
//!   cache from one call to the next, and a panel read from memory would stall the next
//!   block's first steps (on MobileNet-V2's 7x7 layers, 6% to 10% faster at 2 threads);
//! - the pixels left over by `MR` are recomputed by one block overlapping the one before
//!   (a row narrower than `MR` is one block); the channels left over by `NR` keep the
//!   original nest, narrowed to them.
//!
//! A nest carrying a `#loop.schedule` is blocked as it says when it asks for packing
//! (`pack = rhs` or `both`); its dimensions are `co, oh, ow, c, kh, kw`: `co`'s innermost
//! tile is `NR`, `ow`'s is `MR` (for a depthwise convolution: the pixels of a block, whole
//! vectors), `vector` is the vector width, and a non-empty `parallel` runs channel blocks
//! and rows on threads (an empty one: one thread). A schedule without packing leaves the
//! nest to `loop-apply-schedule`. Options at 0 come from the host; `threads` at -1 uses
//! threads when the nest has enough work. Each output sums over `c, kh, kw` in the
//! original order; the FMA rounds once where the original multiply and add round twice.

use tb_dialects::loop_::{self, LoopOp, Schedule};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{AttrKind, Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::build::{At, set_yield};
use super::constant_pack::{ConstantBuffer, constant_f32, packed_global, release};
use super::conv_depthwise::{
    default_depthwise_blocking, default_depthwise_rows, fill_padded, fits as depthwise_fits,
    rewrite_depthwise,
};
use super::conv_epilogue;
use super::conv_nest::{CO, ConvNest, OH, OW, match_conv};
use super::conv_pointwise::{as_plane, default_pointwise_blocking, rewrite_pointwise};
use super::conv_winograd;
use super::loop_matmul_microkernel::{drop_schedule, set_bounds};
use super::padded_in_place::{PaddedCopy, write_in_place};
use super::strip_mine::set_mark;
use super::vector_epilogue;
use super::{Target, register_block};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "mr",
        kind: OptionKind::Int,
        default: "0",
        help: "Output pixels of the register block (0: from the host)",
    },
    PassOptionInfo {
        name: "nr",
        kind: OptionKind::Int,
        default: "0",
        help: "Output channels of the register block, a multiple of the vector width (0: from the host and the channel count)",
    },
    PassOptionInfo {
        name: "vector",
        kind: OptionKind::Int,
        default: "0",
        help: "Vector width in elements (0: the host's)",
    },
    PassOptionInfo {
        name: "rows",
        kind: OptionKind::Int,
        default: "0",
        help: "Output rows a depthwise or pooling block computes at once, each input vector loaded once for all of them (0: from the host's vector registers and the window; 1: one row, the window in loops)",
    },
    PassOptionInfo {
        name: "threads",
        kind: OptionKind::Int,
        default: "-1",
        help: "1: run channel blocks and rows on threads, 0: on one thread, -1: threads when the nest has enough work",
    },
    PassOptionInfo {
        name: "pack-constants",
        kind: OptionKind::Bool,
        default: "true",
        help: "When the weights are a constant global, pack their panels at compile time into a new constant global instead of on every call",
    },
    PassOptionInfo {
        name: "pointwise",
        kind: OptionKind::Bool,
        default: "true",
        help: "Compute 1x1 convolutions with unit column stride and no padding, and convolutions with a window over at most 4 input channels (stems), by the pointwise kernel (pixels in the vector lanes, no transposition) when their rows hold a full vector, they carry no schedule and neither mr nor nr is given",
    },
    PassOptionInfo {
        name: "winograd",
        kind: OptionKind::Bool,
        default: "true",
        help: "Compute 3x3 convolutions with unit stride and dilation, one group and constant weights by Winograd's F(2x2, 3x3) or F(4x4, 3x3) (see winograd-tile; F(2x2, 3x3): 16 multiplications per 2x2 outputs and channel pair instead of 36) when they carry no schedule and neither mr nor nr is given",
    },
    PassOptionInfo {
        name: "winograd-tile",
        kind: OptionKind::Int,
        default: "0",
        help: "Outputs along a Winograd tile's side: 2 for F(2x2, 3x3), 4 for F(4x4, 3x3) (36 multiplications per 16 outputs; 36/9 the weights), 0 for F(4x4, 3x3) where the output has at least 32 such tiles and F(2x2, 3x3) elsewhere",
    },
    PassOptionInfo {
        name: "prefetch",
        kind: OptionKind::Bool,
        default: "true",
        help: "In the channel-vectorized and Winograd kernels, prefetch the weight panel of the next block of output channels while the current one is computed, step by step, so that a panel coming from memory is in cache when its block starts",
    },
    PassOptionInfo {
        name: "epilogues",
        kind: OptionKind::Bool,
        default: "true",
        help: "Compute the elementwise nest that reads the result (bias, activation, residual add) where the kernel writes it, instead of writing the result",
    },
    PassOptionInfo {
        name: "in-place",
        kind: OptionKind::Bool,
        default: "true",
        help: "Let the producer of a padded input write it straight into the padded copy (a view of its interior) when the input is a buffer the function allocates and only reads and writes element by element, instead of copying it there",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-conv-microkernel",
        description: "Register-block 2-D convolution loop nests into a packed, channel-vectorized micro-kernel",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(ConvMicrokernel {
                mr: o.int("mr"),
                nr: o.int("nr"),
                vector: o.int("vector"),
                rows: o.int("rows"),
                threads: o.int("threads"),
                pack_constants: o.bool("pack-constants"),
                pointwise: o.bool("pointwise"),
                winograd: o.bool("winograd"),
                winograd_tile: o.int("winograd-tile"),
                prefetch: o.bool("prefetch"),
                epilogues: o.bool("epilogues"),
                in_place: o.bool("in-place"),
            })
        },
    }
}

struct ConvMicrokernel {
    mr: i64,
    nr: i64,
    vector: i64,
    rows: i64,
    threads: i64,
    pack_constants: bool,
    pointwise: bool,
    winograd: bool,
    winograd_tile: i64,
    prefetch: bool,
    epilogues: bool,
    in_place: bool,
}

/// The block sizes and threading of one rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvBlocking {
    pub mr: i64,
    pub nr: i64,
    pub width: i64,
    pub threads: bool,
}

/// Iterations (all six loops) from which a convolution runs on threads.
const MIN_PARALLEL_WORK: i64 = 1 << 16;

/// The default blocking of a convolution with `channels` outputs, output rows of `row`
/// pixels and `work` iterations on `target`: `NR` output channels of `columns` vectors of
/// `width` lanes, and as many pixels (up to 8) as leave registers for the weight vectors
/// and the broadcast input, or the largest count down to half of that which divides the
/// row: a row the block does not divide ends with a block that recomputes pixels of the
/// one before it (28-pixel rows in blocks of 8 compute 32 pixels; in blocks of 7, 28).
///
/// Channels that `NR` leaves over run in the original, unvectorized nest, so the blocking
/// first minimises them: the register's width and narrower ones (down to 4 lanes) are
/// tried with 1 to 4 columns. Among blockings that leave as few channels over, the widest
/// vector wins, then two columns (enough independent accumulators to hide the FMA
/// latency), then three, one and four. A convolution with 24 outputs on a 16-lane target
/// gets three 8-lane columns instead of one 16-lane column and 8 unvectorized channels.
pub fn default_conv_blocking(target: &Target, channels: i64, row: i64, work: i64) -> ConvBlocking {
    let lanes = target.lanes(4);
    let (_, two_vectors) = register_block(target, 4);
    let mut widths = vec![lanes];
    while widths.last().is_some_and(|&w| w / 2 >= 4) {
        widths.push(widths.last().unwrap() / 2);
    }
    const COLUMN_PREFERENCE: [i64; 4] = [2, 3, 1, 4];
    let best = widths
        .iter()
        .flat_map(|&width| {
            COLUMN_PREFERENCE
                .iter()
                .map(move |&columns| (width, columns))
        })
        .filter(|&(width, columns)| {
            width * columns <= channels && target.vector_registers - columns > columns
        })
        .enumerate()
        .min_by_key(|&(rank, (width, columns))| (channels % (width * columns), rank));
    let (width, nr) = match best {
        Some((_, (width, columns))) => (width, width * columns),
        // Fewer channels than the narrowest block: no micro-kernel applies.
        None => (lanes, two_vectors),
    };
    let columns = nr / width;
    let most = ((target.vector_registers - columns - 1) / columns).clamp(1, 8);
    let mr = ((most + 1) / 2..=most)
        .rev()
        .find(|&mr| row % mr == 0)
        .unwrap_or(most);
    ConvBlocking {
        mr,
        nr,
        width,
        threads: target.cores > 1 && work >= MIN_PARALLEL_WORK,
    }
}

impl Pass for ConvMicrokernel {
    fn argument(&self) -> &'static str {
        "loop-conv-microkernel"
    }

    fn display_name(&self) -> &'static str {
        "LoopConvMicrokernel"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if ![0, 2, 4].contains(&self.winograd_tile) {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-conv-microkernel: winograd-tile={} is not 0 (chosen per convolution), 2 or 4",
                    self.winograd_tile
                ),
            ));
        }
        let host = Target::host();
        let mut candidates = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if LoopOp::of(ctx, inner) == Some(LoopOp::Parallel) {
                candidates.push(inner);
            }
        });
        let mut copies = Vec::new();
        for parallel in candidates {
            let Some(conv) = match_conv(ctx, parallel) else {
                continue;
            };
            let work: i64 = conv.extents.iter().product();
            let mut blocking = if conv.depthwise {
                let lanes = if self.vector > 0 {
                    self.vector
                } else {
                    host.lanes(4)
                };
                let threads = host.cores > 1 && work >= MIN_PARALLEL_WORK;
                default_depthwise_blocking(lanes, conv.extents[OW], threads)
            } else {
                default_conv_blocking(&host, conv.extents[CO], conv.extents[OW], work)
            };
            if self.vector > 0 && !conv.depthwise {
                blocking.width = self.vector;
            }
            if self.nr > 0 {
                blocking.nr = self.nr;
            } else if blocking.nr % blocking.width != 0 && !conv.depthwise {
                blocking.nr = blocking.width;
            }
            if self.mr > 0 {
                blocking.mr = self.mr;
            }
            if self.threads >= 0 {
                blocking.threads = self.threads > 0;
            }
            // Explicit `mr`/`nr` (the tuner's decisions) ask for the channel-vectorized
            // kernel's blocking.
            let plain = self.mr == 0 && self.nr == 0 && loop_::schedule(ctx, parallel).is_none();
            if self.winograd
                && plain
                && conv_winograd::rewrite(
                    ctx,
                    &conv,
                    &host,
                    conv_winograd::algorithm(&conv, self.winograd_tile),
                    (blocking.width, blocking.threads),
                    (self.epilogues, self.prefetch),
                    &mut copies,
                )
            {
                continue;
            }
            if self.pointwise
                && plain
                && self.rewrite_pointwise(ctx, &conv, &host, blocking.threads)
            {
                continue;
            }
            let loc = ctx.op(parallel).loc;
            let chosen = match loop_::schedule(ctx, parallel).cloned() {
                Some(schedule) if !schedule.pack.packs_rhs() => continue,
                Some(schedule) => {
                    blocking_of(&schedule, blocking, conv.depthwise).map_err(|why| {
                        Diagnostic::error(
                            loc,
                            format!(
                                "loop-conv-microkernel: the nest's schedule does not fit: {why}"
                            ),
                        )
                    })?
                }
                None => blocking,
            };
            let (units, unit) = if conv.depthwise {
                (chosen.mr, "mr (pixels)")
            } else {
                (chosen.nr, "nr (channels)")
            };
            if chosen.mr < 1 || chosen.width < 1 || units % chosen.width != 0 {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "loop-conv-microkernel: needs mr and vector >= 1 and {unit} a positive multiple of the vector width {} (got mr={}, nr={})",
                        chosen.width, chosen.mr, chosen.nr
                    ),
                ));
            }
            if conv.depthwise {
                if !depthwise_fits(&conv, chosen) {
                    continue;
                }
                drop_schedule(ctx, parallel);
                let epilogue = if self.epilogues {
                    conv_epilogue::find(ctx, &conv)
                        .and_then(|e| vector_epilogue::plan(ctx, e, parallel))
                } else {
                    None
                };
                let rows = if self.rows > 0 {
                    self.rows
                } else {
                    default_depthwise_rows(host.vector_registers, &conv, chosen)
                };
                rewrite_depthwise(ctx, &conv, chosen, rows, epilogue);
                continue;
            }
            let Some(weights) = conv.tap.weights() else {
                continue;
            };
            if conv.extents[CO] < chosen.nr {
                continue;
            }
            drop_schedule(ctx, parallel);
            rewrite(
                ctx,
                &conv,
                weights,
                chosen,
                Options {
                    pack_constants: self.pack_constants,
                    epilogues: self.epilogues,
                    prefetch: self.prefetch,
                },
                &mut copies,
            );
        }
        if self.in_place {
            write_in_place(ctx, copies);
        }
        Ok(())
    }
}

impl ConvMicrokernel {
    /// Rewrites `conv` with the pointwise kernel when it applies and its epilogue, if any,
    /// can be computed on its vectors; returns whether it did.
    fn rewrite_pointwise(
        &self,
        ctx: &mut Context,
        conv: &ConvNest,
        host: &Target,
        threads: bool,
    ) -> bool {
        let mut target = host.clone();
        if self.vector > 0 {
            target.vector_bytes = self.vector * 4;
        }
        // Rows narrower than a vector: the whole plane as one row, where it is one.
        let plane = default_pointwise_blocking(&target, conv, threads)
            .is_none()
            .then(|| as_plane(ctx, conv, target.lanes(4)))
            .flatten();
        let Some(blocking) =
            default_pointwise_blocking(&target, plane.as_ref().unwrap_or(conv), threads)
        else {
            return false;
        };
        let epilogue = match self
            .epilogues
            .then(|| conv_epilogue::find(ctx, conv))
            .flatten()
        {
            Some(e) => match vector_epilogue::plan(ctx, e, conv.parallel) {
                Some(vector)
                    if plane.is_none()
                        || vector
                            .plane_buffers(ctx, (conv.extents[OH], conv.extents[OW]))
                            .is_some() =>
                {
                    Some(vector)
                }
                // The channel-vectorized kernel computes it in its transposition instead.
                _ => return false,
            },
            None => None,
        };
        drop_schedule(ctx, conv.parallel);
        rewrite_pointwise(ctx, conv, plane.as_ref(), blocking, epilogue);
        true
    }
}

/// The blocking a convolution nest's `#loop.schedule` asks for (see the module doc).
fn blocking_of(
    schedule: &Schedule,
    fallback: ConvBlocking,
    depthwise: bool,
) -> Result<ConvBlocking, String> {
    let reduction = [false, false, false, true, true, true];
    schedule.verify(6, &reduction)?;
    if schedule.parallel.iter().any(|&d| d != CO && d != OH) {
        return Err(format!(
            "runs dimensions {:?} on threads; only output channels (0) and rows (1) can be",
            schedule.parallel
        ));
    }
    let nr = schedule.tiles[CO].last().copied().unwrap_or(fallback.nr);
    let width = schedule.vector;
    let mr = schedule.tiles[OW].last().copied().unwrap_or(fallback.mr);
    if depthwise && mr % width != 0 {
        return Err(format!(
            "asks for MR = {mr} pixels of a depthwise row, not a multiple of its vector width {width}"
        ));
    }
    if !depthwise && nr % width != 0 {
        return Err(format!(
            "asks for NR = {nr} output channels, not a multiple of its vector width {width}"
        ));
    }
    Ok(ConvBlocking {
        mr,
        nr,
        width,
        threads: !schedule.parallel.is_empty(),
    })
}

pub(super) fn map(dims: u32, results: Vec<AffineExpr>) -> AffineMap {
    AffineMap::new(dims, 0, results).simplify()
}

pub(super) fn d(p: u32) -> AffineExpr {
    AffineExpr::dim(p)
}

pub(super) fn constant(v: i64) -> (AffineMap, Vec<Value>) {
    (AffineMap::constant(v), vec![])
}

pub(super) fn alloc(ctx: &mut Context, at: At, shape: Vec<i64>, element: Type) -> Value {
    let ty = ctx.intern_type(TypeKind::MemRef {
        shape,
        element,
        layout: None,
        memory_space: None,
    });
    let op = at.create(ctx, loop_::ALLOC, vec![], vec![ty], vec![], 0);
    ctx.op(op).results[0]
}

/// Nested `loop.for`s over `[0, extents[i])`; returns the innermost body and the ivs.
pub(super) fn for_nest(ctx: &mut Context, mut at: At, extents: &[(i64, i64)]) -> (At, Vec<Value>) {
    let mut ivs = Vec::new();
    for &(lo, hi) in extents {
        let (_, inside, iv, _) = at.for_loop(ctx, constant(lo), constant(hi), 1, &[]);
        ivs.push(iv);
        at = inside;
    }
    (at, ivs)
}

/// [`for_nest`] with every loop marked `unroll = 1`, for copies LLVM should keep rolled.
fn rolled_for_nest(ctx: &mut Context, mut at: At, extents: &[(i64, i64)]) -> (At, Vec<Value>) {
    let i64_ty = ctx.i64();
    let no_unroll = ctx.intern_attr(AttrKind::Integer {
        ty: i64_ty,
        value: 1,
    });
    let mut ivs = Vec::new();
    for &(lo, hi) in extents {
        let (op, inside, iv, _) = at.for_loop(ctx, constant(lo), constant(hi), 1, &[]);
        set_mark(ctx, op, "unroll", no_unroll);
        ivs.push(iv);
        at = inside;
    }
    (at, ivs)
}

/// A `loop.parallel` (threads) or nested `loop.for`s over `[0, upper)` by `steps`.
pub(super) fn outer_loops(
    ctx: &mut Context,
    at: At,
    upper: &[i64],
    steps: &[i64],
    threads: bool,
) -> (At, Vec<Value>) {
    if threads {
        let (_, inside, ivs) = at.parallel(ctx, &vec![0; upper.len()], upper, steps);
        return (inside, ivs);
    }
    let mut at = at;
    let mut ivs = Vec::new();
    for (&hi, &step) in upper.iter().zip(steps) {
        let (_, inside, iv, _) = at.for_loop(ctx, constant(0), constant(hi), step, &[]);
        ivs.push(iv);
        at = inside;
    }
    (at, ivs)
}

/// Where the kernel reads its input: the original buffer or a padded copy.
struct Source {
    memref: Value,
    /// Read the original `X[0][c][y + offset][x + offset]`.
    original: bool,
    /// The loop copying a row's input columns into the padded copy, when one does.
    copy: Option<OpId>,
}

/// Copies the input into a buffer that holds the padding, `Xp[C][Hp][Wp]` (or reads it
/// where it lies when the window never leaves it).
fn stage_input(ctx: &mut Context, c: &ConvNest, at: At, f32_ty: Type, threads: bool) -> Source {
    let [_, oh, ow, _, kh, kw] = c.extents;
    if c.pad.is_none() {
        return Source {
            memref: c.input,
            original: true,
            copy: None,
        };
    }
    let hp = c.rows.stride * (oh - 1) + c.rows.dilation * (kh - 1) + 1;
    let wp = c.cols.stride * (ow - 1) + c.cols.dilation * (kw - 1) + 1;
    let channels = c.input_shape[0];
    let staged = alloc(ctx, at, vec![channels, hp, wp], f32_ty);
    let copy = fill_padded(
        ctx,
        c,
        at,
        threads,
        staged,
        &AffineMap::identity(3),
        1,
        (hp, wp),
    );
    Source {
        memref: staged,
        original: false,
        copy,
    }
}

/// Packs the weights of the first `mf` output channels into `NR`-channel panels.
///
/// The copy's loops are marked `unroll = 1`: LLVM's O3 pipeline would otherwise unroll the
/// channel loop of a 1x1 convolution completely (NR x channels loads and stores in one
/// block), and its loop-access analysis of such a block is quadratic in its size, which
/// cost seconds of compile time per model for a copy that is not on the hot path.
fn pack_weights(
    ctx: &mut Context,
    c: &ConvNest,
    weights: Value,
    at: At,
    (mf, nr): (i64, i64),
    f32_ty: Type,
) -> Value {
    let [_, _, _, ch, kh, kw] = c.extents;
    let packed = alloc(ctx, at, vec![mf / nr, ch, kh, kw, nr], f32_ty);
    let (body, ivs) = rolled_for_nest(ctx, at, &[(0, mf / nr), (0, nr), (0, ch), (0, kh), (0, kw)]);
    let w = body.load(
        ctx,
        false,
        weights,
        map(5, vec![d(0) * nr + d(1), d(2), d(3), d(4)]),
        &ivs,
        f32_ty,
    );
    body.store(
        ctx,
        false,
        w,
        packed,
        map(5, vec![d(0), d(2), d(3), d(4), d(1)]),
        &ivs,
    );
    packed
}

/// The panels of [`pack_weights`] made at compile time from the constant weights
/// `source` (`W[co][c][kh][kw]`), as a new constant global.
fn constant_weights(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    mf: i64,
    nr: i64,
    source: &ConstantBuffer,
) -> Option<Value> {
    let [_, _, _, ch, kh, kw] = c.extents;
    let mut values = Vec::with_capacity((mf * ch * kh * kw) as usize);
    for block in 0..mf / nr {
        for ci in 0..ch {
            for y in 0..kh {
                for x in 0..kw {
                    for j in 0..nr {
                        values.push(source.at(&[block * nr + j, ci, y, x])?);
                    }
                }
            }
        }
    }
    Some(packed_global(
        ctx,
        at,
        source,
        vec![mf / nr, ch, kh, kw, nr],
        &values,
    ))
}

/// The choices of the channel-vectorized kernel besides its blocking.
struct Options {
    pack_constants: bool,
    epilogues: bool,
    prefetch: bool,
}

fn rewrite(
    ctx: &mut Context,
    c: &ConvNest,
    weights: Value,
    b: ConvBlocking,
    options: Options,
    copies: &mut Vec<PaddedCopy>,
) {
    let [m, oh_n, ow_n, ch_n, kh_n, kw_n] = c.extents;
    let mf = m - m % b.nr;
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = ctx.intern_type(TypeKind::Vector {
        shape: vec![b.width],
        scalable: vec![false],
        element: f32_ty,
    });
    let columns = b.nr / b.width;
    let source = stage_input(ctx, c, at, f32_ty, b.threads);
    let constant_panels = if options.pack_constants {
        constant_f32(ctx, weights)
            .and_then(|source| constant_weights(ctx, c, at, mf, b.nr, &source).map(|p| (source, p)))
    } else {
        None
    };
    let panels = match &constant_panels {
        Some((_, panels)) => *panels,
        None => pack_weights(ctx, c, weights, at, (mf, b.nr), f32_ty),
    };
    let staged_out = alloc(ctx, at, vec![oh_n, ow_n, mf], f32_ty);

    // Channel blocks and rows (on threads), then pixel blocks.
    let (rows, outer) = outer_loops(ctx, at, &[mf, oh_n], &[b.nr, 1], b.threads);
    let (mb, oh) = (outer[0], outer[1]);
    let next = (options.prefetch && mf > b.nr).then(|| next_panel(ctx, rows, mb, b.nr, mf / b.nr));
    for (lo, hi, mr, ahead) in prefetching_blocks(ow_n, b.mr, next.is_some()) {
        let (_, pixels, ow0, _) = rows.for_loop(ctx, constant(lo), constant(hi), mr, &[]);
        let splat = pixels.broadcast(ctx, c.init, vec_ty);
        let accumulators = vec![splat; (mr * columns) as usize];
        let (c_loop, c_body, ci, c_acc) =
            pixels.for_loop(ctx, constant(0), constant(ch_n), 1, &accumulators);
        let (kh_loop, kh_body, kh, kh_acc) =
            c_body.for_loop(ctx, constant(0), constant(kh_n), 1, &c_acc);
        let (kw_loop, body, kw, acc) =
            kh_body.for_loop(ctx, constant(0), constant(kw_n), 1, &kh_acc);
        // Wp[mb / NR][c][kh][kw][j * W]
        let weights: Vec<Value> = (0..columns)
            .map(|j| {
                let wmap = map(
                    4,
                    vec![
                        d(0).floor_div(b.nr),
                        d(1),
                        d(2),
                        d(3),
                        AffineExpr::constant(j * b.width),
                    ],
                );
                body.load(ctx, true, panels, wmap, &[mb, ci, kh, kw], vec_ty)
            })
            .collect();
        if let Some(next) = next.filter(|_| ahead) {
            prefetch_vectors(ctx, body, panels, &[next, ci, kh, kw], columns, b.width);
        }
        // Input row and column of pixel r: stride * o + dilation * k (+ offset).
        let offset = |w: i64| if source.original { w } else { 0 };
        let row = d(0) * c.rows.stride + d(1) * c.rows.dilation + offset(c.rows.offset);
        let col = |r: i64| {
            d(2) * c.cols.stride
                + d(3) * c.cols.dilation
                + (r * c.cols.stride + offset(c.cols.offset))
        };
        let mut next = Vec::new();
        for r in 0..mr {
            let mut indices = vec![d(4), row.clone(), col(r)];
            if source.original {
                indices.insert(0, AffineExpr::constant(0));
            }
            let x = body.load(
                ctx,
                false,
                source.memref,
                map(5, indices),
                &[oh, kh, ow0, kw, ci],
                f32_ty,
            );
            let xb = body.broadcast(ctx, x, vec_ty);
            for (j, &w) in weights.iter().enumerate() {
                next.push(body.fma(ctx, xb, w, acc[(r * columns) as usize + j]));
            }
        }
        set_yield(ctx, body, &next);
        let kw_results = ctx.op(kw_loop).results.to_vec();
        set_yield(ctx, kh_body, &kw_results);
        let kh_results = ctx.op(kh_loop).results.to_vec();
        set_yield(ctx, c_body, &kh_results);
        let sums = ctx.op(c_loop).results.to_vec();
        // Ot[oh][ow0 + r][mb + j * W]
        store_accumulators(ctx, pixels, &sums, staged_out, [oh, ow0, mb], (mr, b.width));
    }

    let epilogue = if options.epilogues {
        conv_epilogue::find(ctx, c)
    } else {
        None
    };
    let at = write_result(
        ctx,
        c,
        at,
        staged_out,
        (mf, b.nr),
        b.threads,
        epilogue.as_ref(),
    );
    for buffer in [
        Some(staged_out),
        constant_panels.is_none().then_some(panels),
    ]
    .into_iter()
    .flatten()
    {
        at.dealloc(ctx, buffer);
    }
    if !source.original {
        let dealloc = at.dealloc(ctx, source.memref);
        if let Some(copy) = source.copy {
            copies.push(PaddedCopy {
                input: c.input,
                padded: source.memref,
                copy,
                dealloc,
                origin: (-c.rows.offset, -c.cols.offset),
                channels_last: false,
            });
        }
    }

    // Channels left over by NR keep the original nest.
    if mf < m {
        let copy = ctx.clone_op(c.parallel, &mut Default::default());
        ctx.insert_op_before(c.parallel, copy);
        let (lower, upper) = c.channels_from(mf);
        set_bounds(ctx, copy, &lower, &upper);
    }
    ctx.erase_op(c.parallel);
    if let Some(e) = epilogue {
        conv_epilogue::finish(ctx, e, c, mf);
    }
    if let Some((source, _)) = constant_panels {
        release(ctx, &source);
    }
}

/// The index of the weight panel after the one of the channel block starting at channel
/// `mb` (`nr` channels a block, `blocks` panels; the last one's successor is itself), made
/// at `at`: what [`prefetch_vectors`] reads ahead in. A thread's next iteration of a
/// kernel's outer loops is usually the next block, whose panel, when it comes from memory
/// (a model's weights rarely stay in cache from one call to the next), would otherwise
/// stall its first steps.
pub(super) fn next_panel(ctx: &mut Context, at: At, mb: Value, nr: i64, blocks: i64) -> Value {
    let nr = at.index_constant(ctx, nr);
    let block = at.index_op(ctx, "divui", mb, nr);
    let next = at.add_index(ctx, block, 1);
    let last = at.index_constant(ctx, blocks - 1);
    at.index_op(ctx, "minsi", next, last)
}

/// Prefetches, at `at`, the `columns` vectors of `width` lanes of `panels` at `prefix`
/// followed by each vector's first lane: one cache line each for 16 lanes of `f32`.
pub(super) fn prefetch_vectors(
    ctx: &mut Context,
    at: At,
    panels: Value,
    prefix: &[Value],
    columns: i64,
    width: i64,
) {
    for j in 0..columns {
        let lane = at.index_constant(ctx, j * width);
        let indices: Vec<Value> = prefix.iter().copied().chain([lane]).collect();
        at.prefetch_read(ctx, panels, &indices);
    }
}

/// The blocks of `mr` that cover `[0, n)`, as `(lower, upper, step)` loops: the
/// iterations left over by `mr` are one block recomputed overlapping the one before it (it
/// stores the same sums again), so the kernel's code exists once; fewer than `mr` are one
/// block of all of them.
pub(super) fn overlapping_blocks(n: i64, mr: i64) -> Vec<(i64, i64, i64)> {
    let full = n - n % mr;
    if full == 0 {
        vec![(0, n, n)]
    } else if full < n {
        vec![(0, full, mr), (n - mr, n - mr + 1, mr)]
    } else {
        vec![(0, full, mr)]
    }
}

/// [`overlapping_blocks`], each with whether it prefetches the next panel (when `prefetch`
/// holds): the last block only, split off the loop before it when that loop has several
/// iterations, so that a panel a block reuses for many pixels or tiles is fetched ahead
/// once per iteration of the outer loops, not once per block.
pub(super) fn prefetching_blocks(n: i64, mr: i64, prefetch: bool) -> Vec<(i64, i64, i64, bool)> {
    let mut blocks: Vec<(i64, i64, i64, bool)> = overlapping_blocks(n, mr)
        .into_iter()
        .map(|(lo, hi, step)| (lo, hi, step, false))
        .collect();
    if !prefetch {
        return blocks;
    }
    if let Some(last) = blocks.pop() {
        let (lo, hi, step, _) = last;
        if hi - lo > step {
            blocks.push((lo, hi - step, step, false));
            blocks.push((hi - step, hi, step, true));
        } else {
            blocks.push((lo, hi, step, true));
        }
    }
    blocks
}

/// Stores a register block's accumulators `sums` (`mr` rows of vectors of `width` lanes,
/// row by row) at `at` into `buffer[a][b + r][c + j * width]` for the operands `(a, b, c)`.
pub(super) fn store_accumulators(
    ctx: &mut Context,
    at: At,
    sums: &[Value],
    buffer: Value,
    operands: [Value; 3],
    (mr, width): (i64, i64),
) {
    let columns = sums.len() as i64 / mr;
    for r in 0..mr {
        for j in 0..columns {
            let to = map(3, vec![d(0), d(1) + r, d(2) + j * width]);
            at.store(
                ctx,
                true,
                sums[(r * columns + j) as usize],
                buffer,
                to,
                &operands,
            );
        }
    }
}

/// Writes the channels-last sums `Ot[oh][ow][co]` of the channels `[0, mf)` into the
/// result, `Y[0][co][oh][ow] = Ot[oh][ow][co]`, or computes `epilogue` from them where its
/// nest was; returns where the kernel's buffers are freed (after the copy).
pub(super) fn write_result(
    ctx: &mut Context,
    c: &ConvNest,
    at: At,
    staged_out: Value,
    (mf, nr): (i64, i64),
    threads: bool,
    epilogue: Option<&conv_epilogue::Epilogue>,
) -> At {
    let [_, oh_n, ow_n, ..] = c.extents;
    let f32_ty = ctx.value_type(c.init);
    let at = match epilogue {
        Some(e) => At {
            before: e.consumer,
            loc: ctx.op(e.consumer).loc,
        },
        None => at,
    };
    // The kernel's own outer loops (channel blocks and rows): the `OW x NR` tile of `Ot`
    // a step transposes stays in cache, and `loop-fuse` can run the transposition right
    // after the kernel computes the tile, in the same iteration.
    let (tile, outer) = outer_loops(ctx, at, &[mf, oh_n], &[nr, 1], threads);
    let (mb, oh) = (outer[0], outer[1]);
    let (_, channels, j, _) = tile.for_loop(ctx, constant(0), constant(nr), 1, &[]);
    let (_, body, ow, _) = channels.for_loop(ctx, constant(0), constant(ow_n), 1, &[]);
    let index_ty = ctx.value_type(mb);
    let co = body.create(ctx, "arith.addi", vec![mb, j], vec![index_ty], vec![], 0);
    let ivs = [ctx.op(co).results[0], oh, ow];
    let v = body.load(
        ctx,
        false,
        staged_out,
        map(4, vec![d(0), d(1), d(2) + d(3)]),
        &[oh, ow, mb, j],
        f32_ty,
    );
    match epilogue {
        Some(e) => conv_epilogue::emit(ctx, e, body, &ivs, v),
        None => {
            body.store(
                ctx,
                false,
                v,
                c.output,
                map(3, vec![AffineExpr::constant(0), d(0), d(1), d(2)]),
                &ivs,
            );
        }
    }
    at
}
