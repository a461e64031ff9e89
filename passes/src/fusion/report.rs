//! What fusion did to a function: kernel counts and estimated traffic before and after,
//! producers inlined, refusals by reason (the pass statistics), and one remark per refusal
//! at the producer's location.

use std::collections::BTreeMap;

use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::{Context, Diagnostic, OpId, Severity};

use super::plan::Refusal;

/// The outcome of fusing one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FusionReport {
    pub kernels_before: u64,
    pub kernels_after: u64,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Producers inlined into all their consumers.
    pub inlined: u64,
    /// Refusals by [`Refusal::key`].
    pub refusals: BTreeMap<&'static str, u64>,
    /// Rendered remarks, in program order.
    pub remarks: Vec<String>,
}

impl FusionReport {
    /// Records that `producer` stays a kernel, and why.
    pub fn refuse(&mut self, ctx: &Context, producer: OpId, consumer: Option<OpId>, why: &Refusal) {
        *self.refusals.entry(why.key()).or_default() += 1;
        let mut diagnostic = Diagnostic {
            severity: Severity::Remark,
            loc: ctx.op(producer).loc,
            message: format!("te.compute not fused: {why}"),
            notes: Vec::new(),
        };
        if let Some(consumer) = consumer {
            diagnostic = diagnostic.with_note(ctx.op(consumer).loc, "consumer here");
        }
        self.remarks
            .push(render(ctx, &SourceMgr::new(), &diagnostic));
    }

    /// Adds another function's report to this one.
    pub fn merge(&mut self, other: FusionReport) {
        self.kernels_before += other.kernels_before;
        self.kernels_after += other.kernels_after;
        self.bytes_before = self.bytes_before.saturating_add(other.bytes_before);
        self.bytes_after = self.bytes_after.saturating_add(other.bytes_after);
        self.inlined += other.inlined;
        for (key, count) in other.refusals {
            *self.refusals.entry(key).or_default() += count;
        }
        self.remarks.extend(other.remarks);
    }
}
