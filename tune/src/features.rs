//! Loop features of a scheduled task, in the style of AutoTVM and Ansor: what the code
//! does per iteration, weighted by how many times it runs, and how it touches memory.
//!
//! The scheduled task (the task module after its candidate's transformation, before buffer
//! planning) is walked statement by statement: a *statement* is a block that loads, stores
//! or computes. Each statement's features are computed with its weight `W`, the product of
//! the trip counts of the loops around it; the statements' features are summed, then every
//! value is log-scaled as `log2(1 + x)`. The decision's own numbers follow
//! ([`crate::space::Space::decision_features`]).
//!
//! | index | feature |
//! |---|---|
//! | 0 | float add/sub operations × lanes × W |
//! | 1 | float multiplications × lanes × W |
//! | 2 | fused multiply-adds × lanes × W |
//! | 3 | divisions and remainders × lanes × W |
//! | 4 | math functions (exp, log, tanh, ...) × lanes × W |
//! | 5 | compares, selects, min/max × lanes × W |
//! | 6 | integer and index arithmetic × W |
//! | 7 | floating-point operations (an FMA counts two) |
//! | 8, 9 | scalar loads, stores × W |
//! | 10, 11 | vector loads, stores × W |
//! | 12 | broadcasts × W |
//! | 13 | loop depth of the statement |
//! | 14 | W, the iterations the statement runs |
//! | 15 | trip count of the innermost loop around it |
//! | 16 | parallel loops around it |
//! | 17 | iterations of those parallel loops (the work threads share) |
//! | 18 | `vectorize` width annotated on loops around it |
//! | 19 | `unroll` factor annotated on loops around it |
//! | 20 + 5b .. 24 + 5b | buffer `b` (b = 0, 1, 2, by bytes touched): bytes touched, unique bytes, cache lines, reuse (bytes / unique bytes), 1 if the innermost loop walks it contiguously |
//! | 35 | arithmetic intensity: flops / bytes touched |
//! | 36 .. 39 | arithmetic-intensity curve: flops / unique bytes within the innermost 1, 2, 3 and 4 loops |
//! | 40 | buffers the task allocates |
//! | 41 | bytes it allocates in all |
//! | 42 | bytes of its largest allocation |
//! | 43 .. 63 | how the innermost loops run: strides, contiguous runs, vectorization, overhead, reuse ([`innermost`]; averages over the statements, not log-scaled again) |
//! | 64 .. 87 | the decision ([`crate::space::DECISION_FEATURES`] numbers: [`crate::space::schedule_features`] for `#loop.schedule` nests) |
//!
//! A loop whose bounds are not constants (a tile's loop) counts the iterations of a full
//! tile.
//!
//! The amounts that grow with the task's size (operation and access counts, iterations of
//! parallel loops, bytes and cache lines, allocations: indices [`PER_WORK`]) are divided by
//! the task's floating-point operations (its iterations where it has none) before they are
//! log-scaled, so a ranker trained on some tasks compares candidates of a task of another
//! size by the same measures: loads per flop, not loads.

use std::collections::HashSet;

use tb_dialects::loop_;
use tb_ir::affine::AffineExpr;
use tb_ir::printer::type_to_string;
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, OpId, TypeKind, Value};

use crate::space::DECISION_FEATURES;

mod innermost;

pub use innermost::INNERMOST_FEATURES;

/// Bumped whenever the features change meaning: saved models record it.
pub const FEATURE_SCHEMA_VERSION: u32 = 3;

/// Loop features summed over statements (indices 0..43 of the table).
pub const SUMMED_FEATURES: usize = 43;

/// Features per task program: summed and innermost-loop ones (indices 0..64).
pub const PROGRAM_FEATURES: usize = SUMMED_FEATURES + INNERMOST_FEATURES;

/// All features of a candidate: program and decision.
pub const FEATURE_COUNT: usize = PROGRAM_FEATURES + DECISION_FEATURES;

/// The summed features divided by the task's work (see the module comment).
pub const PER_WORK: [usize; 24] = [
    0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 41, 42,
];

const BUFFER_SLOTS: usize = 3;
const CACHE_LINE: f64 = 64.0;

fn log_scale(x: f64) -> f64 {
    (1.0 + x.max(0.0)).log2()
}

/// The features of a scheduled task module and its decision's numbers.
pub fn features(ctx: &Context, module: OpId, decision: &[f64]) -> Vec<f64> {
    let mut sums = vec![0.0; SUMMED_FEATURES];
    let mut blocks: Vec<BlockId> = Vec::new();
    let mut allocs: Vec<f64> = Vec::new();
    ctx.walk_nested(module, &mut |op| {
        let name = ctx.op_name(op);
        if name == loop_::ALLOC {
            let bytes = ctx
                .op(op)
                .results
                .first()
                .map_or(0.0, |&r| buffer_bytes(ctx, r));
            allocs.push(bytes);
        }
        if is_statement_op(name)
            && let Some(b) = ctx.op(op).parent
            && !blocks.contains(&b)
        {
            blocks.push(b);
        }
    });
    let mut innermost = [0.0; INNERMOST_FEATURES];
    let mut innermost_weight = 0.0;
    for block in blocks {
        let loops = enclosing_loops(ctx, block);
        let f = statement(ctx, block, &loops);
        for (s, v) in sums.iter_mut().zip(f) {
            *s += v;
        }
        let (f, weight) = innermost::statement(ctx, block, &loops);
        for (s, v) in innermost.iter_mut().zip(f) {
            *s += weight * v;
        }
        innermost_weight += weight;
    }
    sums[40] = allocs.len() as f64;
    sums[41] = allocs.iter().sum();
    sums[42] = allocs.iter().copied().fold(0.0, f64::max);
    let mut out: Vec<f64> = sums.iter().copied().map(log_scale).collect();
    let work = if sums[7] > 0.0 { sums[7] } else { sums[14] };
    for i in PER_WORK {
        out[i] = log_scale(sums[i] / work.max(1.0));
    }
    out.extend(innermost.iter().map(|v| v / innermost_weight.max(1e-300)));
    out.extend(decision.iter().copied());
    out.resize(FEATURE_COUNT, 0.0);
    out
}

fn is_statement_op(name: &str) -> bool {
    name.starts_with("arith.")
        || name.starts_with("math.")
        || name == loop_::LOAD
        || name == loop_::STORE
        || name == loop_::VECTOR_LOAD
        || name == loop_::VECTOR_STORE
        || name == loop_::FMA
        || name == loop_::BROADCAST
}

/// A loop around a statement, innermost first.
struct Enclosing {
    trip: f64,
    ivs: Vec<Value>,
    /// Its step along its last (fastest) induction variable.
    step: i64,
    /// Each induction variable's lower bound as `Σ coefficient * value` where it is linear
    /// (a tile's loop starts at the outer tile loop's variable), so an access indexed by an
    /// inner variable is known to move with the outer one too.
    origins: Vec<(Value, Vec<(Value, i64)>)>,
    /// Whether an upper bound is a `min` (a partial tile is guarded).
    guarded: bool,
    parallel: bool,
    vectorize: i64,
    unroll: i64,
}

fn enclosing_loops(ctx: &Context, block: BlockId) -> Vec<Enclosing> {
    let mut out = Vec::new();
    let mut owner = ctx.block(block).parent.and_then(|r| ctx.region(r).parent);
    while let Some(op) = owner {
        if loop_::is_loop(ctx, op) {
            let dims = loop_::loop_dims(ctx, op).unwrap_or_default();
            let trip: f64 = dims
                .iter()
                .map(|d| {
                    d.constant_trip_count()
                        .map_or_else(|| estimate_trip(d), |t| t as f64)
                })
                .product();
            let origins = dims
                .iter()
                .filter_map(|d| match d.lower.map.results.as_slice() {
                    [only] => bound_terms(&d.lower, only).map(|(t, _)| (d.induction_var, t)),
                    _ => None,
                })
                .collect();
            out.push(Enclosing {
                trip: trip.max(1.0),
                ivs: loop_::induction_vars(ctx, op),
                step: dims.last().map_or(1, |d| d.step.max(1)),
                origins,
                guarded: dims.iter().any(|d| d.upper.map.results.len() > 1),
                parallel: ctx.op_name(op) == loop_::PARALLEL || loop_::is_parallel(ctx, op),
                vectorize: loop_::vector_width(ctx, op).unwrap_or(1),
                unroll: loop_::unroll_factor(ctx, op).unwrap_or(1),
            });
        }
        owner = ctx.parent_op(op);
    }
    out
}

/// A loop whose bounds are not both constants. A tile's loop runs from an outer induction
/// variable to `min(extent, that variable + tile)`: its trip count is the smallest constant
/// difference between an upper and the lower bound (a full tile), over its step. Without
/// one, the largest constant upper bound over the step, else 1.
fn estimate_trip(d: &loop_::LoopDim) -> f64 {
    let step = d.step.max(1) as f64;
    let lower = match d.lower.map.results.as_slice() {
        [only] => bound_terms(&d.lower, only),
        _ => None,
    };
    let tile = lower.and_then(|(lower_terms, lower_constant)| {
        d.upper
            .map
            .results
            .iter()
            .filter_map(|r| bound_terms(&d.upper, r))
            .filter(|(terms, _)| *terms == lower_terms)
            .map(|(_, constant)| constant - lower_constant)
            .min()
    });
    if let Some(span) = tile {
        return (span as f64 / step).ceil().max(1.0);
    }
    let upper = d
        .upper
        .map
        .results
        .iter()
        .filter_map(|r| r.as_constant())
        .max()
        .unwrap_or(1);
    (upper as f64 / step).max(1.0)
}

/// A bound's result as `constant + Σ coefficient * operand`, its terms sorted by operand;
/// `None` when it is not linear in the bound's operands.
fn bound_terms(bound: &loop_::Bound, result: &AffineExpr) -> Option<(Vec<(Value, i64)>, i64)> {
    let linear = result.linear_form()?;
    let dims = bound.map.num_dims as usize;
    let mut terms: Vec<(Value, i64)> = Vec::new();
    for (atom, coefficient) in linear.terms() {
        let operand = match atom {
            AffineExpr::Dim(i) => *bound.operands.get(*i as usize)?,
            AffineExpr::Symbol(i) => *bound.operands.get(dims + *i as usize)?,
            _ => return None,
        };
        match terms.iter_mut().find(|(v, _)| *v == operand) {
            Some(t) => t.1 += coefficient,
            None => terms.push((operand, coefficient)),
        }
    }
    terms.retain(|t| t.1 != 0);
    terms.sort();
    Some((terms, linear.constant_term()))
}

/// The lanes one access moves: its result's (a load) or its stored value's (a store,
/// the first operand).
fn access_lanes(ctx: &Context, op: OpId, operands: &[Value]) -> f64 {
    ctx.op(op)
        .results
        .first()
        .map(|&r| lanes(ctx, r))
        .unwrap_or_else(|| lanes(ctx, operands[0]))
}

fn lanes(ctx: &Context, v: Value) -> f64 {
    match ctx.type_kind(ctx.value_type(v)) {
        TypeKind::Vector { shape, .. } => shape.iter().product::<i64>().max(1) as f64,
        _ => 1.0,
    }
}

fn element_bytes(ctx: &Context, memref: Value) -> f64 {
    let element = ctx.type_kind(ctx.value_type(memref)).element();
    let name = element.map(|e| type_to_string(ctx, e)).unwrap_or_default();
    match name.as_str() {
        "f64" | "i64" | "index" => 8.0,
        "f16" | "bf16" | "i16" => 2.0,
        "i8" | "i1" => 1.0,
        _ => 4.0,
    }
}

fn buffer_bytes(ctx: &Context, memref: Value) -> f64 {
    let kind = ctx.type_kind(ctx.value_type(memref));
    let elements = kind.num_elements().unwrap_or(0).max(0) as f64;
    elements * element_bytes(ctx, memref)
}

/// The induction variables `v` is computed from (itself, or through a few defining ops).
fn iv_sources(
    ctx: &Context,
    v: Value,
    ivs: &HashSet<Value>,
    depth: usize,
    out: &mut HashSet<Value>,
) {
    if ivs.contains(&v) {
        out.insert(v);
        return;
    }
    if depth == 0 {
        return;
    }
    if let ValueDef::Result { op, .. } = ctx.value(v).def {
        for &operand in ctx.op(op).operands.iter() {
            iv_sources(ctx, operand, ivs, depth - 1, out);
        }
    }
}

/// One memory access of a statement.
struct Access {
    memref: Value,
    bytes: f64,
    unique_bytes: f64,
    /// Unique bytes within the innermost 1, 2, 3 and 4 loops.
    unique_within: [f64; 4],
    lines: f64,
    contiguous: bool,
}

/// The buffer a load or store accesses and its indices (the operands after it).
fn memref_and_indices(ctx: &Context, op: OpId) -> Option<(Value, &[Value])> {
    let operands = &ctx.op(op).operands;
    let position = operands
        .iter()
        .position(|&v| matches!(ctx.type_kind(ctx.value_type(v)), TypeKind::MemRef { .. }))?;
    Some((operands[position], &operands[position + 1..]))
}

fn access(ctx: &Context, op: OpId, loops: &[Enclosing], weight: f64) -> Option<Access> {
    let operands = &ctx.op(op).operands;
    let (memref, indices) = memref_and_indices(ctx, op)?;
    let width = access_lanes(ctx, op, operands);
    let eb = element_bytes(ctx, memref);
    let all_ivs: HashSet<Value> = loops.iter().flat_map(|l| l.ivs.iter().copied()).collect();
    let map = loop_::access_map(ctx, op);
    // Which index operands feed the last (contiguous) dimension of the buffer.
    let mut last_dim: HashSet<Value> = HashSet::new();
    for (p, &v) in indices.iter().enumerate() {
        let mut sources = HashSet::new();
        iv_sources(ctx, v, &all_ivs, 3, &mut sources);
        let feeds_last = match &map {
            Some(m) => m
                .results
                .last()
                .is_some_and(|r| r.is_function_of_dim(p as u32)),
            None => p + 1 == indices.len(),
        };
        if feeds_last {
            last_dim.extend(sources);
        }
    }
    // The loops it moves along, a tile loop's included (its variable reaches the index
    // through the inner loop's bounds).
    let strided = innermost::strided(ctx, op, loops)?;
    let unique_elements = strided.elements_within(loops, loops.len());
    let unique_within: [f64; 4] =
        std::array::from_fn(|k| strided.elements_within(loops, k + 1) * eb);
    let contiguous = loops
        .first()
        .is_some_and(|inner| inner.ivs.iter().any(|v| last_dim.contains(v)))
        || width > 1.0;
    let unique_bytes = unique_elements * eb;
    let lines = if contiguous {
        (unique_bytes / CACHE_LINE).ceil()
    } else {
        unique_elements
    };
    Some(Access {
        memref,
        bytes: weight * width * eb,
        unique_bytes,
        unique_within,
        lines,
        contiguous,
    })
}

fn statement(ctx: &Context, block: BlockId, loops: &[Enclosing]) -> Vec<f64> {
    let weight: f64 = loops.iter().map(|l| l.trip).product();
    let mut f = vec![0.0; SUMMED_FEATURES];
    let mut accesses: Vec<Access> = Vec::new();
    for op in ctx.block_ops(block) {
        let name = ctx.op_name(op);
        let width = ctx.op(op).results.first().map_or(1.0, |&r| lanes(ctx, r));
        let w = weight * width;
        let short = name.rsplit('.').next().unwrap_or(name);
        let float = name.starts_with("arith.") && short.ends_with('f');
        match (name, short) {
            (_, "addf" | "subf") => {
                f[0] += w;
                f[7] += w;
            }
            (_, "mulf") => {
                f[1] += w;
                f[7] += w;
            }
            (n, _) if n == loop_::FMA => {
                f[2] += w;
                f[7] += 2.0 * w;
            }
            (_, "divf" | "remf" | "divsi" | "divui" | "remsi" | "remui") => {
                f[3] += w;
                if float {
                    f[7] += w;
                }
            }
            (n, _) if n.starts_with("math.") => {
                f[4] += w;
                f[7] += w;
            }
            (_, "cmpf" | "cmpi" | "select" | "maximumf" | "minimumf" | "maxnumf" | "minnumf") => {
                f[5] += w
            }
            (n, _) if n.starts_with("arith.") && n != "arith.constant" => f[6] += weight,
            (n, _) if n == loop_::LOAD => f[8] += weight,
            (n, _) if n == loop_::STORE => f[9] += weight,
            (n, _) if n == loop_::VECTOR_LOAD => f[10] += weight,
            (n, _) if n == loop_::VECTOR_STORE => f[11] += weight,
            (n, _) if n == loop_::BROADCAST => f[12] += weight,
            _ => {}
        }
        if (name == loop_::LOAD
            || name == loop_::STORE
            || name == loop_::VECTOR_LOAD
            || name == loop_::VECTOR_STORE)
            && let Some(a) = access(ctx, op, loops, weight)
        {
            match accesses.iter_mut().find(|b| b.memref == a.memref) {
                Some(b) => {
                    b.bytes += a.bytes;
                    b.unique_bytes = b.unique_bytes.max(a.unique_bytes);
                    for (u, v) in b.unique_within.iter_mut().zip(a.unique_within) {
                        *u = u.max(v);
                    }
                    b.lines = b.lines.max(a.lines);
                    b.contiguous &= a.contiguous;
                }
                None => accesses.push(a),
            }
        }
    }
    f[13] = loops.len() as f64;
    f[14] = weight;
    f[15] = loops.first().map_or(1.0, |l| l.trip);
    f[16] = loops.iter().filter(|l| l.parallel).count() as f64;
    f[17] = loops
        .iter()
        .filter(|l| l.parallel)
        .map(|l| l.trip)
        .product();
    f[18] = loops.iter().map(|l| l.vectorize).max().unwrap_or(1) as f64;
    f[19] = loops.iter().map(|l| l.unroll).max().unwrap_or(1) as f64;
    accesses.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
    for (slot, a) in accesses.iter().take(BUFFER_SLOTS).enumerate() {
        let base = 20 + 5 * slot;
        f[base] = a.bytes;
        f[base + 1] = a.unique_bytes;
        f[base + 2] = a.lines;
        f[base + 3] = a.bytes / a.unique_bytes.max(1.0);
        f[base + 4] = if a.contiguous { 1.0 } else { 0.0 };
    }
    let bytes: f64 = accesses.iter().map(|a| a.bytes).sum();
    f[35] = f[7] / bytes.max(1.0);
    // Intensity within the innermost `levels` loops: the work of those loops over the
    // unique bytes they touch.
    for levels in 1..=4 {
        let inner: f64 = loops.iter().take(levels).map(|l| l.trip).product();
        let outer = (weight / inner.max(1.0)).max(1.0);
        let flops = f[7] / outer;
        let unique: f64 = accesses.iter().map(|a| a.unique_within[levels - 1]).sum();
        f[35 + levels] = flops / unique.max(1.0);
    }
    f
}
