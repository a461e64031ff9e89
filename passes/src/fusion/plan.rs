//! The fusion decision for one producer: inline it into every consumer, or keep it as a
//! kernel of its own and say why. The limits are the pass's knobs, so a tuner can move
//! them and a test can pin them; for the same IR and knobs the decisions are the same.

use std::fmt;

use petgraph::stable_graph::NodeIndex;
use tb_dialects::te::{self, TeOp};
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, Value};

use super::access::EdgeClass;
use super::cost::tensor_bytes;
use super::graph::DependenceGraph;
pub use super::partition::FusionOrder;
use crate::schedule::heuristic::MIN_PARALLEL_WORK;

/// The knobs of vertical fusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusionLimits {
    /// The most weighted flops that recomputing a producer in its consumers may add per
    /// producer element (several consumers, reuse, or several reads in one body), against
    /// the write and read-back of that element saved. A producer read once, one-to-one,
    /// by a single consumer is inlined at no extra cost.
    pub max_recompute_flops: u64,
    /// Whether producers may be inlined into contractions (a reducing body that multiplies
    /// two reads, as matmul and convolution). Off by default: the operands of a
    /// contraction are reused across its result points, and the micro-kernel scheduler
    /// matches the contraction's nest only as the lowering writes it.
    pub fuse_into_contractions: bool,
    /// The most ops a fused body may hold (a proxy for the registers a kernel's point
    /// needs).
    pub max_body_ops: usize,
    /// The resource budget of one kernel: the most bytes of distinct tensors a fused
    /// kernel may read (its working set, to hold against a cache or a GPU's shared
    /// memory). Inlining a producer replaces the consumer's read of its result by the
    /// producer's inputs, which can grow the consumer's working set; 0 sets no budget.
    pub max_working_set_bytes: u64,
    /// The parallelism a kernel must keep: a producer with enough work for threads is not
    /// inlined into a consumer with fewer result points than this (a reduction to a few
    /// values runs on one thread, and would run the producer's work there too). The CPU
    /// pipeline sets it to the host's cores; 0 or 1 sets no limit.
    pub min_parallel_points: u64,
    /// The order in which producers are inlined (see [`FusionOrder`]).
    pub order: FusionOrder,
}

impl Default for FusionLimits {
    fn default() -> Self {
        FusionLimits {
            max_recompute_flops: 16,
            fuse_into_contractions: false,
            max_body_ops: 256,
            max_working_set_bytes: 0,
            min_parallel_points: 0,
            order: FusionOrder::Benefit,
        }
    }
}

/// Why a producer stays a kernel of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It has no consumer among the computes.
    NoConsumer,
    /// Its result is used by ops that are not computes (`return`, a call ...).
    UsedOutside(Vec<String>),
    /// It reduces; its elements exist only after its reduction loops.
    Reduction,
    /// A consumer reads it with padding.
    PaddedRead,
    /// A consumer reads it at computed indices.
    IndirectRead,
    /// Its body uses its indices as values.
    UsesIndices,
    /// A consumer is a contraction.
    IntoContraction,
    /// Recomputing it in its consumers adds more flops per element than the limit.
    Recompute { added: u64, limit: u64 },
    /// The fused body would exceed the op limit.
    BodyTooLarge { ops: usize, limit: usize },
    /// The fused kernel would read more bytes than the working-set budget.
    WorkingSet { bytes: u64, limit: u64 },
    /// The consumer has too few points to run on threads, the producer enough.
    Parallelism { points: u64, limit: u64 },
}

impl Refusal {
    /// The statistic a refusal counts under.
    pub fn key(&self) -> &'static str {
        match self {
            Refusal::NoConsumer => "no-consumer",
            Refusal::UsedOutside(_) => "used-outside",
            Refusal::Reduction => "reduction",
            Refusal::PaddedRead => "padded-read",
            Refusal::IndirectRead => "indirect-read",
            Refusal::UsesIndices => "uses-indices",
            Refusal::IntoContraction => "into-contraction",
            Refusal::Recompute { .. } => "recompute",
            Refusal::BodyTooLarge { .. } => "body-too-large",
            Refusal::WorkingSet { .. } => "working-set",
            Refusal::Parallelism { .. } => "parallelism",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoConsumer => write!(f, "no te.compute reads it"),
            Refusal::UsedOutside(users) => {
                write!(f, "its result is used outside te.compute by ")?;
                let quoted: Vec<String> = users.iter().map(|u| format!("'{u}'")).collect();
                write!(f, "{}", quoted.join(", "))
            }
            Refusal::Reduction => {
                write!(
                    f,
                    "it reduces, so its elements exist only after its reduction loops"
                )
            }
            Refusal::PaddedRead => write!(f, "the consumer reads it with padding"),
            Refusal::IndirectRead => write!(f, "the consumer reads it at computed indices"),
            Refusal::UsesIndices => write!(f, "its body uses its indices as values"),
            Refusal::IntoContraction => write!(
                f,
                "the consumer is a contraction (fuse-into-contractions=false keeps its operands materialized)"
            ),
            Refusal::Recompute { added, limit } => write!(
                f,
                "recomputing it in its consumers costs {added} extra flops per element (max-recompute-flops={limit})"
            ),
            Refusal::BodyTooLarge { ops, limit } => write!(
                f,
                "the fused body would have {ops} ops (max-body-ops={limit})"
            ),
            Refusal::WorkingSet { bytes, limit } => write!(
                f,
                "the fused kernel would read {bytes} bytes (max-working-set-bytes={limit})"
            ),
            Refusal::Parallelism { points, limit } => write!(
                f,
                "the consumer has {points} result points, too few for the threads its work would need (min-parallel-points={limit})"
            ),
        }
    }
}

/// Whether `producer` is inlined into all its consumers; on refusal, the reason and the
/// consumer it concerns (if one).
pub fn decide(
    ctx: &Context,
    graph: &DependenceGraph,
    producer: NodeIndex,
    limits: &FusionLimits,
) -> Result<(), (Refusal, Option<OpId>)> {
    let node = &graph.graph[producer];
    let consumers = graph.consumers(producer);
    if node.reduces {
        return Err((
            Refusal::Reduction,
            consumers.first().map(|c| graph.graph[c.0].op),
        ));
    }
    if !node.external_users.is_empty() {
        return Err((Refusal::UsedOutside(node.external_users.clone()), None));
    }
    if consumers.is_empty() {
        return Err((Refusal::NoConsumer, None));
    }
    if node.uses_indices {
        return Err((Refusal::UsesIndices, None));
    }
    let single_read = consumers.len() == 1 && consumers[0].1.len() == 1;
    // Recomputing a widening reads the narrow data instead of the wide copy: cheaper than
    // materializing it, whatever the reuse.
    let widening = widens_narrow_integers(ctx, node.op);
    // How often the producer's body runs once inlined: once per consumer point and read,
    // except where the read only repeats along the consumer's reduction axes (the value is
    // then invariant in the reduction loops, which store nothing, and is hoisted).
    let mut evaluations = 0u64;
    for (consumer, reads) in &consumers {
        let consumer_node = &graph.graph[*consumer];
        let at = Some(consumer_node.op);
        for read in reads {
            match read.class {
                EdgeClass::Padded => return Err((Refusal::PaddedRead, at)),
                EdgeClass::Indirect => return Err((Refusal::IndirectRead, at)),
                EdgeClass::ReductionBoundary => return Err((Refusal::Reduction, at)),
                EdgeClass::Reuse {
                    across_parallel: false,
                    ..
                } => evaluations = evaluations.saturating_add(consumer_node.cost.elements),
                EdgeClass::OneToOne | EdgeClass::Reuse { .. } => {
                    evaluations = evaluations.saturating_add(consumer_node.cost.points)
                }
            }
        }
        if !limits.fuse_into_contractions && is_contraction(ctx, consumer_node.op) && !widening {
            return Err((Refusal::IntoContraction, at));
        }
        // A widening that feeds a contraction is inlined into it (above), so a producer
        // inlined into the widening (a Pad, a quantization) would end up in the
        // contraction too, and the micro-kernel would no longer read narrow data.
        if !limits.fuse_into_contractions
            && !widening
            && widens_narrow_integers(ctx, consumer_node.op)
            && graph
                .consumers(*consumer)
                .iter()
                .any(|(c, _)| is_contraction(ctx, graph.graph[*c].op))
        {
            return Err((Refusal::IntoContraction, at));
        }
        if limits.min_parallel_points > 1
            && !widening
            && consumer_node.cost.elements < limits.min_parallel_points
            && node.cost.points >= MIN_PARALLEL_WORK as u64
        {
            return Err((
                Refusal::Parallelism {
                    points: consumer_node.cost.elements,
                    limit: limits.min_parallel_points,
                },
                at,
            ));
        }
        // The producer's body replaces each read: its reads and arithmetic, not its yield.
        let ops = consumer_node.cost.body_ops + reads.len() * node.cost.body_ops.saturating_sub(2);
        if ops > limits.max_body_ops {
            return Err((
                Refusal::BodyTooLarge {
                    ops,
                    limit: limits.max_body_ops,
                },
                at,
            ));
        }
        if limits.max_working_set_bytes > 0 {
            let bytes = fused_input_bytes(ctx, node.op, consumer_node.op);
            if bytes > limits.max_working_set_bytes {
                return Err((
                    Refusal::WorkingSet {
                        bytes,
                        limit: limits.max_working_set_bytes,
                    },
                    at,
                ));
            }
        }
    }
    let one_to_one = consumers[0].1.first().map(|r| r.class) == Some(EdgeClass::OneToOne);
    if !(widening || single_read && one_to_one) {
        let elements = node.cost.elements.max(1);
        let added = node
            .cost
            .flops_per_point
            .saturating_mul(evaluations.saturating_sub(elements))
            / elements;
        if added > limits.max_recompute_flops {
            let at = consumers.first().map(|c| graph.graph[c.0].op);
            return Err((
                Refusal::Recompute {
                    added,
                    limit: limits.max_recompute_flops,
                },
                at,
            ));
        }
    }
    Ok(())
}

/// Bytes of the distinct tensors `consumer` reads once `producer` is inlined into it: its
/// own inputs but the producer's result, and the producer's inputs.
fn fused_input_bytes(ctx: &Context, producer: OpId, consumer: OpId) -> u64 {
    let produced = te::ComputeOp(producer).result(ctx);
    let mut inputs: Vec<Value> = Vec::new();
    let consumer_inputs = te::ComputeOp(consumer).inputs(ctx);
    let producer_inputs = te::ComputeOp(producer).inputs(ctx);
    for &v in consumer_inputs.iter().chain(producer_inputs.iter()) {
        if v != produced && !inputs.contains(&v) {
            inputs.push(v);
        }
    }
    inputs
        .iter()
        .map(|&v| tensor_bytes(ctx, ctx.value_type(v)))
        .fold(0u64, u64::saturating_add)
}

/// A contraction: a reducing compute whose body multiplies two values read from its
/// inputs, possibly converted first (matmul, integer matmul, convolution, einsum).
pub fn is_contraction(ctx: &Context, compute: OpId) -> bool {
    if tb_dialects::te::reduction_extents(ctx, compute).is_empty() {
        return false;
    }
    let is_read = |v: Value| read_through_casts(ctx, v);
    let mut found = false;
    ctx.walk_nested(compute, &mut |op| {
        let name = ctx.op_name(op);
        if matches!(name, "arith.mulf" | "arith.muli") {
            let operands = &ctx.op(op).operands;
            found |= operands.len() == 2 && is_read(operands[0]) && is_read(operands[1]);
        }
    });
    found
}

/// A producer whose body only widens what it reads (in bounds: a padded read, as an
/// inlined Pad leaves, is not a plain load) from 8- or 16-bit integers
/// (`arith.extsi`/`arith.extui`): inlined even into contractions and however often it is
/// recomputed, so an integer matmul reads the narrow operands the integer micro-kernel
/// packs (`loop-int-matmul-microkernel`).
fn widens_narrow_integers(ctx: &Context, compute: OpId) -> bool {
    let Some(body) = tb_dialects::te::body(ctx, compute) else {
        return false;
    };
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let [read, widen, _yield] = ops.as_slice() else {
        return false;
    };
    if te::ReadOp::cast(ctx, *read).is_none_or(|r| r.padding(ctx).is_some())
        || !matches!(ctx.op_name(*widen), "arith.extsi" | "arith.extui")
        || ctx.op(*widen).operands.as_slice() != [ctx.op(*read).results[0]]
    {
        return false;
    }
    let narrow = ctx.value_type(ctx.op(*read).results[0]);
    matches!(
        ctx.type_kind(narrow),
        tb_ir::TypeKind::Integer { width: 8 | 16, .. }
    )
}

/// Whether `value` is a read, or a one-operand op (a cast, a negation) of one.
fn read_through_casts(ctx: &Context, mut value: Value) -> bool {
    loop {
        let tb_ir::value::ValueDef::Result { op, .. } = ctx.value(value).def else {
            return false;
        };
        if matches!(TeOp::of(ctx, op), Some(TeOp::Read | TeOp::ReadAt)) {
            return true;
        }
        match ctx.op(op).operands.as_slice() {
            [only] if ctx.op(op).regions.is_empty() => value = *only,
            _ => return false,
        }
    }
}
