//! The staged form of `loop-gpu-mma`: blocks of `block-warps-m x block-warps-n` warps
//! copy a `BM x BK` tile of `A` and a `BK x BN` tile of `B` into shared memory, and each
//! warp loads its fragments from there with `nvgpu.ldmatrix` (four 8x8 matrices of `A`,
//! two transposed ones of `B`) before its `nvgpu.mma.sync`s.
//!
//! ```text
//! gpu.launch blocks(N/BN, M/BM, batch) threads(32 * warps)
//!            workgroup(As : memref<BM x (BK+8)>, Bs : memref<BK x (BN+8)>) {
//!   for each stage k0 (BK steps; the last one reads zero past K):
//!     the block copies A[row0.., k0..] into As and B[k0.., col0..] into Bs
//!     gpu.barrier
//!     for each 16 steps kk: a[mi] = ldmatrix As, b[ni] = ldmatrix.trans Bs, mma
//!     gpu.barrier
//!   each lane stores its results
//! }
//! ```
//!
//! Every element of `A` and `B` is read from global memory once per block instead of
//! once per warp tile that needs it. Rows of both tiles are padded by 8 elements (16
//! bytes): the 8 row addresses of an `ldmatrix` then fall in distinct banks. The copies
//! walk the tiles with consecutive threads along the dimension contiguous in global
//! memory. Rows and columns past the last full block tile keep the original nest.

use tb_dialects::{gpu, loop_, nvgpu};
use tb_ir::affine::AffineMap;
use tb_ir::attributes::AttrKind;
use tb_ir::{Context, OpId, Type, TypeKind, Value};

use super::contraction_indices::{
    affine_values, batch_indices, contiguous_in, every_iv, split, tile_place, times,
};
use super::loop_to_gpu::launch_before;
use super::mma::{MMA_K, MMA_M, MMA_N, mma_sync, splat_accumulators, store_results};
use super::register_tile::substituted;
use crate::conversion::te_to_loop::builder::Builder;
use crate::schedule::build::{At, set_yield};
use crate::schedule::loop_matmul_microkernel::{Access, Contraction, peel};

/// Elements of padding after each row of a tile (16 bytes of 16-bit elements).
const PAD: i64 = 8;
/// Shared memory a block may have on every supported GPU (sm_80's 163 KiB, opting in past
/// 48 KiB: the kernel's buffers then live in dynamic shared memory).
const MAX_SHARED_BYTES: i64 = 163 * 1024;
/// The most blocks along a grid's y and z dimensions.
const MAX_GRID_YZ: i64 = 65535;

/// The sizes of a staged kernel.
#[derive(Clone, Copy)]
pub(super) struct Staging {
    /// Fragments of each warp along rows (16 each) and columns (8 each).
    pub(super) warp_m: i64,
    pub(super) warp_n: i64,
    /// Warps of each block along rows and columns.
    pub(super) block_m: i64,
    pub(super) block_n: i64,
    /// Reduction steps staged at a time (a multiple of 16).
    pub(super) k: i64,
    /// Stages of the tiles in shared memory at once, filled by asynchronous copies; 1
    /// copies through registers.
    pub(super) stages: i64,
}

impl Staging {
    fn threads(self) -> i64 {
        32 * self.block_m * self.block_n
    }

    fn tile(self) -> (i64, i64) {
        (
            MMA_M * self.warp_m * self.block_m,
            MMA_N * self.warp_n * self.block_n,
        )
    }

    /// Why these sizes make no kernel, if they do not.
    pub(super) fn invalid(self) -> Option<String> {
        let (bm, bn) = self.tile();
        if !(1..=8).contains(&self.block_m) || !(1..=8).contains(&self.block_n) {
            return Some("block-warps-m and block-warps-n must lie in [1, 8]".into());
        }
        if self.threads() > 1024 {
            return Some(format!("blocks would have {} threads", self.threads()));
        }
        if self.k < MMA_K || self.k % MMA_K != 0 || self.k > 256 {
            return Some("stage-k must be a multiple of 16 in [16, 256]".into());
        }
        if !(1..=8).contains(&self.stages) {
            return Some("stages must lie in [1, 8]".into());
        }
        if (bm * self.k) % self.threads() != 0 || (bn * self.k) % self.threads() != 0 {
            return Some(format!(
                "the {} threads must split both {bm}x{} and {}x{bn} tiles evenly",
                self.threads(),
                self.k,
                self.k
            ));
        }
        let bytes = self.stages * (bm * (self.k + PAD) + self.k * (bn + PAD)) * 2;
        if bytes > MAX_SHARED_BYTES {
            return Some(format!(
                "the tiles take {bytes} bytes of shared memory, more than {MAX_SHARED_BYTES}"
            ));
        }
        None
    }
}

/// Maps `c` onto a staged kernel when it has at least one full block tile; returns whether
/// it did.
pub(super) fn map(ctx: &mut Context, c: &Contraction, s: Staging, narrow: Type) -> bool {
    let rank = c.extents.len();
    let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
    let (bm, bn) = s.tile();
    let (mf, nf) = (m - m % bm, n - n % bn);
    let batch_count = c.extents[..rank - 2].iter().product::<i64>();
    let grid = [nf / bn, mf / bm, batch_count];
    if grid.contains(&0) || grid[1] > MAX_GRID_YZ || grid[2] > MAX_GRID_YZ {
        return false;
    }
    // A kernel that covers every result computes the elementwise nest after the matmul
    // (a bias, an activation, the rounding of f32 sums to f16) where it stores each.
    let epilogue = super::epilogue::fused_epilogue(ctx, c, mf == m && nf == n);
    let copies = Copies::plan(ctx, c, s, narrow);
    let k_extent = c.k_extent;
    let full = k_extent - k_extent % s.k;
    // Asynchronous copies need 16-byte vectors of both operands.
    let pipelined =
        s.stages > 1 && full > 0 && copies.a.width == VECTOR && copies.b.width == VECTOR;
    let space = gpu::workgroup_space_attr(ctx);
    let tile_type = |ctx: &mut Context, rows: i64, cols: i64| {
        let mut shape = if pipelined { vec![s.stages] } else { vec![] };
        shape.extend([rows, cols + PAD]);
        ctx.intern_type(TypeKind::MemRef {
            shape,
            element: narrow,
            layout: None,
            memory_space: Some(space),
        })
    };
    let a_tile_ty = tile_type(ctx, bm, s.k);
    let b_tile_ty = tile_type(ctx, s.k, bn);
    let (args, at) = launch_before(
        ctx,
        c.parallel,
        grid,
        [s.threads(), 1, 1],
        &[a_tile_ty, b_tile_ty],
    );
    let tid = args[3];
    let tiles = Tiles {
        a: args[gpu::LAUNCH_BODY_ARGS],
        b: args[gpu::LAUNCH_BODY_ARGS + 1],
    };
    let batch = batch_indices(ctx, at, c, args[2]);
    let row0 = times(ctx, at, args[1], bm);
    let col0 = times(ctx, at, args[0], bn);
    let (warp, lane) = split(ctx, at, tid, 32);
    let (warp_row, warp_col) = split(ctx, at, warp, s.block_n);
    let warp_rows = times(ctx, at, warp_row, MMA_M * s.warp_m);
    let warp_cols = times(ctx, at, warp_col, MMA_N * s.warp_n);
    let place = Place {
        batch,
        row0,
        col0,
        tid,
        lane,
        warp_rows,
        warp_cols,
    };
    let mut acc = splat_accumulators(ctx, at, c, (s.warp_m * s.warp_n) as usize);
    let mut tail_buffer = None;
    if pipelined {
        acc = pipeline(ctx, at, &place, &tiles, &copies, (s, full), &acc, narrow);
        tail_buffer = Some(at.index_constant(ctx, 0));
    } else if full > 0 {
        // Software pipeline: the stage after this one is read from global memory into
        // registers before this one's arithmetic, so its latency hides behind it.
        let zero = at.index_constant(ctx, 0);
        let first = load_stage(ctx, at, &place, &copies, zero, None);
        let count = acc.len();
        let mut inits = acc.clone();
        inits.extend_from_slice(&first);
        let (stages, body, k0, carried) = at.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(full), vec![]),
            s.k,
            &inits,
        );
        store_stage(ctx, body, &place, &tiles, &copies, &carried[count..], None);
        body.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
        // The last stage reloads itself rather than reading past the full stages.
        let after = body.add_index(ctx, k0, s.k);
        let last = body.index_constant(ctx, full - s.k);
        let next_k0 = body.index_op(ctx, "minui", after, last);
        let next = load_stage(ctx, body, &place, &copies, next_k0, None);
        let mut yielded = compute(
            ctx,
            body,
            &place,
            &tiles,
            s,
            &carried[..count],
            narrow,
            None,
        );
        // Nobody refills the tiles before every warp has read them.
        body.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
        yielded.extend(next);
        set_yield(ctx, body, &yielded);
        acc = ctx.op(stages).results[..count].to_vec();
    }
    if full < k_extent {
        let k0 = at.index_constant(ctx, full);
        let tail = Copies::elementwise(c, s);
        let values = load_stage(ctx, at, &place, &tail, k0, Some(k_extent));
        store_stage(ctx, at, &place, &tiles, &tail, &values, tail_buffer);
        at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
        acc = compute(ctx, at, &place, &tiles, s, &acc, narrow, tail_buffer);
        at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    }
    let (group, quarter) = split(ctx, at, lane, 4);
    let pair = times(ctx, at, quarter, 2);
    let rows = at.index_op(ctx, "addi", row0, warp_rows);
    let row = at.index_op(ctx, "addi", rows, group);
    let cols = at.index_op(ctx, "addi", col0, warp_cols);
    let col = at.index_op(ctx, "addi", cols, pair);
    store_results(
        ctx,
        at,
        c,
        &place.batch,
        (row, col),
        &acc,
        (s.warp_m as usize, s.warp_n as usize),
        epilogue.as_ref(),
    );
    peel(ctx, c, (m, n), (mf, nf));
    if let Some(e) = epilogue {
        e.remove(ctx, true);
    }
    true
}

/// The two workgroup buffers.
struct Tiles {
    a: Value,
    b: Value,
}

/// The block's and the thread's coordinates.
struct Place {
    batch: Vec<Value>,
    /// The block's first row and column of `C`.
    row0: Value,
    col0: Value,
    tid: Value,
    lane: Value,
    /// The warp's first row and column inside the block's tile.
    warp_rows: Value,
    warp_cols: Value,
}

/// Elements per copy: a 16-byte vector of 16-bit elements.
const VECTOR: i64 = 8;

/// How a stage's copy of one operand's tile goes: `width` elements at a time (16-byte
/// vectors or single elements), consecutive threads along the tile's columns or rows.
#[derive(Clone, Copy)]
struct TileCopy {
    rows: i64,
    cols: i64,
    width: i64,
    along_columns: bool,
}

impl TileCopy {
    /// Copies per thread.
    fn slots(self, threads: i64) -> i64 {
        (self.rows * self.cols) / (self.width * threads)
    }

    /// The tile row and column of copy `slot` of thread `tid`.
    fn place(
        self,
        ctx: &mut Context,
        at: At,
        tid: Value,
        slot: i64,
        threads: i64,
    ) -> (Value, Value) {
        let (row, col) = tile_place(
            ctx,
            at,
            (tid, slot, threads),
            (self.rows, self.cols / self.width),
            self.along_columns,
        );
        (row, times(ctx, at, col, self.width))
    }
}

/// The copies of both tiles.
struct Copies<'c> {
    c: &'c Contraction,
    a: TileCopy,
    b: TileCopy,
    threads: i64,
    narrow: Type,
}

impl<'c> Copies<'c> {
    /// Vectors where an operand's tile rows are contiguous in global memory and every one
    /// starts 16-byte aligned (a buffer of identity layout whose rows are a multiple of 8
    /// elements: allocations and planned buffers start at least 64-byte aligned), elements
    /// otherwise.
    fn plan(ctx: &Context, c: &'c Contraction, s: Staging, narrow: Type) -> Copies<'c> {
        let (bm, bn) = s.tile();
        let threads = s.threads();
        let a_along_k = contiguous_in(&c.lhs, c.k_iv);
        let b_along_j = contiguous_in(&c.rhs, c.ivs[c.ivs.len() - 1]);
        let width = |access: &Access, contiguous: bool, rows: i64, cols: i64| {
            let aligned_rows = matches!(
                ctx.type_kind(ctx.value_type(access.memref)),
                TypeKind::MemRef { shape, layout: None, .. }
                    if shape.last().is_some_and(|&d| d > 0 && d % VECTOR == 0)
            );
            if contiguous && aligned_rows && (rows * cols) % (threads * VECTOR) == 0 {
                VECTOR
            } else {
                1
            }
        };
        Copies {
            c,
            a: TileCopy {
                rows: bm,
                cols: s.k,
                width: width(&c.lhs, a_along_k, bm, s.k),
                along_columns: a_along_k,
            },
            b: TileCopy {
                rows: s.k,
                cols: bn,
                width: width(&c.rhs, b_along_j, s.k, bn),
                along_columns: b_along_j,
            },
            threads,
            narrow,
        }
    }

    /// Element by element (the last, partial stage, whose reads past `K` are masked).
    fn elementwise(c: &'c Contraction, s: Staging) -> Copies<'c> {
        let (bm, bn) = s.tile();
        let narrow = c.widened_from.expect("tensor-core operands");
        Copies {
            c,
            a: TileCopy {
                rows: bm,
                cols: s.k,
                width: 1,
                along_columns: contiguous_in(&c.lhs, c.k_iv),
            },
            b: TileCopy {
                rows: s.k,
                cols: bn,
                width: 1,
                along_columns: contiguous_in(&c.rhs, c.ivs[c.ivs.len() - 1]),
            },
            threads: s.threads(),
            narrow,
        }
    }

    /// The copy of `side`'s tile and the access it reads through.
    fn side(&self, side: Side) -> (TileCopy, &'c Access) {
        match side {
            Side::A => (self.a, &self.c.lhs),
            Side::B => (self.b, &self.c.rhs),
        }
    }

    fn value_type(&self, ctx: &mut Context, width: i64) -> Type {
        if width == 1 {
            self.narrow
        } else {
            ctx.intern_type(TypeKind::Vector {
                shape: vec![width],
                element: self.narrow,
                scalable: vec![false],
            })
        }
    }
}

/// The thread's share of the stage at `k0`, read from global memory: `A`'s copies, then
/// `B`'s. With `limit`, reduction indices at or past it read zero.
fn load_stage(
    ctx: &mut Context,
    at: At,
    p: &Place,
    copies: &Copies,
    k0: Value,
    limit: Option<i64>,
) -> Vec<Value> {
    let mut values = Vec::new();
    for side in [Side::A, Side::B] {
        let (copy, access) = copies.side(side);
        for l in 0..copy.slots(copies.threads) {
            let place = copy.place(ctx, at, p.tid, l, copies.threads);
            let (other, k) = p.source(ctx, at, side, k0, place);
            let indices = |k| p.indices(copies.c, side, other, k);
            let ty = copies.value_type(ctx, copy.width);
            values.push(copied(ctx, at, access, indices, k, limit, ty));
        }
    }
    values
}

/// Which operand a tile holds.
#[derive(Clone, Copy)]
enum Side {
    A,
    B,
}

impl Place {
    /// Where tile place `(row, col)` of `side`'s stage at `k0` reads: its row (of `A`) or
    /// column (of `B`) in the matmul, and its reduction index.
    fn source(
        &self,
        ctx: &mut Context,
        at: At,
        side: Side,
        k0: Value,
        (row, col): (Value, Value),
    ) -> (Value, Value) {
        match side {
            Side::A => (
                at.index_op(ctx, "addi", self.row0, row),
                at.index_op(ctx, "addi", k0, col),
            ),
            Side::B => (
                at.index_op(ctx, "addi", self.col0, col),
                at.index_op(ctx, "addi", k0, row),
            ),
        }
    }

    /// The nest's indices for reading `side` at row or column `other` and reduction
    /// index `k`.
    fn indices(
        &self,
        c: &Contraction,
        side: Side,
        other: Value,
        k: Value,
    ) -> Vec<(Value, Value, i64, i64)> {
        match side {
            Side::A => every_iv(c, &self.batch, (other, 0), (self.col0, 0), (k, 0)),
            Side::B => every_iv(c, &self.batch, (self.row0, 0), (other, 0), (k, 0)),
        }
    }
}

/// Stores what `load_stage` read into the workgroup tiles, at the same places (of stage
/// `buffer` of tiles that hold several).
fn store_stage(
    ctx: &mut Context,
    at: At,
    p: &Place,
    tiles: &Tiles,
    copies: &Copies,
    values: &[Value],
    buffer: Option<Value>,
) {
    let mut values = values.iter();
    for (copy, tile) in [(copies.a, tiles.a), (copies.b, tiles.b)] {
        for l in 0..copy.slots(copies.threads) {
            let (row, col) = copy.place(ctx, at, p.tid, l, copies.threads);
            let value = *values.next().expect("a value per copy");
            let indices = in_buffer(buffer, row, col);
            let map = AffineMap::identity(indices.len() as u32);
            if copy.width > 1 {
                let properties = aligned_access(ctx, map);
                let mut operands = vec![value, tile];
                operands.extend(indices);
                at.create(ctx, loop_::VECTOR_STORE, operands, vec![], properties, 0);
            } else {
                at.store(ctx, false, value, tile, map, &indices);
            }
        }
    }
}

/// The indices of a tile's element: `[row, col]`, behind the stage `buffer` when the
/// tiles hold several stages.
fn in_buffer(buffer: Option<Value>, row: Value, col: Value) -> Vec<Value> {
    buffer.into_iter().chain([row, col]).collect()
}

/// The full stages (`full` reduction steps) as a pipeline of asynchronous copies: the
/// tiles hold `stages` stages; before the loop the block starts copying the first
/// `stages - 1`, and in each iteration it waits for the oldest (this thread's copies,
/// then a barrier for everyone's), starts the copies of the stage `stages - 1` ahead into
/// the buffer the last iteration used, and computes on this stage's while they fly. The
/// last iterations copy the last stage again rather than read past the full stages (into
/// buffers nobody reads any more). Ends with every copy done and a barrier, so that what
/// comes after may reuse the tiles.
#[allow(clippy::too_many_arguments)]
fn pipeline(
    ctx: &mut Context,
    at: At,
    p: &Place,
    tiles: &Tiles,
    copies: &Copies,
    (s, full): (Staging, i64),
    acc: &[Value],
    narrow: Type,
) -> Vec<Value> {
    let last = full - s.k;
    let mut token = None;
    for stage in 0..s.stages - 1 {
        let k0 = at.index_constant(ctx, (stage * s.k).min(last));
        let buffer = at.index_constant(ctx, stage);
        token = Some(issue_stage(ctx, at, p, tiles, copies, k0, buffer));
    }
    let token = token.expect("at least two stages");
    let (stages_loop, body, k0, carried) = at.for_loop(
        ctx,
        (AffineMap::constant(0), vec![]),
        (AffineMap::constant(full), vec![]),
        s.k,
        acc,
    );
    wait(ctx, body, token, s.stages - 2);
    body.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    let (t, _) = split(ctx, body, k0, s.k);
    let ahead = body.add_index(ctx, k0, (s.stages - 1) * s.k);
    let last_k0 = body.index_constant(ctx, last);
    let next_k0 = body.index_op(ctx, "minui", ahead, last_k0);
    let t_ahead = body.add_index(ctx, t, s.stages - 1);
    let (_, next_buffer) = split(ctx, body, t_ahead, s.stages);
    issue_stage(ctx, body, p, tiles, copies, next_k0, next_buffer);
    let (_, buffer) = split(ctx, body, t, s.stages);
    let next = compute(ctx, body, p, tiles, s, &carried, narrow, Some(buffer));
    set_yield(ctx, body, &next);
    wait(ctx, at, token, 0);
    at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    ctx.op(stages_loop).results.to_vec()
}

/// Starts the thread's asynchronous copies (16 bytes each) of the stage at `k0` into
/// stage `buffer` of the tiles, and closes them into a group; returns its token.
#[allow(clippy::too_many_arguments)]
fn issue_stage(
    ctx: &mut Context,
    at: At,
    p: &Place,
    tiles: &Tiles,
    copies: &Copies,
    k0: Value,
    buffer: Value,
) -> Value {
    let mut tokens = Vec::new();
    for (side, tile) in [(Side::A, tiles.a), (Side::B, tiles.b)] {
        let (copy, access) = copies.side(side);
        for l in 0..copy.slots(copies.threads) {
            let (row, col) = copy.place(ctx, at, p.tid, l, copies.threads);
            let (other, k) = p.source(ctx, at, side, k0, (row, col));
            let indices = p.indices(copies.c, side, other, k);
            let (map, operands) = substituted(access, &indices);
            let source = affine_values(ctx, at, &map, &operands);
            let mut all = vec![tile, buffer, row, col, access.memref];
            all.extend(&source);
            let index_ty = ctx.index_type();
            let count = ctx.integer_attr(VECTOR.into(), index_ty);
            let unit = ctx.intern_attr(AttrKind::Unit);
            let segments = segment_sizes(ctx, &[1, 3, 1, source.len(), 0]);
            let token_ty = nvgpu::token_type(ctx);
            let op = at.create(
                ctx,
                nvgpu::DEVICE_ASYNC_COPY,
                all,
                vec![token_ty],
                vec![
                    ("dstElements", count),
                    ("bypassL1", unit),
                    ("operandSegmentSizes", segments),
                ],
                0,
            );
            tokens.push(ctx.op(op).results[0]);
        }
    }
    let token_ty = nvgpu::token_type(ctx);
    let group = at.create(
        ctx,
        nvgpu::DEVICE_ASYNC_CREATE_GROUP,
        tokens,
        vec![token_ty],
        vec![],
        0,
    );
    ctx.op(group).results[0]
}

/// `nvgpu.device_async_wait` until at most `in_flight` of the thread's groups fly.
fn wait(ctx: &mut Context, at: At, token: Value, in_flight: i64) {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let groups = ctx.integer_attr(in_flight.into(), i32_ty);
    at.create(
        ctx,
        nvgpu::DEVICE_ASYNC_WAIT,
        vec![token],
        vec![],
        vec![("numGroups", groups)],
        0,
    );
}

/// `array<i32: ...>` operand segment sizes.
fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> tb_ir::Attr {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: tb_ir::attributes::DenseArrayData::Int(sizes.iter().map(|&v| v as i128).collect()),
    })
}

/// The properties of a vector access at `map` whose first element is 16-byte aligned.
fn aligned_access(ctx: &mut Context, map: AffineMap) -> Vec<(&'static str, tb_ir::Attr)> {
    let map = ctx.intern_attr(AttrKind::AffineMap(map));
    let i64_ty = ctx.i64();
    let alignment = ctx.integer_attr((VECTOR * 2).into(), i64_ty);
    vec![("map", map), ("alignment", alignment)]
}

/// `K / 16` steps of fragments loaded with `ldmatrix` from the tiles and `mma.sync`s.
#[allow(clippy::too_many_arguments)]
fn compute(
    ctx: &mut Context,
    at: At,
    p: &Place,
    tiles: &Tiles,
    s: Staging,
    acc: &[Value],
    narrow: Type,
    buffer: Option<Value>,
) -> Vec<Value> {
    // The lane's row address in each 8x8 matrix: row (lane mod 8) + 8 ((lane / 8) mod 2),
    // column 8 (lane / 16) (A's four matrices; B's two only use the row part).
    let (eighth, within) = split(ctx, at, p.lane, 8);
    let (half, below) = split(ctx, at, eighth, 2);
    let below = times(ctx, at, below, 8);
    let row_in_16 = at.index_op(ctx, "addi", within, below);
    let col_in_16 = times(ctx, at, half, 8);
    let a_row = at.index_op(ctx, "addi", p.warp_rows, row_in_16);
    let a_ty = super::mma::vector_type(ctx, &[4, 2], narrow);
    let b_ty = super::mma::vector_type(ctx, &[2, 2], narrow);
    let (wm, wn) = (s.warp_m as usize, s.warp_n as usize);
    let mut acc = acc.to_vec();
    for step in 0..s.k / MMA_K {
        let a_col = at.add_index(ctx, col_in_16, step * MMA_K);
        let b_row = at.add_index(ctx, row_in_16, step * MMA_K);
        let a: Vec<Value> = (0..wm)
            .map(|mi| {
                let row = at.add_index(ctx, a_row, MMA_M * mi as i64);
                ldmatrix(
                    ctx,
                    at,
                    tiles.a,
                    &in_buffer(buffer, row, a_col),
                    (4, false),
                    a_ty,
                )
            })
            .collect();
        let b: Vec<Value> = (0..wn)
            .map(|ni| {
                let col = at.add_index(ctx, p.warp_cols, MMA_N * ni as i64);
                ldmatrix(
                    ctx,
                    at,
                    tiles.b,
                    &in_buffer(buffer, b_row, col),
                    (2, true),
                    b_ty,
                )
            })
            .collect();
        for mi in 0..wm {
            for ni in 0..wn {
                acc[mi * wn + ni] = mma_sync(ctx, at, a[mi], b[ni], acc[mi * wn + ni]);
            }
        }
    }
    acc
}

/// An element (or a 16-byte vector, `narrow` being a vector type) of `A` or `B` read
/// through `access` at reduction index `k` (the rest from `indices(k)`), as stored; with
/// `limit`, zero at or past it (read from a clamped address).
fn copied(
    ctx: &mut Context,
    at: At,
    access: &Access,
    indices: impl Fn(Value) -> Vec<(Value, Value, i64, i64)>,
    k: Value,
    limit: Option<i64>,
    narrow: Type,
) -> Value {
    let Some(limit) = limit else {
        let (map, operands) = substituted(access, &indices(k));
        if matches!(ctx.type_kind(narrow), TypeKind::Vector { .. }) {
            let properties = aligned_access(ctx, map);
            let mut all = vec![access.memref];
            all.extend(operands);
            let op = at.create(ctx, loop_::VECTOR_LOAD, all, vec![narrow], properties, 0);
            return ctx.op(op).results[0];
        }
        return at.load(ctx, false, access.memref, map, &operands, narrow);
    };
    let b = Builder::before(at.before, at.loc);
    let bound = at.index_constant(ctx, limit);
    let last = at.index_constant(ctx, limit - 1);
    let valid = b.cmpi(ctx, "ult", k, bound);
    let clamped = at.index_op(ctx, "minui", k, last);
    let (map, operands) = substituted(access, &indices(clamped));
    let value = at.load(ctx, false, access.memref, map, &operands, narrow);
    let zero_attr = ctx.intern_attr(AttrKind::Float {
        bits: 0,
        ty: narrow,
    });
    let zero = b.constant(ctx, zero_attr, narrow);
    b.select(ctx, valid, value, zero)
}

/// `nvgpu.ldmatrix` of `tiles` 8x8 matrices (transposed or not) at `indices` of `tile`.
fn ldmatrix(
    ctx: &mut Context,
    at: At,
    tile: Value,
    indices: &[Value],
    (tiles, transpose): (i64, bool),
    ty: Type,
) -> Value {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let count = ctx.integer_attr(tiles.into(), i32_ty);
    let i1 = ctx.i1();
    let transpose = ctx.integer_attr(i128::from(transpose), i1);
    let mut operands = vec![tile];
    operands.extend_from_slice(indices);
    let op: OpId = at.create(
        ctx,
        nvgpu::LDMATRIX,
        operands,
        vec![ty],
        vec![("numTiles", count), ("transpose", transpose)],
        0,
    );
    ctx.op(op).results[0]
}
