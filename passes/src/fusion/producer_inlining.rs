//! Elementwise producer nests inlined into the nest that reads their buffer: vertical
//! fusion by map composition, on scheduled loops. A convolution kernel's copy of its
//! channels-last sums into the result layout (with bias and activation) feeds the next
//! layer's padded staging; the head merge after attention feeds the next matmul's
//! packing. Each such producer writes a whole buffer that one following nest reads about
//! once per element, so computing the element where it is read removes a pass over
//! memory and a kernel.
//!
//! A producer qualifies when it is a perfect nest without loop-carried values whose
//! innermost body stores one value into a `loop.alloc` buffer at the loop indices (each
//! induction variable indexes one dimension, the other dimensions have size 1) and covers
//! every element (lower bounds 0, steps 1, upper bounds the buffer's sizes), and the
//! value is computed from scalar loads and pure ops, the induction variables appearing
//! only in load indices. The reader is the next nest in the block (only allocations,
//! deallocations and pure ops between), reads the buffer only through scalar loads of
//! its element type, and writes nothing the producer reads. Each load then becomes the
//! producer's computation with the indices composed: the producer's induction variable
//! that indexes dimension `d` is replaced by the load's index expression for `d`.
//!
//! Inlining recomputes the element at every read, so it is refused when the reads the
//! consumer's loops execute exceed `max_reads_per_element` times the buffer's elements,
//! when a vectorized producer computes a `math` function (a transcendental) that the
//! reader would then compute one element at a time, and when the reader's innermost loop
//! would step through the producer's inputs by more elements than through the buffer (a
//! channels-last copy read by a padded, channels-first staging nest: the copy's own loop
//! order keeps a row in cache, the staging's would touch a new cache line per element).

use std::collections::{BTreeMap, HashMap, HashSet};

use tb_dialects::loop_;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::rewrite::folder::constant_value;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, BlockId, Context, OpId, TypeKind, Value};

use super::nest_access::{BufferKey, buffer_key, nest_accesses};
use crate::schedule::build::At;

/// The knob of producer inlining.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineLimits {
    /// The most reads of the producer's buffer the consumer may execute, per element of
    /// the buffer (each read recomputes the element); 0 turns inlining off.
    pub max_reads_per_element: i64,
}

impl Default for InlineLimits {
    fn default() -> Self {
        InlineLimits {
            max_reads_per_element: 1,
        }
    }
}

/// What producer inlining did in one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineReport {
    pub inlined: u64,
    /// Refusals of producers whose buffer the next nest reads, by reason.
    pub refusals: BTreeMap<&'static str, u64>,
    /// For remarks: the producer, its reader and why it stays.
    pub refused_pairs: Vec<(OpId, OpId, String)>,
}

/// An elementwise producer nest (see the module documentation).
struct Producer {
    nest: OpId,
    alloc: OpId,
    buffer: Value,
    /// The buffer dimension each induction variable indexes.
    iv_dims: HashMap<Value, usize>,
    /// The ops computing the stored value, in order.
    slice: Vec<OpId>,
    value: Value,
    vectorized: bool,
    computes_math: bool,
    elements: i64,
}

/// Inlines the qualifying producers of `block` (in order, so chains collapse).
pub fn inline_producers_in_block(
    ctx: &mut Context,
    block: BlockId,
    limits: &InlineLimits,
    report: &mut InlineReport,
) {
    if limits.max_reads_per_element <= 0 {
        return;
    }
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    for op in ops {
        if ctx.op(op).erased || !loop_::is_loop(ctx, op) {
            continue;
        }
        let Some(producer) = producer(ctx, op) else {
            continue;
        };
        let Some(consumer) = next_nest(ctx, op) else {
            continue;
        };
        let Some(loads) = reads_in(ctx, &producer, consumer) else {
            continue;
        };
        match check(ctx, &producer, consumer, &loads, limits) {
            Ok(()) => {
                inline(ctx, &producer, consumer, &loads);
                report.inlined += 1;
            }
            Err((key, why)) => {
                *report.refusals.entry(key).or_default() += 1;
                report.refused_pairs.push((op, consumer, why));
            }
        }
    }
}

/// `nest` as an elementwise producer, when it is one.
fn producer(ctx: &Context, nest: OpId) -> Option<Producer> {
    let mut ivs = Vec::new();
    let mut bounds = Vec::new();
    let mut vectorized = false;
    let mut current = nest;
    let body = loop {
        if !ctx.op(current).results.is_empty() || !loop_::inits(ctx, current).is_empty() {
            return None;
        }
        vectorized |= loop_::vector_width(ctx, current).is_some();
        for dim in loop_::loop_dims(ctx, current)? {
            let (lower, upper) = (dim.lower.constant()?, dim.upper.constant()?);
            if lower != 0 || dim.step != 1 {
                return None;
            }
            ivs.push(dim.induction_var);
            bounds.push(upper);
        }
        let body = loop_::body(ctx, current)?;
        let inner: Vec<OpId> = ctx
            .block_ops(body)
            .filter(|&o| ctx.op_name(o) != loop_::YIELD)
            .collect();
        match inner[..] {
            [only] if loop_::is_loop(ctx, only) => current = only,
            _ => break body,
        }
    };
    let stores: Vec<OpId> = ctx
        .block_ops(body)
        .filter(|&o| {
            !matches!(ctx.op_name(o), loop_::LOAD | loop_::YIELD) && !crate::is_pure(ctx, o)
        })
        .collect();
    let [store] = stores[..] else {
        return None;
    };
    if ctx.op_name(store) != loop_::STORE {
        return None;
    }
    let operands = &ctx.op(store).operands;
    let (value, buffer) = (operands[0], operands[1]);
    let alloc = ctx.defining_op(buffer)?;
    if ctx.op_name(alloc) != loop_::ALLOC
        || !ctx.op(alloc).operands.is_empty()
        || ctx.op(alloc).parent != ctx.op(nest).parent
    {
        return None;
    }
    let TypeKind::MemRef {
        shape,
        layout: None,
        ..
    } = ctx.type_kind(ctx.value_type(buffer))
    else {
        return None;
    };
    let iv_dims = stored_dims(ctx, store, &ivs, &bounds, shape)?;
    let elements = shape.iter().try_fold(1i64, |n, &d| n.checked_mul(d))?;
    let (slice, computes_math) = value_slice(ctx, body, value, &ivs, nest)?;
    Some(Producer {
        nest,
        alloc,
        buffer,
        iv_dims,
        slice,
        value,
        vectorized,
        computes_math,
        elements,
    })
}

/// For a store at the loop indices covering the whole buffer, the dimension each
/// induction variable indexes.
fn stored_dims(
    ctx: &Context,
    store: OpId,
    ivs: &[Value],
    bounds: &[i64],
    shape: &[i64],
) -> Option<HashMap<Value, usize>> {
    let map = loop_::access_map(ctx, store)?;
    let operands = &ctx.op(store).operands[2..];
    if operands.len() != map.num_inputs() as usize || map.results.len() != shape.len() {
        return None;
    }
    let inputs: Vec<AffineExpr> = operands
        .iter()
        .map(|&v| match ivs.iter().position(|&iv| iv == v) {
            Some(k) => Some(AffineExpr::dim(k as u32)),
            None => constant_index(ctx, v).map(AffineExpr::constant),
        })
        .collect::<Option<_>>()?;
    let (dims, symbols) = inputs.split_at(map.num_dims as usize);
    let mut iv_dims = HashMap::new();
    for (d, result) in map.results.iter().enumerate() {
        let index = result.replace_dims_and_symbols(dims, symbols).simplify();
        if let Some(k) = index.as_dim() {
            let k = k as usize;
            if bounds[k] != shape[d] || iv_dims.insert(ivs[k], d).is_some() {
                return None;
            }
        } else if index.as_constant() != Some(0) || shape[d] != 1 {
            return None;
        }
    }
    (iv_dims.len() == ivs.len()).then_some(iv_dims)
}

/// The ops of `body` that `value` depends on, in order, when they are scalar loads and
/// pure ops using the induction variables only as load indices and no other value of
/// the nest; and whether one of them is a `math` op.
fn value_slice(
    ctx: &Context,
    body: BlockId,
    value: Value,
    ivs: &[Value],
    nest: OpId,
) -> Option<(Vec<OpId>, bool)> {
    let mut needed: HashSet<OpId> = HashSet::new();
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        let Some(op) = ctx.defining_op(v) else {
            continue;
        };
        if ctx.op(op).parent != Some(body) || !needed.insert(op) {
            continue;
        }
        pending.extend(ctx.op(op).operands.iter().copied());
    }
    let slice: Vec<OpId> = ctx.block_ops(body).filter(|o| needed.contains(o)).collect();
    let mut computes_math = false;
    for &op in &slice {
        let is_load = ctx.op_name(op) == loop_::LOAD;
        if !is_load && !crate::is_pure(ctx, op) {
            return None;
        }
        computes_math |= ctx.op_name(op).starts_with("math.");
        for (i, &operand) in ctx.op(op).operands.iter().enumerate() {
            let from_slice = ctx
                .defining_op(operand)
                .is_some_and(|d| needed.contains(&d));
            let is_index = is_load && i >= 1 && ivs.contains(&operand);
            if !from_slice && !is_index && defined_in(ctx, operand, nest) {
                return None;
            }
        }
    }
    Some((slice, computes_math))
}

/// Whether `v` is defined inside `op` (by a nested op or as a nested block's argument).
fn defined_in(ctx: &Context, v: Value, op: OpId) -> bool {
    let mut parent = match ctx.value(v).def {
        ValueDef::Result { op: def, .. } => ctx.parent_op(def),
        ValueDef::BlockArgument { block, .. } => {
            ctx.block(block).parent.and_then(|r| ctx.region(r).parent)
        }
        ValueDef::Placeholder => None,
    };
    while let Some(p) = parent {
        if p == op {
            return true;
        }
        parent = ctx.parent_op(p);
    }
    false
}

/// The next loop nest after `nest` in its block, when only allocations, deallocations and
/// pure ops lie between.
fn next_nest(ctx: &Context, nest: OpId) -> Option<OpId> {
    let mut cursor = ctx.op(nest).next;
    while let Some(op) = cursor {
        if loop_::is_loop(ctx, op) {
            return Some(op);
        }
        if !matches!(ctx.op_name(op), loop_::ALLOC | loop_::DEALLOC) && !crate::is_pure(ctx, op) {
            return None;
        }
        cursor = ctx.op(op).next;
    }
    None
}

/// The consumer's loads of the producer's buffer, when it reads the buffer (the
/// producer's store, loads inside `consumer` and deallocations being its only uses).
fn reads_in(ctx: &Context, producer: &Producer, consumer: OpId) -> Option<Vec<OpId>> {
    let mut loads = Vec::new();
    let mut other_use = false;
    for u in &ctx.value(producer.buffer).uses {
        match ctx.op_name(u.op) {
            loop_::DEALLOC => {}
            loop_::STORE if u.index == 1 && ctx.is_inside(producer.nest, u.op) => {}
            loop_::LOAD if u.index == 0 && ctx.is_inside(consumer, u.op) => loads.push(u.op),
            _ => other_use = true,
        }
    }
    (!loads.is_empty() && !other_use).then_some(loads)
}

type Refusal = (&'static str, String);

/// Whether the producer may be computed at each of `loads` (see the module doc).
fn check(
    ctx: &Context,
    producer: &Producer,
    consumer: OpId,
    loads: &[OpId],
    limits: &InlineLimits,
) -> Result<(), Refusal> {
    let element = ctx.value_type(producer.value);
    if loads
        .iter()
        .any(|&l| ctx.value_type(ctx.op(l).results[0]) != element)
    {
        return Err(("effects", "the reader loads another type".into()));
    }
    let mut reads: i64 = 0;
    for &load in loads {
        let trips = enclosing_trips(ctx, load, consumer).ok_or((
            "recompute",
            "the reader's loop bounds are not constant".to_string(),
        ))?;
        reads = reads.saturating_add(trips);
    }
    if reads
        > producer
            .elements
            .saturating_mul(limits.max_reads_per_element)
    {
        return Err((
            "recompute",
            format!(
                "the reader reads the {} elements {reads} times (max-inline-reads-per-element={})",
                producer.elements, limits.max_reads_per_element
            ),
        ));
    }
    if producer.vectorized
        && producer.computes_math
        && loads.iter().any(|&l| !in_vectorized_loop(ctx, l, consumer))
    {
        return Err((
            "vectorization",
            "the vectorized producer computes a math function the reader would compute one element at a time".into(),
        ));
    }
    for &load in loads {
        match keeps_locality(ctx, producer, load, consumer) {
            Some(true) => {}
            Some(false) => {
                return Err((
                    "locality",
                    "the reader would read the producer's inputs across cache lines where it reads the buffer along them".into(),
                ));
            }
            None => {
                return Err(("locality", "a buffer's shape is not static".into()));
            }
        }
    }
    let mut symbols = HashMap::new();
    let written = nest_accesses(ctx, consumer, &mut symbols).map_err(|e| ("effects", e))?;
    let read_keys: Vec<BufferKey> = producer
        .slice
        .iter()
        .filter(|&&op| ctx.op_name(op) == loop_::LOAD)
        .map(|&op| buffer_key(ctx, ctx.op(op).operands[0]).1)
        .collect();
    for access in written.accesses.iter().filter(|a| a.write) {
        if read_keys.contains(&access.key)
            || (access.key == BufferKey::External && read_keys.contains(&BufferKey::External))
        {
            return Err((
                "effects",
                "the reader writes a buffer the producer reads".into(),
            ));
        }
    }
    Ok(())
}

/// The iterations the loops around `op`, up to and including `outer`, execute: the
/// product of their trip counts, when each is constant.
fn enclosing_trips(ctx: &Context, op: OpId, outer: OpId) -> Option<i64> {
    let mut trips: i64 = 1;
    let mut parent = ctx.parent_op(op);
    while let Some(p) = parent {
        if loop_::is_loop(ctx, p) {
            for dim in loop_::loop_dims(ctx, p)? {
                trips = trips.checked_mul(dim_trips(&dim)?)?;
            }
        }
        if p == outer {
            return Some(trips);
        }
        parent = ctx.parent_op(p);
    }
    None
}

/// A dimension's trip count when its bounds are constants or differ by a constant.
fn dim_trips(dim: &loop_::LoopDim) -> Option<i64> {
    if let Some(n) = dim.constant_trip_count() {
        return Some(n);
    }
    let ([lower], [upper]) = (&dim.lower.map.results[..], &dim.upper.map.results[..]) else {
        return None;
    };
    if dim.lower.operands != dim.upper.operands
        || dim.lower.map.num_dims != dim.upper.map.num_dims
        || dim.lower.map.num_symbols != dim.upper.map.num_symbols
        || dim.step <= 0
    {
        return None;
    }
    let span = (upper.clone() - lower.clone()).simplify().as_constant()?;
    Some(if span <= 0 {
        0
    } else {
        (span + dim.step - 1) / dim.step
    })
}

fn in_vectorized_loop(ctx: &Context, op: OpId, outer: OpId) -> bool {
    let mut parent = ctx.parent_op(op);
    while let Some(p) = parent {
        if loop_::vector_width(ctx, p).is_some() {
            return true;
        }
        if p == outer {
            return false;
        }
        parent = ctx.parent_op(p);
    }
    false
}

/// Replaces each load by the producer's computation at its indices, then removes the
/// producer and its buffer; deallocations between the nests move after the consumer.
fn inline(ctx: &mut Context, producer: &Producer, consumer: OpId, loads: &[OpId]) {
    for &load in loads {
        let value = compute_at(ctx, producer, load);
        let result = ctx.op(load).results[0];
        ctx.replace_all_uses(result, value);
        ctx.erase_op(load);
    }
    let crossed = super::nest_fusion::deallocs_between(ctx, producer.nest, consumer);
    super::nest_fusion::move_after(ctx, &crossed, consumer);
    let buffer_uses: Vec<OpId> = ctx
        .value(producer.buffer)
        .uses
        .iter()
        .map(|u| u.op)
        .collect();
    ctx.erase_op(producer.nest);
    for op in buffer_uses {
        if !ctx.op(op).erased && ctx.op_name(op) == loop_::DEALLOC {
            ctx.erase_op(op);
        }
    }
    ctx.erase_op(producer.alloc);
}

/// The index of each buffer dimension that `load` reads, over its index operands as dims.
fn read_indices(ctx: &Context, load: OpId) -> Vec<AffineExpr> {
    let map = loop_::access_map(ctx, load).expect("a loop.load has a map");
    let count = ctx.op(load).operands.len() as u32 - 1;
    let as_dims: Vec<AffineExpr> = (0..count).map(AffineExpr::dim).collect();
    let (dims, symbols) = as_dims.split_at(map.num_dims as usize);
    map.results
        .iter()
        .map(|r| r.replace_dims_and_symbols(dims, symbols))
        .collect()
}

/// The producer's load `source` re-indexed for a reader whose load has `operands` index
/// operands and reads `read_at` (per buffer dimension, over those operands): the composed
/// map, over the reader's operands followed by the source's other index operands, and
/// those other operands.
fn composed_access(
    ctx: &Context,
    producer: &Producer,
    source: OpId,
    read_at: &[AffineExpr],
    operands: usize,
) -> (AffineMap, Vec<Value>) {
    let source_map = loop_::access_map(ctx, source).expect("a loop.load has a map");
    let mut extra = Vec::new();
    let inputs: Vec<AffineExpr> = ctx.op(source).operands[1..]
        .iter()
        .map(|v| match producer.iv_dims.get(v) {
            Some(&d) => read_at[d].clone(),
            None => {
                extra.push(*v);
                AffineExpr::dim((operands + extra.len() - 1) as u32)
            }
        })
        .collect();
    let (dims, symbols) = inputs.split_at(source_map.num_dims as usize);
    let results = source_map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(dims, symbols).simplify())
        .collect();
    let map = AffineMap::new((operands + extra.len()) as u32, 0, results);
    (map, extra)
}

/// Clones the producer's computation before `load`, its loads indexed through the
/// load's indices; returns the computed value.
fn compute_at(ctx: &mut Context, producer: &Producer, load: OpId) -> Value {
    let at = At {
        before: load,
        loc: ctx.op(load).loc,
    };
    let index_operands: Vec<Value> = ctx.op(load).operands[1..].to_vec();
    let read_at = read_indices(ctx, load);
    let mut mapping: HashMap<Value, Value> = HashMap::new();
    for &op in &producer.slice {
        if ctx.op_name(op) == loop_::LOAD {
            let (composed, extra) =
                composed_access(ctx, producer, op, &read_at, index_operands.len());
            let mut operands = index_operands.clone();
            operands.extend(extra.iter().map(|v| *mapping.get(v).unwrap_or(v)));
            let source = ctx.op(op).operands[0];
            let memref = *mapping.get(&source).unwrap_or(&source);
            let ty = ctx.value_type(ctx.op(op).results[0]);
            let new = at.load(ctx, false, memref, composed, &operands, ty);
            mapping.insert(ctx.op(op).results[0], new);
        } else {
            let copy = ctx.clone_op(op, &mut mapping);
            ctx.insert_op_before(load, copy);
        }
    }
    *mapping.get(&producer.value).unwrap_or(&producer.value)
}

/// Whether the producer's loads, computed at `load`, step through memory no wider than
/// `load` itself along the reader's innermost loop (or by one element): a reader that
/// walks the buffer along rows must not walk the producer's inputs down columns, where
/// every read touches another cache line. `None` when a shape is not static.
fn keeps_locality(ctx: &Context, producer: &Producer, load: OpId, consumer: OpId) -> Option<bool> {
    let Some((iv, step)) = innermost_iv(ctx, load, consumer) else {
        return Some(true);
    };
    let operands = &ctx.op(load).operands[1..];
    let probe = |values: &[Value]| -> Vec<i64> {
        values
            .iter()
            .map(|&v| if v == iv { step } else { 0 })
            .collect()
    };
    let read_at = read_indices(ctx, load);
    let own = linear_stride(ctx, ctx.op(load).operands[0], &read_at, &probe(operands))?;
    for &op in producer
        .slice
        .iter()
        .filter(|&&o| ctx.op_name(o) == loop_::LOAD)
    {
        let (map, extra) = composed_access(ctx, producer, op, &read_at, operands.len());
        let mut values = operands.to_vec();
        values.extend(extra);
        let stride = linear_stride(ctx, ctx.op(op).operands[0], &map.results, &probe(&values))?;
        if stride.abs() > own.abs().max(1) {
            return Some(false);
        }
    }
    Some(true)
}

/// The induction variable of the loop closest around `op` inside `outer` (the last one
/// of a `loop.parallel`), with its step.
fn innermost_iv(ctx: &Context, op: OpId, outer: OpId) -> Option<(Value, i64)> {
    let mut parent = ctx.parent_op(op);
    while let Some(p) = parent {
        if loop_::is_loop(ctx, p) {
            let dim = loop_::loop_dims(ctx, p)?.pop()?;
            return Some((dim.induction_var, dim.step));
        }
        if p == outer {
            return None;
        }
        parent = ctx.parent_op(p);
    }
    None
}

/// How far, in elements of `memref`'s row-major layout, the element at `indices` moves
/// when the dims take `probe` instead of all zeros.
fn linear_stride(
    ctx: &Context,
    memref: Value,
    indices: &[AffineExpr],
    probe: &[i64],
) -> Option<i64> {
    let TypeKind::MemRef {
        shape,
        layout: None,
        ..
    } = ctx.type_kind(ctx.value_type(memref))
    else {
        return None;
    };
    if shape.len() != indices.len() || shape.iter().any(|&d| d < 0) {
        return None;
    }
    let zeros = vec![0; probe.len()];
    let mut stride: i64 = 0;
    let mut row: i64 = 1;
    for (index, &size) in indices.iter().zip(shape).rev() {
        let moved = index.evaluate(probe, &[])? - index.evaluate(&zeros, &[])?;
        stride = stride.checked_add(moved.checked_mul(row)?)?;
        row = row.checked_mul(size)?;
    }
    Some(stride)
}

fn constant_index(ctx: &Context, v: Value) -> Option<i64> {
    let op = ctx.defining_op(v)?;
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}
