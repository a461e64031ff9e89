//! Global affine fusion on the te level, after Souffle (ASPLOS'24).
//!
//! A function's `te.compute`s form a dependence graph ([`graph`]) whose edges carry the
//! access map from a consumer's domain to a producer's elements and its class ([`access`]):
//! one-to-one, reuse, or a reduction boundary. Vertical fusion ([`vertical`]) inlines a
//! producer into its consumers by composing maps ([`compose`]), so its buffer and loop
//! nest disappear; [`plan`] decides per producer under the knobs of [`FusionLimits`]
//! (recompute cost, contractions, body size) and names the reason when it refuses. A
//! reduction's elementwise prologue ends up in its body this way, and the elementwise
//! ops after a reduction (a mean's division, a variance's reciprocal square root) in the
//! kernels that read them.
//!
//! [`fuse_function`] runs it on one function; the `te-fuse` pass runs it on every function.
//! [`loop_traffic`] counts the kernels and estimated traffic of a lowered function, after
//! every pass (`tb-run --stats`).

pub mod access;
pub mod buffer_contraction;
pub mod compose;
pub mod cost;
pub mod graph;
pub mod loop_traffic;
pub mod nest_access;
pub mod nest_fusion;
pub mod plan;
pub mod private_buffers;
pub mod producer_inlining;
pub mod report;
pub mod vertical;

use std::collections::HashSet;

use tb_ir::{Context, OpId};

pub use access::EdgeClass;
pub use graph::DependenceGraph;
pub use loop_traffic::{LoopTraffic, loop_traffic};
pub use plan::{FusionLimits, Refusal};
pub use report::FusionReport;

/// Fuses the `te.compute`s of `func`: every producer, in program order, is inlined into
/// all its consumers when [`plan::decide`] allows it, else kept (with a remark).
pub fn fuse_function(
    ctx: &mut Context,
    func: OpId,
    limits: &FusionLimits,
) -> Result<FusionReport, String> {
    let initial = DependenceGraph::build(ctx, func);
    let mut report = FusionReport {
        kernels_before: initial.kernel_count() as u64,
        bytes_before: initial.bytes_moved(),
        ..FusionReport::default()
    };
    let mut considered: HashSet<OpId> = HashSet::new();
    let mut graph = initial;
    // The first compute in program order not yet decided on; computes rebuilt by inlining
    // get new ids and come after their producer, so they are decided later.
    while let Some(&producer) = graph
        .order
        .iter()
        .find(|&&n| !considered.contains(&graph.graph[n].op))
    {
        let producer_op = graph.graph[producer].op;
        considered.insert(producer_op);
        match plan::decide(ctx, &graph, producer, limits) {
            Ok(()) => {
                let consumers: Vec<OpId> = graph
                    .consumers(producer)
                    .iter()
                    .map(|(c, _)| graph.graph[*c].op)
                    .collect();
                for consumer in consumers {
                    vertical::inline_producer(ctx, producer_op, consumer)?;
                }
                ctx.erase_op(producer_op);
                report.inlined += 1;
                graph = DependenceGraph::build(ctx, func);
            }
            Err((why, consumer)) => report.refuse(ctx, producer_op, consumer, &why),
        }
    }
    report.kernels_after = graph.kernel_count() as u64;
    report.bytes_after = graph.bytes_moved();
    Ok(report)
}
