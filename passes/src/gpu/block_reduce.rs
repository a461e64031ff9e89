//! Reductions spread over the threads of a whole block.
//!
//! A warp per output ([`super::warp_reduce`]) still leaves a GPU idle when the outputs are
//! few and the reductions long: a sum over a whole tensor, a global pool over a large
//! image, a handful of very long rows. Then each output gets a block of `B` threads
//! instead: thread `t` folds the elements `t, t + B, t + 2B, ...` from the combiner's
//! identity, each warp combines its 32 lanes with shuffles, every lane writes its warp's
//! value into a workgroup buffer `partials[B / 32][32]` (each lane its own element, so no
//! two threads write one), a barrier waits for all warps, and every thread folds the
//! warps' values `partials[w][0]` in order, then the loop's initial value. All threads
//! then hold the same result, so the code after the reduction runs unchanged in each of
//! them. A second barrier keeps the next output's writes from overtaking a slow warp's
//! reads. The grid's blocks take outputs in turn (grid-stride), the same number in every
//! thread of a block, so every thread reaches every barrier.
//!
//! Floating-point sums are reassociated, as every parallel reduction is.

use tb_dialects::gpu::{self, WARP_SIZE};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::{Context, Type, TypeKind, Value};

use super::warp_reduce::{self, Reduction};
use crate::conversion::te_to_loop::builder::Builder;

/// At most this many outputs go to blocks: beyond it, a warp each already gives the GPU
/// thousands of warps.
const FEW_OUTPUTS: i64 = 512;

/// Whether the reductions of a parallel loop over `outputs` points should each take a
/// block: the outputs are few and one reduction is at least `min_extent` long (0: never).
pub(super) fn prefers_blocks(reductions: &[Reduction], outputs: i64, min_extent: i64) -> bool {
    min_extent > 0 && outputs <= FEW_OUTPUTS && reductions.iter().any(|r| r.extent >= min_extent)
}

/// The workgroup buffer in which the warps of a `block_size`-thread block leave their
/// values of `r`: `memref<(B / 32) x 32 x T, workgroup>`.
pub(super) fn partials_type(ctx: &mut Context, r: &Reduction, block_size: i64) -> Type {
    let element = warp_reduce::value_type(ctx, r);
    let warp = i64::from(WARP_SIZE);
    let space = gpu::workgroup_space_attr(ctx);
    ctx.intern_type(TypeKind::MemRef {
        shape: vec![block_size / warp, warp],
        element,
        layout: None,
        memory_space: Some(space),
    })
}

/// Rewrites `r` so that thread `thread` of a `block_size`-thread block (a multiple of 32)
/// folds every `block_size`-th element, and the block combines the threads' values through
/// `partials` (see the module doc); `r`'s result is then the whole reduction in every
/// thread.
pub(super) fn spread_over_block(
    ctx: &mut Context,
    r: &Reduction,
    thread: Value,
    block_size: i64,
    partials: Value,
) {
    let partial = warp_reduce::fold_strided(ctx, r, thread, block_size);
    let warp_value = warp_reduce::combine_lanes(ctx, r, partial);
    let at = Builder::before(r.op(), ctx.op(r.op()).loc);
    let warp = i64::from(WARP_SIZE);
    let warp_size = at.index_constant(ctx, warp);
    let warp_index = at.binary(ctx, "arith.divui", thread, warp_size);
    let lane = at.binary(ctx, "arith.remui", thread, warp_size);
    at.store(ctx, warp_value, partials, &[warp_index, lane]);
    at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    let mut all = warp_reduce::identity(ctx, r);
    for w in 0..block_size / warp {
        let element = AffineMap::new(0, 0, vec![AffineExpr::constant(w), AffineExpr::constant(0)]);
        let value = at.load(ctx, partials, element, &[]);
        all = warp_reduce::combine(ctx, r, all, value);
    }
    at.create(ctx, gpu::BARRIER, vec![], vec![], vec![], 0);
    warp_reduce::finish(ctx, r, all);
}
