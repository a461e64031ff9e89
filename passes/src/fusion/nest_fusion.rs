//! Fusion of sibling loop nests after scheduling: two nests that follow each other, whose
//! outermost loops have the same bounds, steps and threading, become one nest whose body
//! runs the first nest's body, then the second's. Layer norm's statistics and normalize,
//! softmax's max, exponentials and sum, or the bias adds of several projections then run
//! as one kernel: each row is produced and consumed while it is in cache, and the
//! threads are started once.
//!
//! Fusion is legal when every buffer that one nest writes and the other touches is split
//! by the outer loop: for each outer induction variable some dimension of the buffer is
//! indexed, in every access of both nests, by `a * iv + rest` with the same `a`, and the
//! values of `rest` span less than `a * step`. Then two iterations of the fused loop never
//! touch the same element, so every dependence between the nests stays inside one
//! iteration, where the first nest's part still runs first; a parallel loop stays
//! parallel. Buffers private to an iteration (allocated inside) are ignored.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use tb_dialects::loop_;
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, OpId, Value};

use super::buffer_contraction::contract_buffers;
use super::nest_access::{BufferKey, NestAccess, NestAccesses, nest_accesses, outer_stride};
use super::private_buffers::forward_private_buffers;
use super::producer_inlining::{InlineLimits, InlineReport, inline_producers_in_block};

/// The knobs of sibling-nest fusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestFusionLimits {
    /// A vectorized loop may lose its vectorization by fusion (its body then runs beside
    /// loops) only when it runs at most this many iterations; 0 never allows it.
    pub max_devectorized_trips: i64,
    /// Elementwise producers inlined into the nest that reads them
    /// ([`super::producer_inlining`]).
    pub inline: InlineLimits,
    /// Buffers a fused nest keeps apart by its outer loop become one small buffer per
    /// iteration ([`super::buffer_contraction`]).
    pub contract_buffers: bool,
}

impl Default for NestFusionLimits {
    fn default() -> Self {
        NestFusionLimits {
            max_devectorized_trips: 4096,
            inline: InlineLimits::default(),
            contract_buffers: true,
        }
    }
}

/// Why two neighbouring nests stay apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NestRefusal {
    /// Their outermost loops differ (bounds, steps, threading, unrolling, a schedule not
    /// yet applied, loop-carried values).
    Headers(String),
    /// Fusion would drop the vectorization of a long loop.
    Vectorization(i64),
    /// An op with effects the analysis cannot see through.
    Effects(String),
    /// A buffer that one writes and the other touches is not split by the outer loop (or
    /// may alias another).
    Dependence(String),
}

impl NestRefusal {
    /// A short key for statistics.
    pub fn key(&self) -> &'static str {
        match self {
            NestRefusal::Headers(_) => "headers",
            NestRefusal::Vectorization(_) => "vectorization",
            NestRefusal::Effects(_) => "effects",
            NestRefusal::Dependence(_) => "dependence",
        }
    }
}

impl fmt::Display for NestRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NestRefusal::Headers(why) => write!(f, "the outermost loops differ: {why}"),
            NestRefusal::Vectorization(trips) => write!(
                f,
                "fusing would drop the vectorization of a loop of {trips} iterations (max-devectorized-trips)"
            ),
            NestRefusal::Effects(why) => write!(f, "{why}"),
            NestRefusal::Dependence(why) => write!(f, "{why}"),
        }
    }
}

/// What fusing the nests of one function did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NestFusionReport {
    pub nests_before: u64,
    pub nests_after: u64,
    pub fused: u64,
    /// Buffers that only carried a value within one iteration, replaced by the value.
    pub forwarded_buffers: u64,
    /// Buffers of a nest replaced by one small buffer per outer iteration.
    pub contracted_buffers: u64,
    pub refusals: BTreeMap<&'static str, u64>,
    /// For remarks: the later nest, the earlier one and why they stay apart.
    pub refused_pairs: Vec<(OpId, OpId, NestRefusal)>,
    /// Elementwise producers inlined into their readers, and the refusals.
    pub inlining: InlineReport,
}

impl NestFusionReport {
    pub fn merge(&mut self, other: NestFusionReport) {
        self.nests_before += other.nests_before;
        self.nests_after += other.nests_after;
        self.fused += other.fused;
        self.forwarded_buffers += other.forwarded_buffers;
        self.contracted_buffers += other.contracted_buffers;
        for (k, n) in other.refusals {
            *self.refusals.entry(k).or_default() += n;
        }
        self.refused_pairs.extend(other.refused_pairs);
        self.inlining.inlined += other.inlining.inlined;
        for (k, n) in other.inlining.refusals {
            *self.inlining.refusals.entry(k).or_default() += n;
        }
        self.inlining
            .refused_pairs
            .extend(other.inlining.refused_pairs);
    }
}

/// Inlines elementwise producers into their readers and fuses sibling nests in every
/// block of `func` outside loops, then replaces the buffers that only carry a value
/// inside one iteration by that value.
pub fn fuse_nests_in_function(
    ctx: &mut Context,
    func: OpId,
    limits: &NestFusionLimits,
) -> NestFusionReport {
    let mut report = NestFusionReport::default();
    let mut blocks = Vec::new();
    collect_blocks(ctx, func, &mut blocks);
    for &block in &blocks {
        let inlined_before = report.inlining.inlined;
        inline_producers_in_block(ctx, block, &limits.inline, &mut report.inlining);
        // Inlined producers were nests too.
        report.nests_before += report.inlining.inlined - inlined_before;
        fuse_nests_in_block(ctx, block, limits, &mut report);
    }
    report.forwarded_buffers = forward_private_buffers(ctx, func);
    if limits.contract_buffers {
        report.contracted_buffers = contract_buffers(ctx, &blocks);
    }
    report
}

/// The blocks of `op`'s regions and of the non-loop ops nested in them.
fn collect_blocks(ctx: &Context, op: OpId, out: &mut Vec<BlockId>) {
    for &region in &ctx.op(op).regions {
        for &block in &ctx.region(region).blocks {
            out.push(block);
            for child in ctx.block_ops(block).collect::<Vec<_>>() {
                if !loop_::is_loop(ctx, child) {
                    collect_blocks(ctx, child, out);
                }
            }
        }
    }
}

/// Walks `block` in order, fusing each nest into the next one when it is legal and only
/// ops without effects, or deallocations, lie between them. A deallocation crossed by a
/// fused nest moves after it (freeing later is always safe).
fn fuse_nests_in_block(
    ctx: &mut Context,
    block: BlockId,
    limits: &NestFusionLimits,
    report: &mut NestFusionReport,
) {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let mut previous: Option<OpId> = None;
    for op in ops {
        if loop_::is_loop(ctx, op) {
            report.nests_before += 1;
            report.nests_after += 1;
            if let Some(first) = previous {
                match fusion_plan(ctx, first, op, limits) {
                    Ok(plan) => {
                        let crossed = deallocs_between(ctx, first, op);
                        merge_into(ctx, first, op, plan.keep_vectorize);
                        move_after(ctx, &crossed, op);
                        report.fused += 1;
                        report.nests_after -= 1;
                    }
                    Err(why) => {
                        *report.refusals.entry(why.key()).or_default() += 1;
                        report.refused_pairs.push((op, first, why));
                    }
                }
            }
            previous = Some(op);
        } else if !can_be_crossed(ctx, op) {
            previous = None;
        }
    }
}

/// Whether a nest may move past `op` (later in its block): `op` touches no memory, or
/// frees a buffer (the free then moves after the fused nest).
fn can_be_crossed(ctx: &Context, op: OpId) -> bool {
    matches!(ctx.op_name(op), loop_::ALLOC | loop_::DEALLOC) || crate::is_pure(ctx, op)
}

/// The deallocations between `first` and `second`, in order (including those an earlier
/// fusion moved there).
pub(super) fn deallocs_between(ctx: &Context, first: OpId, second: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut cursor = ctx.op(first).next;
    while let Some(op) = cursor {
        if op == second {
            break;
        }
        if ctx.op_name(op) == loop_::DEALLOC {
            out.push(op);
        }
        cursor = ctx.op(op).next;
    }
    out
}

/// Moves `ops` (in order) right after `anchor`.
pub(super) fn move_after(ctx: &mut Context, ops: &[OpId], anchor: OpId) {
    let mut after = anchor;
    for &op in ops {
        ctx.unlink_op(op);
        match ctx.op(after).next {
            Some(next) => ctx.insert_op_before(next, op),
            None => {
                let block = ctx.op(after).parent.expect("the anchor is in a block");
                ctx.append_op(block, op);
            }
        }
        after = op;
    }
}

struct FusionPlan {
    keep_vectorize: bool,
}

/// Whether `first` can be fused into `second` (which follows it), and how.
fn fusion_plan(
    ctx: &Context,
    first: OpId,
    second: OpId,
    limits: &NestFusionLimits,
) -> Result<FusionPlan, NestRefusal> {
    check_headers(ctx, first, second)?;
    let keep_vectorize = check_vectorization(ctx, first, second, limits)?;
    let mut symbols: HashMap<Value, u32> = HashMap::new();
    let a = nest_accesses(ctx, first, &mut symbols).map_err(NestRefusal::Effects)?;
    let b = nest_accesses(ctx, second, &mut symbols).map_err(NestRefusal::Effects)?;
    let steps: Vec<i64> = loop_::loop_dims(ctx, second)
        .map(|d| d.iter().map(|d| d.step).collect())
        .unwrap_or_default();
    check_dependences(ctx, &a, &b, &steps)?;
    Ok(FusionPlan { keep_vectorize })
}

fn check_headers(ctx: &Context, first: OpId, second: OpId) -> Result<(), NestRefusal> {
    let refuse = |why: &str| Err(NestRefusal::Headers(why.to_string()));
    if ctx.op_name(first) != ctx.op_name(second) {
        return refuse("a loop.for and a loop.parallel");
    }
    for nest in [first, second] {
        if !ctx.op(nest).results.is_empty() || !loop_::inits(ctx, nest).is_empty() {
            return refuse("a loop carries values");
        }
        if loop_::schedule(ctx, nest).is_some() {
            return refuse("a nest has a schedule not yet applied");
        }
    }
    let (Some(d1), Some(d2)) = (loop_::loop_dims(ctx, first), loop_::loop_dims(ctx, second)) else {
        return refuse("a loop is malformed");
    };
    if d1.len() != d2.len() {
        return refuse("different numbers of induction variables");
    }
    for (x, y) in d1.iter().zip(&d2) {
        if x.lower != y.lower || x.upper != y.upper {
            return refuse("different bounds");
        }
        if x.step != y.step {
            return refuse("different steps");
        }
    }
    if loop_::is_parallel(ctx, first) != loop_::is_parallel(ctx, second) {
        return refuse("one runs on threads, the other does not");
    }
    if loop_::unroll_factor(ctx, first) != loop_::unroll_factor(ctx, second) {
        return refuse("different unroll factors");
    }
    Ok(())
}

/// Whether the fused loop keeps a `vectorize` annotation: only when both loops are
/// innermost and vectorized alike. Otherwise a vectorized side loses it, which is allowed
/// for short loops only.
fn check_vectorization(
    ctx: &Context,
    first: OpId,
    second: OpId,
    limits: &NestFusionLimits,
) -> Result<bool, NestRefusal> {
    let (w1, w2) = (
        loop_::vector_width(ctx, first),
        loop_::vector_width(ctx, second),
    );
    if w1.is_none() && w2.is_none() {
        return Ok(false);
    }
    if w1 == w2 && is_innermost(ctx, first) && is_innermost(ctx, second) {
        return Ok(true);
    }
    for (nest, width) in [(first, w1), (second, w2)] {
        if width.is_some() {
            let trips = nest_trips(ctx, nest).unwrap_or(i64::MAX);
            if trips > limits.max_devectorized_trips {
                return Err(NestRefusal::Vectorization(trips));
            }
        }
    }
    Ok(false)
}

fn is_innermost(ctx: &Context, nest: OpId) -> bool {
    let mut inner = false;
    ctx.walk_nested(nest, &mut |op| inner |= loop_::is_loop(ctx, op));
    !inner
}

/// The iterations of a nest's outermost loop when its trip count is constant.
fn nest_trips(ctx: &Context, nest: OpId) -> Option<i64> {
    loop_::loop_dims(ctx, nest)?
        .iter()
        .try_fold(1i64, |n, d| n.checked_mul(d.constant_trip_count()?))
}

/// Every buffer written by one nest and accessed by the other must be split by the outer
/// loop (see the module documentation).
fn check_dependences(
    ctx: &Context,
    a: &NestAccesses,
    b: &NestAccesses,
    steps: &[i64],
) -> Result<(), NestRefusal> {
    let mut by_key: BTreeMap<&BufferKey, (Vec<&NestAccess>, Vec<&NestAccess>)> = BTreeMap::new();
    for access in &a.accesses {
        by_key.entry(&access.key).or_default().0.push(access);
    }
    for access in &b.accesses {
        by_key.entry(&access.key).or_default().1.push(access);
    }
    for (key, (in_a, in_b)) in by_key {
        if in_a.is_empty() || in_b.is_empty() {
            continue;
        }
        if !in_a.iter().chain(&in_b).any(|x| x.write) {
            continue;
        }
        let name = buffer_name(ctx, key, in_a[0].memref);
        let memref = in_a[0].memref;
        if in_a.iter().chain(&in_b).any(|x| x.memref != memref) {
            return Err(NestRefusal::Dependence(match key {
                BufferKey::External => "the nests access memrefs that may alias (function \
                                        arguments, or memrefs of unknown origin) through \
                                        different values, and one of them writes"
                    .to_string(),
                _ => format!("{name} is accessed through different views, and one nest writes it"),
            }));
        }
        let rank = in_a[0].indices.len();
        for (l, &step) in steps.iter().enumerate() {
            let split = (0..rank).any(|p| {
                splits_dimension(&in_a, &a.space, p, l as u32, step, rank)
                    .zip(splits_dimension(&in_b, &b.space, p, l as u32, step, rank))
                    .is_some_and(|(x, y)| x.compatible(&y, step))
            });
            if !split {
                return Err(NestRefusal::Dependence(format!(
                    "{name} is written by one nest and accessed by the other at elements \
                     the outer loop does not keep apart"
                )));
            }
        }
    }
    Ok(())
}

/// The footprint of a set of accesses along one memref dimension, per outer iteration:
/// `coefficient * iv + symbols + [lo, hi]`.
pub(super) struct Footprint {
    pub coefficient: i64,
    pub symbol_terms: BTreeMap<u32, i64>,
    pub lo: i64,
    pub hi: i64,
}

impl Footprint {
    /// Whether two footprints, taken together, keep different iterations apart.
    fn compatible(&self, other: &Footprint, step: i64) -> bool {
        if self.coefficient != other.coefficient || self.symbol_terms != other.symbol_terms {
            return false;
        }
        let span = self.hi.max(other.hi) as i128 - self.lo.min(other.lo) as i128;
        span < (self.coefficient as i128).abs() * step as i128
    }
}

/// The joint footprint of `accesses` along dimension `p` for outer dim `l`, when every
/// one of them indexes `p` as `a * iv_l + rest` with the same `a` and symbols.
pub(super) fn splits_dimension(
    accesses: &[&NestAccess],
    space: &super::nest_access::IndexSpace,
    p: usize,
    l: u32,
    step: i64,
    rank: usize,
) -> Option<Footprint> {
    let mut footprint: Option<Footprint> = None;
    for access in accesses {
        let index = access.indices.get(p)?.as_ref()?;
        let stride = outer_stride(index, l, space)?;
        let mut hi = stride.rest.hi;
        if p + 1 == rank {
            hi = hi.checked_add(access.width - 1)?;
        }
        let next = Footprint {
            coefficient: stride.coefficient,
            symbol_terms: stride.symbol_terms,
            lo: stride.rest.lo,
            hi,
        };
        footprint = Some(match footprint {
            None => next,
            Some(f) => {
                if !f.compatible(&next, step) {
                    return None;
                }
                Footprint {
                    lo: f.lo.min(next.lo),
                    hi: f.hi.max(next.hi),
                    ..f
                }
            }
        });
    }
    footprint
}

/// A name for a buffer in remarks.
fn buffer_name(ctx: &Context, key: &BufferKey, memref: Value) -> String {
    let ty = tb_ir::printer::type_to_string(ctx, ctx.value_type(memref));
    match key {
        BufferKey::Global(name) => format!("global @{name}"),
        BufferKey::Allocation(_) => format!("a buffer of type {ty}"),
        BufferKey::External => match ctx.value(memref).def {
            ValueDef::BlockArgument { index, .. } => format!("argument {index} ({ty})"),
            _ => format!("a buffer of type {ty}"),
        },
    }
}

/// Moves the body of `first` to the start of `second`'s body (its induction variables
/// becoming `second`'s) and erases `first`.
fn merge_into(ctx: &mut Context, first: OpId, second: OpId, keep_vectorize: bool) {
    let (Some(from), Some(to)) = (loop_::body(ctx, first), loop_::body(ctx, second)) else {
        return;
    };
    let old_ivs = loop_::induction_vars(ctx, first);
    let new_ivs = loop_::induction_vars(ctx, second);
    for (&old, &new) in old_ivs.iter().zip(&new_ivs) {
        ctx.replace_all_uses(old, new);
    }
    let anchor = ctx
        .block(to)
        .first
        .expect("a loop body ends with its terminator");
    let moved: Vec<OpId> = ctx.block_ops(from).collect();
    for op in moved {
        if ctx.op_name(op) == loop_::YIELD {
            continue;
        }
        ctx.unlink_op(op);
        ctx.insert_op_before(anchor, op);
    }
    ctx.erase_op(first);
    if !keep_vectorize {
        remove_property(ctx, second, "vectorize");
    }
}

fn remove_property(ctx: &mut Context, op: OpId, name: &str) {
    if let Some(props) = ctx.op(op).properties {
        let mut entries = ctx.dictionary_entries(props).to_vec();
        let before = entries.len();
        entries.retain(|(n, _)| n != name);
        if entries.len() != before {
            let dict = ctx.dictionary_attr(entries);
            ctx.op_mut(op).properties = Some(dict);
        }
    }
    let attrs = ctx.op(op).attributes;
    let mut entries = ctx.dictionary_entries(attrs).to_vec();
    let before = entries.len();
    entries.retain(|(n, _)| n != name);
    if entries.len() != before {
        let dict = ctx.dictionary_attr(entries);
        ctx.op_mut(op).attributes = dict;
    }
}
