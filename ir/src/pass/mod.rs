//! Passes and the pass manager: the [`Pass`] trait, typed pass options, a registry of
//! passes by command-line name, MLIR's textual pipelines, and a manager that runs a
//! pipeline nested by operation anchor with verification and IR-printing instrumentation,
//! and analyses cached across the passes of a pipeline.

mod analysis;
mod manager;
mod options;
pub mod pipeline;
mod registry;
mod statistics;
mod threading;

pub use analysis::{Analysis, AnalysisManager, PreservedAnalyses};
pub use manager::{Instrumentation, PassManager, TimingNode};
pub use options::{OptionKind, PassOptionInfo, PassOptions};
pub use pipeline::{Pipeline, PipelineElement, PipelineError};
pub use registry::{PassInfo, PassRegistry};
pub use statistics::PassStatistic;
pub use threading::{THREADS_ENV, default_threads, threads_from_env};

use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::OpId;

/// A transformation of the IR under one operation.
pub trait Pass {
    /// The command-line name (`cse`).
    fn argument(&self) -> &'static str;

    /// The name shown in IR dumps and timing reports (`CSE`).
    fn display_name(&self) -> &'static str;

    /// The operation this pass must run on, or `None` when any op will do.
    fn anchor(&self) -> Option<&'static str> {
        None
    }

    /// The pass's options with their values, as the pipeline prints them back.
    fn options(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// What the last [`Pass::run`] counted, for `--mlir-pass-statistics`; the manager
    /// sums them over every op the pass ran on.
    fn statistics(&self) -> Vec<PassStatistic> {
        Vec::new()
    }

    /// Transforms the IR nested under `op`. An error stops the pipeline.
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic>;

    /// What the pass manager calls: [`Pass::run`] with the pipeline's cached analyses at
    /// hand, returning the analyses the pass left valid. A pass that uses analyses
    /// overrides this (and makes `run` call it with a fresh [`AnalysisManager`]); the
    /// default runs `run` and keeps nothing.
    fn run_with_analyses(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        analyses: &mut AnalysisManager,
    ) -> Result<PreservedAnalyses, Diagnostic> {
        let _ = analyses;
        self.run(ctx, op).map(|()| PreservedAnalyses::none())
    }
}
