//! `loop-gpu-shared-tile{bm,bn,bk,tm,tn,min-blocks}`: maps each large matmul with f32
//! sums (its operands f32, or f16 or bf16 widened as they are loaded) onto a
//! `gpu.launch` whose blocks stage tiles of `A` and `B` in shared memory, so that every
//! value read from global memory serves `BN` (from `A`) or `BM` (from `B`) multiply-adds
//! instead of one.
//!
//! A matmul nest as `convert-te-to-loop` writes it (batched too; the form
//! `loop-matmul-microkernel` and `loop-gpu-register-tile` match) becomes, for its first
//! `Mf x Nf` results (`M`, `N` rounded down to multiples of `BM`, `BN`):
//!
//! ```text
//! gpu.launch blocks(bx, by, bz) in (Nf / BN, Mf / BM, batch)
//!            threads(t) in ((BM / TM) * (BN / TN))
//!            workgroup(As : memref<BKxBM>, Bs : memref<BKxBN>) {
//!   (tr, tc) = (t / (BN / TN), t mod (BN / TN))
//!   %acc:TM*TN = loop.for k0 = 0 to Kf step BK iter_args(init..) {
//!     the block's threads copy A[.., by*BM .. +BM, k0 .. +BK] into As (transposed) and
//!     B[.., k0 .. +BK, bx*BN .. +BN] into Bs, each element once
//!     gpu.barrier
//!     loop.for kk = 0 to BK: acc_rc = fma(As[kk, tr*TM + r], Bs[kk, tc + c*(BN/TN)], acc_rc)
//!     gpu.barrier
//!   }
//!   the last K mod BK steps read A and B from global memory
//!   C[.., by*BM + tr*TM + r, bx*BN + tc + c*(BN/TN)] = acc_rc
//! }
//! ```
//!
//! The tiles hold f32 (narrower operands are widened once, as they are copied in).
//! Each thread keeps a `TM x TN` register tile, as `loop-gpu-register-tile` gives it. The
//! copies walk the tiles with consecutive threads on the dimension that is contiguous in
//! global memory, so a warp's loads coalesce; a thread's columns lie `BN / TN` apart, so a
//! warp's reads of `Bs` hit distinct banks and its stores of `C` coalesce. Each sum runs
//! over `k` in the original order, one fused multiply-add per step. The rows and columns
//! left over keep the original nest, narrowed, for the later GPU passes. A matmul with
//! fewer than `min-blocks` full tiles stays as it is: too few blocks to keep the GPU's
//! multiprocessors busy.

use tb_dialects::gpu;
use tb_dialects::loop_;
use tb_ir::affine::AffineMap;
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId, TypeKind, Value};

use super::contraction_indices::{
    batch_indices, contiguous_in, every_iv, split, tile_place, times,
};
use super::loop_to_gpu::launch_before;
use super::register_tile::{load_operand, substituted};
use crate::schedule::build::{At, set_yield};
use crate::schedule::conv_epilogue::emit;
use crate::schedule::loop_matmul_microkernel::{Contraction, match_contraction, peel};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "bm",
        kind: OptionKind::Int,
        default: "64",
        help: "Rows of C each block computes",
    },
    PassOptionInfo {
        name: "bn",
        kind: OptionKind::Int,
        default: "64",
        help: "Columns of C each block computes",
    },
    PassOptionInfo {
        name: "bk",
        kind: OptionKind::Int,
        default: "16",
        help: "Reduction steps staged in shared memory at a time",
    },
    PassOptionInfo {
        name: "tm",
        kind: OptionKind::Int,
        default: "4",
        help: "Rows of the register tile of each thread, dividing bm",
    },
    PassOptionInfo {
        name: "tn",
        kind: OptionKind::Int,
        default: "4",
        help: "Columns of the register tile of each thread, dividing bn",
    },
    PassOptionInfo {
        name: "min-blocks",
        kind: OptionKind::Int,
        default: "16",
        help: "Map only matmuls with at least this many full BM x BN tiles",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-gpu-shared-tile",
        description: "Map large matmuls onto GPU blocks that stage tiles of A and B in shared memory",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(SharedTile {
                tiling: Tiling {
                    bm: o.int("bm"),
                    bn: o.int("bn"),
                    bk: o.int("bk"),
                    tm: o.int("tm"),
                    tn: o.int("tn"),
                },
                min_blocks: o.int("min-blocks"),
            })
        },
    }
}

/// Shared memory a block may use without opting in to more (48 KiB on every architecture
/// since sm_70).
const MAX_SHARED_BYTES: i64 = 48 * 1024;
/// The most blocks along a grid's y and z dimensions.
const MAX_GRID_YZ: i64 = 65535;
/// The most blocks along a grid's x dimension.
const MAX_GRID_X: i64 = i32::MAX as i64;

#[derive(Clone, Copy)]
struct Tiling {
    bm: i64,
    bn: i64,
    bk: i64,
    tm: i64,
    tn: i64,
}

impl Tiling {
    fn threads(self) -> i64 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Why these sizes make no kernel, if they do not.
    fn invalid(self) -> Option<String> {
        let Tiling { bm, bn, bk, tm, tn } = self;
        if [bm, bn, bk, tm, tn]
            .iter()
            .any(|&s| !(1..=1024).contains(&s))
        {
            return Some("sizes must lie in [1, 1024]".into());
        }
        if bm % tm != 0 || bn % tn != 0 {
            return Some("tm must divide bm and tn divide bn".into());
        }
        if tm * tn > 64 {
            return Some("a register tile holds at most 64 results (tm * tn)".into());
        }
        let threads = self.threads();
        if threads > 1024 {
            return Some(format!(
                "blocks would have {threads} threads (bm/tm * bn/tn), more than 1024"
            ));
        }
        if (bm * bk) % threads != 0 || (bn * bk) % threads != 0 {
            return Some(format!(
                "the {threads} threads must split both tiles evenly (bm*bk and bn*bk multiples of them)"
            ));
        }
        let bytes = (bm + bn) * bk * 4;
        if bytes > MAX_SHARED_BYTES {
            return Some(format!(
                "the tiles take {bytes} bytes of shared memory, more than {MAX_SHARED_BYTES}"
            ));
        }
        None
    }
}

struct SharedTile {
    tiling: Tiling,
    min_blocks: i64,
}

impl Pass for SharedTile {
    fn argument(&self) -> &'static str {
        "loop-gpu-shared-tile"
    }

    fn display_name(&self) -> &'static str {
        "LoopGpuSharedTile"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let t = self.tiling;
        if let Some(why) = t.invalid() {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-gpu-shared-tile: bm={} bn={} bk={} tm={} tn={}: {why}",
                    t.bm, t.bn, t.bk, t.tm, t.tn
                ),
            ));
        }
        if self.min_blocks < 0 {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-gpu-shared-tile: min-blocks={} is negative",
                    self.min_blocks
                ),
            ));
        }
        let mut candidates = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            // Only nests at a function's top level: they are the ones mapped to kernels.
            let top_level = ctx
                .parent_op(inner)
                .is_some_and(|p| ctx.op_name(p) == "func.func");
            if top_level && loop_::LoopOp::of(ctx, inner) == Some(loop_::LoopOp::Parallel) {
                candidates.push(inner);
            }
        });
        for parallel in candidates {
            let Some(c) = match_contraction(ctx, parallel) else {
                continue;
            };
            let Some(grid) = grid(&c, t) else {
                continue;
            };
            if grid.iter().product::<i64>() >= self.min_blocks.max(1) {
                map(ctx, &c, t, grid);
            }
        }
        Ok(())
    }
}

/// The grid of full tiles (x: columns, y: rows, z: batch), if it fits a launch.
fn grid(c: &Contraction, t: Tiling) -> Option<[i64; 3]> {
    let rank = c.extents.len();
    let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
    let batch = c.extents[..rank - 2].iter().product::<i64>();
    let grid = [n / t.bn, m / t.bm, batch];
    let fits = grid[0] <= MAX_GRID_X && grid[1] <= MAX_GRID_YZ && grid[2] <= MAX_GRID_YZ;
    (grid.iter().all(|&g| g > 0) && fits).then_some(grid)
}

/// `(d0, d1) -> (d0, d1 + offset)`: a tile's element `offset` columns along.
fn shifted_column(offset: i64) -> AffineMap {
    use tb_ir::affine::AffineExpr;
    let column = (AffineExpr::dim(1) + offset).simplify();
    AffineMap::new(2, 0, vec![AffineExpr::dim(0), column])
}

/// The loads of one step `k` of the register tile: `TM` values of the `A` side, `TN` of
/// the `B` side, each loaded by `load(row or column offset)`, then `TM * TN` multiply-adds.
fn tile_step(
    ctx: &mut Context,
    body: At,
    (tm, tn): (i64, i64),
    acc: &[Value],
    lhs: &mut dyn FnMut(&mut Context, At, i64) -> Value,
    rhs: &mut dyn FnMut(&mut Context, At, i64) -> Value,
) -> Vec<Value> {
    let a: Vec<Value> = (0..tm).map(|r| lhs(ctx, body, r)).collect();
    let b: Vec<Value> = (0..tn).map(|col| rhs(ctx, body, col)).collect();
    let mut next = Vec::with_capacity(acc.len());
    for r in 0..tm as usize {
        for col in 0..tn as usize {
            next.push(body.fma(ctx, a[r], b[col], acc[r * tn as usize + col]));
        }
    }
    next
}

/// Rewrites the matmul `c` into a shared-memory tiled launch over its full tiles (see the
/// module doc); the rows and columns left over keep the original nest, narrowed.
fn map(ctx: &mut Context, c: &Contraction, t: Tiling, grid: [i64; 3]) {
    let rank = c.extents.len();
    let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
    let (mf, nf) = (m - m % t.bm, n - n % t.bn);
    let k_extent = c.k_extent;
    let kf = k_extent - k_extent % t.bk;
    let loc = ctx.op(c.parallel).loc;
    let f32_ty = ctx.value_type(c.init);
    let space = gpu::workgroup_space_attr(ctx);
    let tile_type = |ctx: &mut Context, cols: i64| {
        ctx.intern_type(TypeKind::MemRef {
            shape: vec![t.bk, cols],
            element: f32_ty,
            layout: None,
            memory_space: Some(space),
        })
    };
    let (lhs_tile_ty, rhs_tile_ty) = (tile_type(ctx, t.bm), tile_type(ctx, t.bn));
    // A kernel that covers every result computes the elementwise nest after the matmul (a
    // bias, an activation) where it would store each (see `loop-gpu-mma`).
    let epilogue = super::epilogue::fused_epilogue(ctx, c, mf == m && nf == n);
    let threads = t.threads();
    let (args, inside) = launch_before(
        ctx,
        c.parallel,
        grid,
        [threads, 1, 1],
        &[lhs_tile_ty, rhs_tile_ty],
    );
    let (bx, by, bz, tid) = (args[0], args[1], args[2], args[3]);
    let (lhs_tile, rhs_tile) = (args[gpu::LAUNCH_BODY_ARGS], args[gpu::LAUNCH_BODY_ARGS + 1]);
    let columns = t.bn / t.tn;
    let (tr, tc) = split(ctx, inside, tid, columns);
    let row0 = times(ctx, inside, by, t.bm);
    let col0 = times(ctx, inside, bx, t.bn);
    // The batch indices, from the grid's z.
    let batch = batch_indices(ctx, inside, c, bz);
    let (j_old, k_old) = (c.ivs[rank - 1], c.k_iv);
    let every_iv = |i, j, k| every_iv(c, &batch, i, j, k);
    let my_row = {
        let scaled = times(ctx, inside, tr, t.tm);
        inside.index_op(ctx, "addi", row0, scaled)
    };
    let my_col = inside.index_op(ctx, "addi", col0, tc);
    let count = (t.tm * t.tn) as usize;
    let launch_end = inside;
    let mut acc = vec![c.init; count];
    if kf > 0 {
        let (k_loop, body, k0, carried) = launch_end.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(kf), vec![]),
            t.bk,
            &acc,
        );
        // Cooperative copies: element `e = l * threads + t` of each tile, for each `l`.
        let lhs_k_fastest = contiguous_in(&c.lhs, k_old);
        let rhs_j_fastest = contiguous_in(&c.rhs, j_old);
        for l in 0..(t.bm * t.bk) / threads {
            let (row, kk) = tile_place(ctx, body, (tid, l, threads), (t.bm, t.bk), lhs_k_fastest);
            let i = body.index_op(ctx, "addi", row0, row);
            let k = body.index_op(ctx, "addi", k0, kk);
            let access = substituted(&c.lhs, &every_iv((i, 0), (col0, 0), (k, 0)));
            let v = load_operand(ctx, body, c, c.lhs.memref, access);
            body.store(ctx, false, v, lhs_tile, AffineMap::identity(2), &[kk, row]);
        }
        for l in 0..(t.bn * t.bk) / threads {
            let (kk, col) = tile_place(ctx, body, (tid, l, threads), (t.bk, t.bn), rhs_j_fastest);
            let j = body.index_op(ctx, "addi", col0, col);
            let k = body.index_op(ctx, "addi", k0, kk);
            let access = substituted(&c.rhs, &every_iv((row0, 0), (j, 0), (k, 0)));
            let v = load_operand(ctx, body, c, c.rhs.memref, access);
            body.store(ctx, false, v, rhs_tile, AffineMap::identity(2), &[kk, col]);
        }
        body.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
        let (inner_loop, inner, kk, inner_acc) = body.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(t.bk), vec![]),
            1,
            &carried,
        );
        let tm_rows = times(
            ctx,
            At {
                before: inner_loop,
                loc,
            },
            tr,
            t.tm,
        );
        // As[kk, tr*TM + r] and Bs[kk, tc + col*columns], as affine maps of (kk, base).
        let next = tile_step(
            ctx,
            inner,
            (t.tm, t.tn),
            &inner_acc,
            &mut |ctx, at, r| {
                at.load(
                    ctx,
                    false,
                    lhs_tile,
                    shifted_column(r),
                    &[kk, tm_rows],
                    f32_ty,
                )
            },
            &mut |ctx, at, col| {
                let map = shifted_column(col * columns);
                at.load(ctx, false, rhs_tile, map, &[kk, tc], f32_ty)
            },
        );
        set_yield(ctx, inner, &next);
        // Nobody refills the tiles before everyone has read them.
        body.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
        let sums = ctx.op(inner_loop).results.to_vec();
        set_yield(ctx, body, &sums);
        acc = ctx.op(k_loop).results.to_vec();
    }
    if kf < k_extent {
        // The last steps, too few for a tile, read global memory directly.
        let (tail, body, k, carried) = launch_end.for_loop(
            ctx,
            (AffineMap::constant(kf), vec![]),
            (AffineMap::constant(k_extent), vec![]),
            1,
            &acc,
        );
        let next = tile_step(
            ctx,
            body,
            (t.tm, t.tn),
            &carried,
            &mut |ctx, at, r| {
                let s = every_iv((my_row, r), (my_col, 0), (k, 0));
                load_operand(ctx, at, c, c.lhs.memref, substituted(&c.lhs, &s))
            },
            &mut |ctx, at, col| {
                let s = every_iv((my_row, 0), (my_col, col * columns), (k, 0));
                load_operand(ctx, at, c, c.rhs.memref, substituted(&c.rhs, &s))
            },
        );
        set_yield(ctx, body, &next);
        acc = ctx.op(tail).results.to_vec();
    }
    for r in 0..t.tm {
        for col in 0..t.tn {
            let sum = acc[(r * t.tn + col) as usize];
            if let Some(e) = &epilogue {
                let i = launch_end.add_index(ctx, my_row, r);
                let j = launch_end.add_index(ctx, my_col, col * columns);
                let ivs: Vec<_> = batch.iter().copied().chain([i, j]).collect();
                emit(ctx, e, launch_end, &ivs, sum);
                continue;
            }
            let s = every_iv((my_row, r), (my_col, col * columns), (my_row, 0));
            let (map, operands) = substituted(&c.out, &s);
            launch_end.store(ctx, false, sum, c.out.memref, map, &operands);
        }
    }
    peel(ctx, c, (m, n), (mf, nf));
    if let Some(e) = epilogue {
        e.remove(ctx, true);
    }
}
