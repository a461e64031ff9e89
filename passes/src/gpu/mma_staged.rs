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

use tb_dialects::{gpu, nvgpu};
use tb_ir::affine::AffineMap;
use tb_ir::attributes::AttrKind;
use tb_ir::{Context, OpId, Type, TypeKind, Value};

use super::contraction_indices::{
    batch_indices, contiguous_in, every_iv, split, tile_place, times,
};
use super::loop_to_gpu::launch_before;
use super::mma::{MMA_K, MMA_M, MMA_N, mma_sync, splat_accumulators, store_results};
use super::register_tile::substituted;
use crate::conversion::te_to_loop::builder::Builder;
use crate::schedule::build::{At, set_yield};
use crate::schedule::loop_matmul_microkernel::{Access, Contraction, peel};

/// Elements of padding after each row of a tile (16 bytes of 16-bit elements).
const PAD: i64 = 8;
/// Shared memory a block may use without opting in to more.
const MAX_SHARED_BYTES: i64 = 48 * 1024;
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
        if (bm * self.k) % self.threads() != 0 || (bn * self.k) % self.threads() != 0 {
            return Some(format!(
                "the {} threads must split both {bm}x{} and {}x{bn} tiles evenly",
                self.threads(),
                self.k,
                self.k
            ));
        }
        let bytes = (bm * (self.k + PAD) + self.k * (bn + PAD)) * 2;
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
    let space = gpu::workgroup_space_attr(ctx);
    let tile_type = |ctx: &mut Context, rows: i64, cols: i64| {
        ctx.intern_type(TypeKind::MemRef {
            shape: vec![rows, cols + PAD],
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
        c,
        batch,
        row0,
        col0,
        tid,
        lane,
        warp_rows,
        warp_cols,
    };
    let mut acc = splat_accumulators(ctx, at, c, (s.warp_m * s.warp_n) as usize);
    let k_extent = c.k_extent;
    let full = k_extent - k_extent % s.k;
    if full > 0 {
        let (stages, body, k0, carried) = at.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(full), vec![]),
            s.k,
            &acc,
        );
        let next = stage(ctx, body, &place, &tiles, s, k0, &carried, None, narrow);
        set_yield(ctx, body, &next);
        acc = ctx.op(stages).results.to_vec();
    }
    if full < k_extent {
        let k0 = at.index_constant(ctx, full);
        acc = stage(ctx, at, &place, &tiles, s, k0, &acc, Some(k_extent), narrow);
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
    );
    peel(ctx, c, (m, n), (mf, nf));
    true
}

/// The two workgroup buffers.
struct Tiles {
    a: Value,
    b: Value,
}

/// The block's and the thread's coordinates.
struct Place<'c> {
    c: &'c Contraction,
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

/// One stage at `k0`: the copies, a barrier, `K / 16` steps of fragments and `mma.sync`s,
/// a barrier. With `limit`, reduction indices at or past it read zero.
#[allow(clippy::too_many_arguments)]
fn stage(
    ctx: &mut Context,
    at: At,
    p: &Place,
    tiles: &Tiles,
    s: Staging,
    k0: Value,
    acc: &[Value],
    limit: Option<i64>,
    narrow: Type,
) -> Vec<Value> {
    let c = p.c;
    let (bm, bn) = s.tile();
    let threads = s.threads();
    let (j_old, k_old) = (c.ivs[c.ivs.len() - 1], c.k_iv);
    // A's tile: element e = l * threads + tid, consecutive threads along the dimension
    // contiguous in A.
    let a_k_fastest = contiguous_in(&c.lhs, k_old);
    for l in 0..(bm * s.k) / threads {
        let (row, kk) = tile_place(ctx, at, (p.tid, l, threads), (bm, s.k), a_k_fastest);
        let i = at.index_op(ctx, "addi", p.row0, row);
        let k = at.index_op(ctx, "addi", k0, kk);
        let v = copied(
            ctx,
            at,
            &c.lhs,
            |k| every_iv(c, &p.batch, (i, 0), (p.col0, 0), (k, 0)),
            k,
            limit,
            narrow,
        );
        at.store(ctx, false, v, tiles.a, AffineMap::identity(2), &[row, kk]);
    }
    let b_j_fastest = contiguous_in(&c.rhs, j_old);
    for l in 0..(bn * s.k) / threads {
        let (kk, col) = tile_place(ctx, at, (p.tid, l, threads), (s.k, bn), b_j_fastest);
        let j = at.index_op(ctx, "addi", p.col0, col);
        let k = at.index_op(ctx, "addi", k0, kk);
        let v = copied(
            ctx,
            at,
            &c.rhs,
            |k| every_iv(c, &p.batch, (p.row0, 0), (j, 0), (k, 0)),
            k,
            limit,
            narrow,
        );
        at.store(ctx, false, v, tiles.b, AffineMap::identity(2), &[kk, col]);
    }
    at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
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
                ldmatrix(ctx, at, tiles.a, &[row, a_col], (4, false), a_ty)
            })
            .collect();
        let b: Vec<Value> = (0..wn)
            .map(|ni| {
                let col = at.add_index(ctx, p.warp_cols, MMA_N * ni as i64);
                ldmatrix(ctx, at, tiles.b, &[b_row, col], (2, true), b_ty)
            })
            .collect();
        for mi in 0..wm {
            for ni in 0..wn {
                acc[mi * wn + ni] = mma_sync(ctx, at, a[mi], b[ni], acc[mi * wn + ni]);
            }
        }
    }
    // Nobody refills the tiles before every warp has read them.
    at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    acc
}

/// An element of `A` or `B` read through `access` at reduction index `k` (the rest from
/// `indices(k)`), as stored; with `limit`, zero at or past it (read from a clamped
/// address).
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
