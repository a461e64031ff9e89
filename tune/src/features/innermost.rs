//! How a statement's innermost loops run: what separates the candidates of one task, where
//! the loop features of [`super`] mostly describe the task itself (its operations and bytes
//! are the same whatever the schedule).
//!
//! The *running* loop of a statement is its innermost loop of more than one iteration (a
//! tile loop of one iteration does no work of its own). Each access's stride along it, in
//! elements, comes from the access map and the buffer's row-major layout. Per statement:
//!
//! | index | feature |
//! |---|---|
//! | 0 | log2 trip count of the running loop |
//! | 1, 2, 3 | share of the accesses that stay put, walk contiguously, or stride along it |
//! | 4 | log2(1 + stride in bytes), averaged over the accesses that move |
//! | 5 | cache lines the accesses reach for per iteration of the running loop |
//! | 6 | log2 `vectorize` width of a loop whose accesses all stay put or walk contiguously |
//! | 7 | log2 `vectorize` width of a loop with a strided access (gathers and scatters) |
//! | 8 | share of the vectorized loop's iterations left to the scalar remainder |
//! | 9 | log2 `unroll` factor, capped by the trip count of the loop it unrolls |
//! | 10 | log2 loop iterations run per body execution (loop overhead: 1 for one loop) |
//! | 11 | log2(1 + times parallel loops are entered) |
//! | 12 | log2 body executions per iteration of the outermost parallel loop (0: none) |
//! | 13 | loops whose upper bound is a `min` (partial tiles need a guard) |
//! | 14, 15 | log2 body executions per cache line of the deepest innermost band of loops whose data fits L1 (32 KiB), L2 (1 MiB) |
//! | 16 | loops of one iteration inside the running loop (they keep it from being innermost) |
//! | 17, 18 | log2 bytes of an access's contiguous run (what it walks before its address jumps: hardware prefetchers follow long runs), averaged over the accesses that move, and the shortest |
//! | 19 | share of the arithmetic that runs on vectors (vector values, or scalars in a loop annotated `vectorize`) |
//! | 20 | log2 lanes per arithmetic operation |
//!
//! The values of a task are the averages over its statements, weighted by how often each
//! statement's operations run.

use std::collections::HashMap;

use tb_dialects::loop_;
use tb_ir::affine::AffineExpr;
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, OpId, Value};

use super::{Enclosing, access_lanes, element_bytes, memref_and_indices};

/// Features per statement (the table's rows).
pub const INNERMOST_FEATURES: usize = 21;

const CACHE_LINE: f64 = 64.0;
const L1_BYTES: f64 = 32.0 * 1024.0;
const L2_BYTES: f64 = 1024.0 * 1024.0;

/// One access with its strides along each enclosing loop (innermost first).
pub(super) struct Strided {
    element_bytes: f64,
    pub(super) lanes: f64,
    /// Stride in elements along each loop's fastest induction variable.
    pub(super) strides: Vec<f64>,
    /// Elements of the buffer (a cap on what any band touches).
    pub(super) capacity: f64,
}

impl Strided {
    /// The distinct elements it touches within the innermost `depth` loops: its lanes
    /// times the trip counts of the loops it moves along, at most the buffer.
    pub(super) fn elements_within(&self, loops: &[Enclosing], depth: usize) -> f64 {
        let mut elements = self.lanes;
        for (l, &s) in loops.iter().take(depth).zip(&self.strides) {
            if s != 0.0 {
                elements *= l.trip;
            }
        }
        if self.capacity > 0.0 {
            elements.min(self.capacity.max(self.lanes))
        } else {
            elements
        }
    }

    /// Elements it walks one after another before its address jumps: its lanes, times the
    /// trip of each loop from the innermost out while that loop's stride continues the
    /// run. A loop along which it stays put (it re-reads the run) or that strides past the
    /// run ends it: measured on the cross-device data set, counting re-reads as repeats of
    /// a longer run ranked worse.
    fn contiguous_run(&self, loops: &[Enclosing]) -> f64 {
        let mut run = self.lanes.max(1.0);
        for (l, &s) in loops.iter().zip(&self.strides) {
            if l.trip <= 1.0 {
                continue;
            }
            if s != run {
                break;
            }
            run *= l.trip;
        }
        run
    }
}

/// The features of statement `block` inside `loops` (innermost first), and its weight in
/// the task's average: body executions times operations.
pub(super) fn statement(ctx: &Context, block: BlockId, loops: &[Enclosing]) -> (Vec<f64>, f64) {
    let mut f = vec![0.0; INNERMOST_FEATURES];
    let body_ops = ctx.block_ops(block).count().max(1) as f64;
    let executions: f64 = loops.iter().map(|l| l.trip).product();
    let accesses: Vec<Strided> = ctx
        .block_ops(block)
        .filter(|&op| is_access(ctx.op_name(op)))
        .filter_map(|op| strided(ctx, op, loops))
        .collect();
    let Some(running) = loops.iter().position(|l| l.trip > 1.0) else {
        return (f, executions * body_ops);
    };
    let trip = loops[running].trip;
    f[0] = trip.log2();
    let n = accesses.len().max(1) as f64;
    let (mut moving, mut stride_bytes, mut lines) = (0.0, 0.0, 0.0);
    for a in &accesses {
        let s = a.strides[running];
        if s == 0.0 {
            f[1] += 1.0 / n;
            continue;
        }
        moving += 1.0;
        if s <= 1.0 || (a.lanes > 1.0 && s <= a.lanes) {
            f[2] += 1.0 / n;
        } else {
            f[3] += 1.0 / n;
        }
        stride_bytes += (1.0 + s * a.element_bytes).log2();
        lines += (s * a.element_bytes)
            .max(a.lanes * a.element_bytes)
            .min(CACHE_LINE)
            / CACHE_LINE;
    }
    if moving > 0.0 {
        f[4] = stride_bytes / moving;
    }
    f[5] = lines;
    if let Some(v) = loops.iter().position(|l| l.vectorize > 1) {
        let width = loops[v].vectorize as f64;
        let clean = accesses.iter().all(|a| a.strides[v] <= 1.0);
        f[if clean { 6 } else { 7 }] = width.log2();
        let vector_trip = loops[v].trip;
        f[8] = if vector_trip < width {
            1.0
        } else {
            (vector_trip % width) / vector_trip
        };
    }
    f[9] = loops
        .iter()
        .map(|l| (l.unroll.max(1) as f64).min(l.trip).max(1.0).log2())
        .fold(0.0, f64::max);
    // Iterations of loop k per body execution: 1 / (trips of the loops inside it).
    let mut inside = 1.0;
    let mut overhead = 0.0;
    for l in loops {
        overhead += 1.0 / inside;
        inside *= l.trip;
    }
    f[10] = overhead.max(1.0).log2();
    let mut entries = 0.0;
    let mut outside: Vec<f64> = loops
        .iter()
        .rev()
        .scan(1.0, |product, l| {
            let before = *product;
            *product *= l.trip;
            Some(before)
        })
        .collect();
    outside.reverse();
    for (l, out) in loops.iter().zip(&outside) {
        if l.parallel {
            entries += out;
        }
    }
    f[11] = (1.0 + entries).log2();
    if let Some(outer) = loops.iter().rposition(|l| l.parallel) {
        f[12] = loops[..outer]
            .iter()
            .map(|l| l.trip)
            .product::<f64>()
            .log2();
    }
    f[13] = loops.iter().filter(|l| l.guarded).count() as f64;
    f[14] = band_reuse(&accesses, loops, running, L1_BYTES);
    f[15] = band_reuse(&accesses, loops, running, L2_BYTES);
    f[16] = running as f64;
    let runs: Vec<f64> = accesses
        .iter()
        .filter(|a| a.strides.iter().any(|&s| s != 0.0))
        .map(|a| (a.contiguous_run(loops) * a.element_bytes).log2())
        .collect();
    if !runs.is_empty() {
        f[17] = runs.iter().sum::<f64>() / runs.len() as f64;
        f[18] = runs.iter().copied().fold(f64::INFINITY, f64::min);
    }
    // SIMD use: the share of arithmetic that runs on vectors (explicit vector values, or
    // scalars in a loop the backend vectorizes) and the lanes per arithmetic instruction.
    let annotated = loops.first().map_or(1, |l| l.vectorize.max(1)) as f64;
    let (mut arithmetic, mut vector, mut lanes) = (0.0, 0.0, 0.0);
    for op in ctx.block_ops(block) {
        let name = ctx.op_name(op);
        if !(name.starts_with("arith.") || name.starts_with("math.") || name == loop_::FMA)
            || name == "arith.constant"
        {
            continue;
        }
        let width = ctx
            .op(op)
            .results
            .first()
            .map_or(1.0, |&r| super::lanes(ctx, r));
        let effective = if width > 1.0 { width } else { annotated };
        arithmetic += 1.0;
        lanes += effective;
        if effective > 1.0 {
            vector += 1.0;
        }
    }
    if arithmetic > 0.0 {
        f[19] = vector / arithmetic;
        f[20] = (lanes / arithmetic).log2();
    }
    (f, executions * body_ops)
}

fn is_access(name: &str) -> bool {
    name == loop_::LOAD
        || name == loop_::STORE
        || name == loop_::VECTOR_LOAD
        || name == loop_::VECTOR_STORE
}

/// Body executions per cache line of the deepest band of innermost loops (from the
/// running loop out) whose accesses touch at most `capacity` bytes.
fn band_reuse(accesses: &[Strided], loops: &[Enclosing], running: usize, capacity: f64) -> f64 {
    let mut best = 0.0;
    for depth in running + 1..=loops.len() {
        let (mut bytes, mut lines) = (0.0, 0.0);
        for a in accesses {
            let elements = a.elements_within(loops, depth);
            bytes += elements * a.element_bytes;
            // A walk along the running loop with a unit stride shares lines; otherwise
            // each element is taken to cost a line of its own.
            let s = a.strides[running];
            lines += if s <= 1.0 || (a.lanes > 1.0 && s <= a.lanes) {
                (elements * a.element_bytes / CACHE_LINE).ceil()
            } else {
                elements
            };
        }
        if depth > running + 1 && bytes > capacity {
            break;
        }
        let work: f64 = loops[..depth].iter().map(|l| l.trip).product();
        best = (work / lines.max(1.0)).log2().max(0.0);
    }
    best
}

/// An access with its strides along the loops around it.
pub(super) fn strided(ctx: &Context, op: OpId, loops: &[Enclosing]) -> Option<Strided> {
    let operands = &ctx.op(op).operands;
    let (memref, indices) = memref_and_indices(ctx, op)?;
    let shape: Vec<i64> = ctx
        .type_kind(ctx.value_type(memref))
        .shape()
        .map(|s| s.to_vec())
        .unwrap_or_default();
    // Row-major strides of the buffer's dimensions, in elements.
    let mut layout = vec![1.0; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        layout[d] = layout[d + 1] * shape[d + 1].max(1) as f64;
    }
    let map = loop_::access_map(ctx, op);
    let origins: HashMap<Value, &[(Value, i64)]> = loops
        .iter()
        .flat_map(|l| l.origins.iter().map(|(v, t)| (*v, t.as_slice())))
        .collect();
    let strides = loops
        .iter()
        .map(|l| {
            let Some(&iv) = l.ivs.last() else {
                return 0.0;
            };
            let moves: Vec<f64> = indices
                .iter()
                .map(|&v| movement(ctx, v, iv, &origins, 6))
                .collect();
            let mut stride = 0.0;
            match &map {
                Some(m) => {
                    for (d, result) in m.results.iter().enumerate() {
                        let scale = layout.get(d).copied().unwrap_or(1.0);
                        for (p, &mv) in moves.iter().enumerate() {
                            if mv != 0.0 {
                                stride += scale * mv * coefficient(result, p as u32);
                            }
                        }
                    }
                }
                None => {
                    for (d, &mv) in moves.iter().enumerate() {
                        stride += layout.get(d).copied().unwrap_or(1.0) * mv;
                    }
                }
            }
            stride.abs() * l.step as f64
        })
        .collect();
    let lanes = access_lanes(ctx, op, operands);
    let element = element_bytes(ctx, memref);
    let capacity = shape.iter().map(|&d| d.max(0) as f64).product::<f64>();
    Some(Strided {
        element_bytes: element,
        lanes,
        strides,
        capacity,
    })
}

/// How far index value `v` moves when induction variable `iv` steps by one: 1 for `iv`
/// itself; through a loop's lower bound for an inner loop's variable (a tile's loop starts
/// where the outer one is); 1 for a value computed from one that moves.
fn movement(
    ctx: &Context,
    v: Value,
    iv: Value,
    origins: &HashMap<Value, &[(Value, i64)]>,
    depth: usize,
) -> f64 {
    if v == iv {
        return 1.0;
    }
    if depth == 0 {
        return 0.0;
    }
    if let Some(terms) = origins.get(&v) {
        return terms
            .iter()
            .map(|&(u, c)| c as f64 * movement(ctx, u, iv, origins, depth - 1))
            .sum();
    }
    match ctx.value(v).def {
        ValueDef::Result { op, .. } => ctx
            .op(op)
            .operands
            .iter()
            .map(|&u| movement(ctx, u, iv, origins, depth - 1))
            .fold(0.0, f64::max),
        _ => 0.0,
    }
}

/// The coefficient of `d<position>` in `result` (1 where it occurs other than linearly).
fn coefficient(result: &AffineExpr, position: u32) -> f64 {
    match result.linear_form() {
        Some(linear) if linear.is_pure_affine() => {
            linear.coefficient(&AffineExpr::Dim(position)) as f64
        }
        _ if result.is_function_of_dim(position) => 1.0,
        _ => 0.0,
    }
}
