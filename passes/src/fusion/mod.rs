//! Global affine fusion on the te level, after Souffle (ASPLOS'24).
//!
//! A function's `te.compute`s form a dependence graph ([`graph`]) whose edges carry the
//! access map from a consumer's domain to a producer's elements and its class ([`access`]):
//! one-to-one, reuse, or a reduction boundary. Vertical fusion ([`vertical`]) inlines a
//! producer into its consumers by composing maps ([`compose`]), so its buffer and loop
//! nest disappear; [`plan`] decides per producer under the knobs of [`FusionLimits`]
//! (recompute cost, contractions, body size, working set, parallelism) and names the
//! reason when it refuses; [`partition`] chooses the order over the whole function (the
//! fusion that saves the most traffic first). A
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
pub mod partition;
pub mod plan;
pub mod private_buffers;
pub mod producer_inlining;
pub mod report;
pub mod vertical;

use tb_ir::{Context, OpId};

pub use access::EdgeClass;
pub use graph::DependenceGraph;
pub use loop_traffic::{LoopTraffic, loop_traffic};
pub use partition::FusionOrder;
pub use plan::{FusionLimits, Refusal};
pub use report::FusionReport;

/// Fuses the `te.compute`s of `func`: producers are inlined into all their consumers
/// where [`plan::decide`] allows it, in the order [`partition`] chooses, else kept (with a
/// remark).
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
    let graph = partition::partition(ctx, func, limits, &mut report)?;
    report.kernels_after = graph.kernel_count() as u64;
    report.bytes_after = graph.bytes_moved();
    Ok(report)
}
