//! Default schedules: what a nest gets when no tuning record exists, derived from the
//! target description alone.

use tb_dialects::loop_::{Packing, Schedule};

use super::space::Nest;
use super::target::Target;

/// Work (iterations) below which a nest is not worth splitting over threads.
pub(crate) const MIN_PARALLEL_WORK: i64 = 1 << 16;

/// The default schedule of `nest` on `target`.
///
/// A contraction (`[M, N, K]`-like: reductions innermost, at least two other dimensions)
/// gets a register-blocked, packed, GEMM-style tiling of its last two non-reduction
/// dimensions `m, n` and its reductions: an `MR x NR` register block of `MR * NR / lanes`
/// vector accumulators (as many as the registers allow, leaving two for operands), inside
/// cache tiles `MC x NC` with a `KC` slice of the reduction; rows run on threads when
/// there is enough work. Other nests get [`loop_nest_schedule`].
pub fn default_schedule(nest: &Nest, target: &Target) -> Schedule {
    let rank = nest.rank();
    let mut schedule = Schedule::identity(rank);
    let lanes = target.lanes(nest.element_bytes);
    let spatial: Vec<usize> = (0..rank).filter(|&d| !nest.reduction[d]).collect();
    let work: i64 = nest.extents.iter().product();
    let threads = target.cores > 1 && work >= MIN_PARALLEL_WORK;
    let contraction = spatial.len() >= 2 && nest.reduction.iter().any(|&r| r);
    if contraction {
        let (m, n) = (spatial[spatial.len() - 2], spatial[spatial.len() - 1]);
        let (mr, nr) = register_block(target, nest.element_bytes);
        let tile = |extent: i64, levels: [i64; 2]| -> Vec<i64> {
            if extent <= levels[1] {
                Vec::new()
            } else if extent <= levels[0] {
                vec![levels[1]]
            } else {
                levels.to_vec()
            }
        };
        schedule.tiles[m] = tile(nest.extents[m], [mr * 16, mr]);
        schedule.tiles[n] = tile(nest.extents[n], [256.max(nr), nr]);
        for d in (0..rank).filter(|&d| nest.reduction[d]) {
            if nest.extents[d] > 256 {
                schedule.tiles[d] = vec![256];
            }
        }
        let n_inner = schedule.tiles[n].last().copied().unwrap_or(nest.extents[n]);
        schedule.vector = if n_inner % lanes == 0 { lanes } else { 1 };
        schedule.unroll = 4;
        schedule.pack = Packing::Both;
        if threads && nest.extents[m] >= 2 * mr {
            schedule.order = std::iter::once(m)
                .chain((0..rank).filter(|&d| d != m))
                .collect();
            schedule.parallel = vec![m];
        }
    } else {
        schedule = loop_nest_schedule(nest, target);
    }
    schedule
}

/// The default schedule of a nest that stays a loop nest (no micro-kernel rewrites it):
/// elementwise, reductions, pooling, convolutions, as `loop-default-schedule` attaches it.
///
/// Nests with enough work (all their iterations, reductions included) run one spatial
/// dimension on threads, moved outermost: the outermost one with at least two iterations
/// per core, else the longest; smaller nests run on one thread, since waking
/// the pool costs more than they take. Reductions stay innermost, in their order,
/// carrying their accumulators in registers. Without reductions, the innermost loop (after
/// that reordering) is vectorized when the vector divides it.
pub fn loop_nest_schedule(nest: &Nest, target: &Target) -> Schedule {
    let rank = nest.rank();
    let mut schedule = Schedule::identity(rank);
    let lanes = target.lanes(nest.element_bytes);
    let spatial: Vec<usize> = (0..rank).filter(|&d| !nest.reduction[d]).collect();
    let reductions = spatial.len() < rank;
    let work: i64 = nest.extents.iter().product();
    if target.cores > 1 && work >= MIN_PARALLEL_WORK {
        let enough = spatial
            .iter()
            .copied()
            .find(|&d| nest.extents[d] >= 2 * target.cores);
        let longest = spatial
            .iter()
            .copied()
            .max_by_key(|&d| (nest.extents[d], -(d as i64)));
        if let Some(outer) = enough.or(longest).filter(|&d| nest.extents[d] > 1) {
            schedule.order = std::iter::once(outer)
                .chain((0..rank).filter(|&d| d != outer))
                .collect();
            schedule.parallel = vec![outer];
        }
    }
    // The innermost loop once the order is applied.
    let innermost = schedule.effective_order().last().copied();
    if let Some(inner) = innermost
        && !reductions
        && lanes > 1
        && nest.extents[inner] % lanes == 0
    {
        schedule.vector = lanes;
    }
    schedule
}

/// The `MR x NR` register block of a matmul micro-kernel on `target`: two vectors of
/// columns, and as many rows (up to 8) as leave a register for the broadcast row value
/// and one per column vector besides the `MR * 2` accumulators.
pub fn register_block(target: &Target, element_bytes: i64) -> (i64, i64) {
    let lanes = target.lanes(element_bytes);
    let nr = 2 * lanes;
    let mr = ((target.vector_registers - 3) / 2).clamp(1, 8);
    (mr, nr)
}

/// The vector width for the innermost reduction of `nest` when its loads stream along it
/// (see `LoopNest::innermost_reduction_streams`): the register's lanes once the loop has at
/// least that many iterations, else 1. The reduction is then combined in interleaved
/// partial sums, in another order than the scalar loop's.
pub fn reduction_vector(nest: &Nest, target: &Target) -> i64 {
    let lanes = target.lanes(nest.element_bytes);
    match (0..nest.rank()).rev().find(|&d| nest.reduction[d]) {
        Some(d) if lanes > 1 && nest.extents[d] >= lanes => lanes,
        _ => 1,
    }
}
