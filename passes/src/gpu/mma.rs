//! `loop-gpu-mma{warp-m,warp-n,warps-per-block}`: maps matmuls of f16 or bf16 operands
//! with f32 sums onto the GPU's tensor cores, one warp per `16*WM x 8*WN` tile of results
//! computed by `nvgpu.mma.sync` (16x8x16 on each step).
//!
//! A matmul nest as `convert-te-to-loop` writes it for narrow floats (each loaded value
//! widened with `arith.extf`, the sums in f32; batched too, any operand layout) becomes a
//! `gpu.launch` of `warps-per-block` warps per block. Each warp walks the tiles
//! grid-stride, and for each tile
//!
//! ```text
//! acc[mi][ni] = splat(init)                                 (vector<2x2xf32> fragments)
//! loop.for k0 = 0 to Kf step 16:
//!   a[mi] = vector.from_elements(A[..])   8 values of A at the lane's fragment places
//!   b[ni] = vector.from_elements(B[..])   4 values of B
//!   acc[mi][ni] = nvgpu.mma.sync(a[mi], b[ni], acc[mi][ni])
//! the last K mod 16 steps: the same, reading zero past K
//! C[..] = vector.extract(acc[mi][ni])      4 results per fragment per lane
//! ```
//!
//! The operands are fed to the tensor cores as they are stored (no widening: the products
//! of f16 or bf16 values are exact in f32); the lanes read them straight from global
//! memory, where a warp's reads of a fragment touch 8 rows of 32 bytes. The rows
//! (`M mod 16*WM`) and columns (`N mod 8*WN`) left over keep the original nest, for the
//! passes after this one.

use tb_dialects::{gpu, nvgpu, vector};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::AttrKind;
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, FloatKind, OpId, Type, TypeKind, Value};

use super::contraction_indices::{batch_indices, every_iv, split, times};
use super::loop_to_gpu::launch_before;
use super::mma_staged::Staging;
use super::register_tile::substituted;
use crate::conversion::te_to_loop::builder::Builder;
use crate::schedule::build::{At, set_yield};
use crate::schedule::conv_epilogue::{Epilogue, emit};
use crate::schedule::loop_matmul_microkernel::{Contraction, match_contraction, peel};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "warp-m",
        kind: OptionKind::Int,
        default: "4",
        help: "16-row steps of each warp's tile, in [1, 8] (halved for small matmuls, see min-blocks)",
    },
    PassOptionInfo {
        name: "warp-n",
        kind: OptionKind::Int,
        default: "8",
        help: "8-column steps of each warp's tile, in [1, 8] (halved for small matmuls, see min-blocks)",
    },
    PassOptionInfo {
        name: "warps-per-block",
        kind: OptionKind::Int,
        default: "4",
        help: "Warps of each block when the operands are not staged, in [1, 32]",
    },
    PassOptionInfo {
        name: "stage",
        kind: OptionKind::Bool,
        default: "true",
        help: "Stage tiles of A and B in shared memory and load fragments with ldmatrix where a matmul has a full block tile",
    },
    PassOptionInfo {
        name: "block-warps-m",
        kind: OptionKind::Int,
        default: "2",
        help: "Warps of a staged block along the rows, in [1, 8]",
    },
    PassOptionInfo {
        name: "block-warps-n",
        kind: OptionKind::Int,
        default: "2",
        help: "Warps of a staged block along the columns, in [1, 8]",
    },
    PassOptionInfo {
        name: "stage-k",
        kind: OptionKind::Int,
        default: "64",
        help: "Reduction steps staged at a time, a multiple of 16",
    },
    PassOptionInfo {
        name: "stages",
        kind: OptionKind::Int,
        default: "3",
        help: "Stages of the tiles in shared memory at once, in [1, 8]: the next ones are copied asynchronously (cp.async) while this one is used; 1 copies through registers, as do operands whose rows are not 16-byte vectors",
    },
    PassOptionInfo {
        name: "min-blocks",
        kind: OptionKind::Int,
        default: "128",
        help: "Halve a matmul's warp tile, longer side first, while its launch would have fewer blocks than this (about a large GPU's multiprocessors); 1 keeps the sizes as given",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-gpu-mma",
        description: "Map f16 and bf16 matmuls onto tensor cores (nvgpu.mma.sync), a tile per warp",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(Mma {
                warp_m: o.int("warp-m"),
                warp_n: o.int("warp-n"),
                warps_per_block: o.int("warps-per-block"),
                min_blocks: o.int("min-blocks"),
                staging: o.bool("stage").then(|| Staging {
                    warp_m: o.int("warp-m"),
                    warp_n: o.int("warp-n"),
                    block_m: o.int("block-warps-m"),
                    block_n: o.int("block-warps-n"),
                    k: o.int("stage-k"),
                    stages: o.int("stages"),
                }),
            })
        },
    }
}

/// The shape of one `mma.sync`.
pub(super) const MMA_M: i64 = nvgpu::MMA_SHAPE[0];
pub(super) const MMA_N: i64 = nvgpu::MMA_SHAPE[1];
pub(super) const MMA_K: i64 = nvgpu::MMA_SHAPE[2];
/// The most blocks a launch gets; warps then take several tiles each (grid-stride).
const MAX_BLOCKS: i64 = 65535;

struct Mma {
    warp_m: i64,
    warp_n: i64,
    warps_per_block: i64,
    /// The fewest blocks a launch should have before its warp tiles shrink.
    min_blocks: i64,
    /// The staged kernel's sizes, unless staging is off.
    staging: Option<Staging>,
}

impl Pass for Mma {
    fn argument(&self) -> &'static str {
        "loop-gpu-mma"
    }

    fn display_name(&self) -> &'static str {
        "LoopGpuMma"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if !(1..=8).contains(&self.warp_m)
            || !(1..=8).contains(&self.warp_n)
            || !(1..=32).contains(&self.warps_per_block)
        {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-gpu-mma: needs warp-m and warp-n in [1, 8] and warps-per-block in [1, 32] (got warp-m={}, warp-n={}, warps-per-block={})",
                    self.warp_m, self.warp_n, self.warps_per_block
                ),
            ));
        }
        if let Some(why) = self.staging.and_then(Staging::invalid) {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!("loop-gpu-mma: {why}"),
            ));
        }
        // Staged kernels first; what they leave over (and what is too small for them)
        // gets warps reading global memory.
        if let Some(staging) = self.staging {
            for c in tensor_core_matmuls(ctx, op) {
                let narrow = c.widened_from.expect("tensor-core operands");
                let (m, n, batch) = result_extents(&c);
                let blocks = |wm: i64, wn: i64| {
                    let (bm, bn) = (MMA_M * wm * staging.block_m, MMA_N * wn * staging.block_n);
                    (m / bm) * (n / bn) * batch
                };
                let (warp_m, warp_n) = self.fitted(&blocks);
                let fitted = Staging {
                    warp_m,
                    warp_n,
                    ..staging
                };
                let sizes = if fitted.invalid().is_none() {
                    fitted
                } else {
                    staging
                };
                super::mma_staged::map(ctx, &c, sizes, narrow);
            }
        }
        for c in tensor_core_matmuls(ctx, op) {
            let (m, n, batch) = result_extents(&c);
            let blocks = |wm: i64, wn: i64| {
                (m / (MMA_M * wm)) * (n / (MMA_N * wn)) * batch / self.warps_per_block
            };
            let (wm, wn) = self.fitted(&blocks);
            if m >= MMA_M * wm && n >= MMA_N * wn {
                self.map(ctx, &c, (wm, wn));
            }
        }
        Ok(())
    }
}

/// A matmul's result rows, columns and batch count.
fn result_extents(c: &Contraction) -> (i64, i64, i64) {
    let rank = c.extents.len();
    let batch = c.extents[..rank - 2].iter().product::<i64>();
    (c.extents[rank - 2], c.extents[rank - 1], batch)
}

/// The matmul nests at the top level of `op`'s functions whose operands are f16 or bf16
/// widened to f32 sums.
fn tensor_core_matmuls(ctx: &Context, op: OpId) -> Vec<Contraction> {
    let mut candidates = Vec::new();
    ctx.walk_nested(op, &mut |inner| {
        let top_level = ctx
            .parent_op(inner)
            .is_some_and(|p| ctx.op_name(p) == "func.func");
        if top_level
            && tb_dialects::loop_::LoopOp::of(ctx, inner)
                == Some(tb_dialects::loop_::LoopOp::Parallel)
        {
            candidates.push(inner);
        }
    });
    candidates
        .into_iter()
        .filter_map(|parallel| match_contraction(ctx, parallel))
        .filter(|c| {
            c.k_extent > 0
                && c.widened_from.is_some_and(|t| {
                    matches!(
                        ctx.type_kind(t),
                        TypeKind::Float(FloatKind::F16 | FloatKind::BF16)
                    )
                })
        })
        .collect()
}

impl Mma {
    /// The warp tile (in fragments) for a launch of `blocks(wm, wn)` blocks: the
    /// configured one, its longer side halved while there would be fewer than
    /// `min-blocks` blocks, so that smaller matmuls still spread over the multiprocessors
    /// (on a 4096x4096 result the full 128x128 block tiles make 1,024 blocks; a 1024x1024
    /// one gets 64x64 tiles, 256 blocks, where 128x128 ones would leave half of a large
    /// GPU idle).
    fn fitted(&self, blocks: &dyn Fn(i64, i64) -> i64) -> (i64, i64) {
        let (mut wm, mut wn) = (self.warp_m, self.warp_n);
        while blocks(wm, wn) < self.min_blocks && (wm > 1 || wn > 1) {
            if (MMA_N * wn >= MMA_M * wm && wn > 1) || wm == 1 {
                wn = (wn + 1) / 2;
            } else {
                wm = (wm + 1) / 2;
            }
        }
        (wm, wn)
    }

    fn map(&self, ctx: &mut Context, c: &Contraction, (wm, wn): (i64, i64)) {
        let (tile_m, tile_n) = (MMA_M * wm, MMA_N * wn);
        let rank = c.extents.len();
        let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
        let (mf, nf) = (m - m % tile_m, n - n % tile_n);
        let (tiles_m, tiles_n) = (mf / tile_m, nf / tile_n);
        let batch_count = c.extents[..rank - 2].iter().product::<i64>();
        let tiles = batch_count * tiles_m * tiles_n;
        let blocks = ((tiles + self.warps_per_block - 1) / self.warps_per_block).min(MAX_BLOCKS);
        let warps = blocks * self.warps_per_block;
        let warp_size = i64::from(gpu::WARP_SIZE);
        let (args, inside) = launch_before(
            ctx,
            c.parallel,
            [blocks, 1, 1],
            [self.warps_per_block * warp_size, 1, 1],
            &[],
        );
        // This thread's warp (over the grid) and its lane in it.
        let (warp_in_block, lane) = split(ctx, inside, args[3], warp_size);
        let first = times(ctx, inside, args[0], self.warps_per_block);
        let warp = inside.index_op(ctx, "addi", first, warp_in_block);
        // The lane's group (`lane / 4`: its row of A and C, its column of B) and twice its
        // place in the group (its first column of A and C, its first `k` row of B).
        let (group, quarter) = split(ctx, inside, lane, 4);
        let pair = times(ctx, inside, quarter, 2);
        // Grid-stride over the tiles: every lane of a warp takes the same ones.
        let (_, body, tile, _) = inside.for_loop(
            ctx,
            (AffineMap::new(1, 0, vec![AffineExpr::dim(0)]), vec![warp]),
            (AffineMap::constant(tiles), vec![]),
            warps,
            &[],
        );
        let (rest, tile_col) = split(ctx, body, tile, tiles_n);
        let (flat_batch, tile_row) = split(ctx, body, rest, tiles_m);
        let batch = batch_indices(ctx, body, c, flat_batch);
        let row0 = times(ctx, body, tile_row, tile_m);
        let col0 = times(ctx, body, tile_col, tile_n);
        let corner = Corner {
            c,
            batch,
            row: body.index_op(ctx, "addi", row0, group),
            b_col: body.index_op(ctx, "addi", col0, group),
            c_col: body.index_op(ctx, "addi", col0, pair),
            pair,
            fragments: (wm as usize, wn as usize),
        };
        self.tile(ctx, body, &corner);
        peel(ctx, c, (m, n), (mf, nf));
    }

    /// The body of one warp tile at `corner`, before `at`.
    fn tile(&self, ctx: &mut Context, at: At, corner: &Corner) {
        let c = corner.c;
        let narrow = c.widened_from.expect("tensor-core operands");
        let (wm, wn) = corner.fragments;
        let mut acc = splat_accumulators(ctx, at, c, wm * wn);
        let k_extent = c.k_extent;
        let kf = k_extent - k_extent % MMA_K;
        if kf > 0 {
            let (k_loop, body, k0, carried) = at.for_loop(
                ctx,
                (AffineMap::constant(0), vec![]),
                (AffineMap::constant(kf), vec![]),
                MMA_K,
                &acc,
            );
            let k = body.index_op(ctx, "addi", k0, corner.pair);
            let next = self.step(ctx, body, corner, &carried, k, None, narrow);
            set_yield(ctx, body, &next);
            acc = ctx.op(k_loop).results.to_vec();
        }
        if kf < k_extent {
            let kf_value = at.index_constant(ctx, kf);
            let k = at.index_op(ctx, "addi", kf_value, corner.pair);
            acc = self.step(ctx, at, corner, &acc, k, Some(k_extent), narrow);
        }
        store_results(
            ctx,
            at,
            c,
            &corner.batch,
            (corner.row, corner.c_col),
            &acc,
            (wm, wn),
            None,
        );
    }

    /// One 16-step slice of the reduction at `k` (this lane's first `k`, the slice's start
    /// plus `lane.pair`): loads the fragments, then one `mma.sync` per fragment pair.
    /// With `limit`, `k` at or past it reads zero (the last, partial slice).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        ctx: &mut Context,
        at: At,
        corner: &Corner,
        acc: &[Value],
        k: Value,
        limit: Option<i64>,
        narrow: Type,
    ) -> Vec<Value> {
        let (wm, wn) = corner.fragments;
        let a_ty = vector_type(ctx, &[4, 2], narrow);
        let b_ty = vector_type(ctx, &[2, 2], narrow);
        let a: Vec<Value> = (0..wm)
            .map(|mi| {
                // Element `i`: row group + 8 * (pair mod 2), column k + half + 8 * (pair / 2).
                let elements: Vec<Value> = (0..8)
                    .map(|i| {
                        let (pair, half) = (i / 2, i % 2);
                        let row = (corner.row, MMA_M * mi as i64 + 8 * (pair % 2));
                        let k_offset = half + 8 * (pair / 2);
                        self.load(ctx, at, corner, true, row, (k, k_offset), limit, narrow)
                    })
                    .collect();
                fragment(ctx, at, elements, a_ty)
            })
            .collect();
        let b: Vec<Value> = (0..wn)
            .map(|ni| {
                // Element `i`: k row + half + 8 * pair, column group.
                let elements: Vec<Value> = (0..4)
                    .map(|i| {
                        let (pair, half) = (i / 2, i % 2);
                        let col = (corner.b_col, MMA_N * ni as i64);
                        self.load(
                            ctx,
                            at,
                            corner,
                            false,
                            col,
                            (k, half + 8 * pair),
                            limit,
                            narrow,
                        )
                    })
                    .collect();
                fragment(ctx, at, elements, b_ty)
            })
            .collect();
        let mut next = Vec::with_capacity(acc.len());
        for mi in 0..wm {
            for ni in 0..wn {
                next.push(mma_sync(ctx, at, a[mi], b[ni], acc[mi * wn + ni]));
            }
        }
        next
    }

    /// An element of `A` (`lhs`: at row `place`, reduction index `k`) or of `B` (at column
    /// `place`, reduction index `k`), read as stored; past `limit` it reads zero (from
    /// an address clamped to the last valid `k`).
    #[allow(clippy::too_many_arguments)]
    fn load(
        &self,
        ctx: &mut Context,
        at: At,
        corner: &Corner,
        lhs: bool,
        place: (Value, i64),
        (k, k_offset): (Value, i64),
        limit: Option<i64>,
        narrow: Type,
    ) -> Value {
        let c = corner.c;
        let (k_index, k_offset, valid) = match limit {
            None => (k, k_offset, None),
            Some(limit) => {
                let b = Builder::before(at.before, at.loc);
                let wanted = at.add_index(ctx, k, k_offset);
                let bound = at.index_constant(ctx, limit);
                let last = at.index_constant(ctx, limit - 1);
                let valid = b.cmpi(ctx, "ult", wanted, bound);
                let clamped = at.index_op(ctx, "minui", wanted, last);
                (clamped, 0, Some(valid))
            }
        };
        let (access, s) = if lhs {
            let s = every_iv(
                c,
                &corner.batch,
                place,
                (corner.b_col, 0),
                (k_index, k_offset),
            );
            (&c.lhs, s)
        } else {
            let s = every_iv(
                c,
                &corner.batch,
                (corner.row, 0),
                place,
                (k_index, k_offset),
            );
            (&c.rhs, s)
        };
        let (map, operands) = substituted(access, &s);
        let value = at.load(ctx, false, access.memref, map, &operands, narrow);
        match valid {
            None => value,
            Some(valid) => {
                // +0.0 has all bits clear in every float format.
                let zero_attr = ctx.intern_attr(AttrKind::Float {
                    bits: 0,
                    ty: narrow,
                });
                let b = Builder::before(at.before, at.loc);
                let zero = b.constant(ctx, zero_attr, narrow);
                b.select(ctx, valid, value, zero)
            }
        }
    }
}

/// Where a warp's tile lies, as the lane's places in its fragments (see
/// `nvgpu::fragment`): each element is one of these plus a constant.
struct Corner<'c> {
    c: &'c Contraction,
    batch: Vec<Value>,
    /// The tile's first row plus the lane's group: the lane's first row of `A` and `C`.
    row: Value,
    /// The tile's first column plus the lane's group: the lane's column of `B`.
    b_col: Value,
    /// The tile's first column plus `2 * (lane mod 4)`: the lane's first column of `C`.
    c_col: Value,
    /// `2 * (lane mod 4)`: the lane's first `k` in each slice.
    pair: Value,
    /// Fragments of the warp's tile along rows and columns.
    fragments: (usize, usize),
}

/// `count` accumulator fragments holding `c`'s initial value.
pub(super) fn splat_accumulators(
    ctx: &mut Context,
    at: At,
    c: &Contraction,
    count: usize,
) -> Vec<Value> {
    let f32_ty = ctx.value_type(c.init);
    let acc_ty = vector_type(ctx, &[2, 2], f32_ty);
    let splat = at.create(
        ctx,
        vector::FROM_ELEMENTS,
        vec![c.init; 4],
        vec![acc_ty],
        vec![],
        0,
    );
    vec![ctx.op(splat).results[0]; count]
}

/// `nvgpu.mma.sync(a, b, acc)` of shape 16x8x16.
pub(super) fn mma_sync(ctx: &mut Context, at: At, a: Value, b: Value, acc: Value) -> Value {
    let i64_ty = ctx.i64();
    let dims: Vec<_> = nvgpu::MMA_SHAPE
        .iter()
        .map(|&d| ctx.integer_attr(d.into(), i64_ty))
        .collect();
    let mma_shape = ctx.intern_attr(AttrKind::Array(dims));
    let acc_ty = ctx.value_type(acc);
    let mma = at.create(
        ctx,
        nvgpu::MMA_SYNC,
        vec![a, b, acc],
        vec![acc_ty],
        vec![("mmaShape", mma_shape)],
        0,
    );
    ctx.op(mma).results[0]
}

/// Each lane's four results of each of the `wm x wn` fragments `acc` (row-major) into
/// `C`: fragment `(mi, ni)` element `(pair, half)` at row `row + 16 mi + 8 pair`, column
/// `col + 8 ni + half`, where `row` and `col` are the lane's first ones (see
/// `nvgpu::fragment::c`).
/// Stores each lane's results of its `wm x wn` fragments at `(row, col)` and on, or
/// computes `epilogue`'s body on each (which stores into the epilogue's output instead).
#[allow(clippy::too_many_arguments)]
pub(super) fn store_results(
    ctx: &mut Context,
    at: At,
    c: &Contraction,
    batch: &[Value],
    (row, col): (Value, Value),
    acc: &[Value],
    (wm, wn): (usize, usize),
    epilogue: Option<&Epilogue>,
) {
    let f32_ty = ctx.value_type(c.init);
    for mi in 0..wm {
        for ni in 0..wn {
            for (pair, half) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let position = position_attr(ctx, &[pair, half]);
                let extract = at.create(
                    ctx,
                    vector::EXTRACT,
                    vec![acc[mi * wn + ni]],
                    vec![f32_ty],
                    vec![("static_position", position)],
                    0,
                );
                let value = ctx.op(extract).results[0];
                if let Some(e) = epilogue {
                    let i = at.add_index(ctx, row, MMA_M * mi as i64 + 8 * pair);
                    let j = at.add_index(ctx, col, MMA_N * ni as i64 + half);
                    let ivs: Vec<Value> = batch.iter().copied().chain([i, j]).collect();
                    emit(ctx, e, at, &ivs, value);
                    continue;
                }
                let s = every_iv(
                    c,
                    batch,
                    (row, MMA_M * mi as i64 + 8 * pair),
                    (col, MMA_N * ni as i64 + half),
                    (row, 0),
                );
                let (map, operands) = substituted(&c.out, &s);
                at.store(ctx, false, value, c.out.memref, map, &operands);
            }
        }
    }
}

pub(super) fn vector_type(ctx: &mut Context, shape: &[i64], element: Type) -> Type {
    ctx.intern_type(TypeKind::Vector {
        shape: shape.to_vec(),
        scalable: vec![false; shape.len()],
        element,
    })
}

fn fragment(ctx: &mut Context, at: At, elements: Vec<Value>, ty: Type) -> Value {
    let op = at.create(ctx, vector::FROM_ELEMENTS, elements, vec![ty], vec![], 0);
    ctx.op(op).results[0]
}

fn position_attr(ctx: &mut Context, position: &[i64]) -> tb_ir::Attr {
    let i64_ty = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: tb_ir::attributes::DenseArrayData::Int(position.iter().map(|&p| p.into()).collect()),
    })
}
