//! Runs a pipeline: passes in order on their anchor op, nested pipelines on each directly
//! nested op they name, verification after every pass, and IR printing around passes.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::Pass;
use super::analysis::{AnalysisManager, PreservedAnalyses};
use super::pipeline::{Pipeline, PipelineElement};
use super::registry::PassRegistry;
use super::statistics::PassStatistic;
use super::threading;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::OpId;
use crate::printer::{PrintOptions, print_operation};
use crate::verifier;

/// What to observe while the pipeline runs (the `--mlir-print-ir-*` family, `--verify-each`).
#[derive(Clone, Debug, Default)]
pub struct Instrumentation {
    /// Pass arguments to print the IR before; `*` means every pass.
    pub print_before: Vec<String>,
    /// Pass arguments to print the IR after; `*` means every pass.
    pub print_after: Vec<String>,
    /// Print after a pass only when it changed the IR.
    pub print_after_change: bool,
    /// Print the IR when a pass fails.
    pub print_after_failure: bool,
    /// Verify after each pass.
    pub verify_each: bool,
    /// Collect per-pass wall time.
    pub timing: bool,
    /// Collect the passes' statistics (`--mlir-pass-statistics`).
    pub statistics: bool,
    /// How dumped IR is printed.
    pub print: PrintOptions,
}

enum Entry {
    Pass(Box<dyn Pass>),
    Nested(OpPassManager),
}

pub(super) struct OpPassManager {
    anchor: String,
    entries: Vec<Entry>,
    /// The pipeline as given, to build the same passes again for another thread.
    pub(super) source: Pipeline,
}

/// A pipeline ready to run.
pub struct PassManager {
    root: OpPassManager,
    /// Builds pass instances for worker threads.
    pub(super) registry: PassRegistry,
    /// Threads a nested pipeline may use (1: everything runs on the calling thread).
    pub(super) threads: usize,
    /// IR dumps written by the instrumentation (MLIR writes them to stderr).
    pub log: String,
    /// Wall time per pass and nested pipeline, as a tree in first-run order. With
    /// threads, a pass's time is summed over the threads that ran it.
    pub timing: TimingNode,
    /// Where in `timing` the running pipeline is (child indices from the root).
    pub(super) timing_path: Vec<usize>,
    /// Analyses cached between the passes of one run.
    pub analyses: AnalysisManager,
}

/// Wall time of one pass or pipeline, with what ran nested in it.
#[derive(Clone, Debug, Default)]
pub struct TimingNode {
    pub name: String,
    pub time: Duration,
    /// A pass's statistics, summed over its runs (empty for pipelines).
    pub statistics: Vec<PassStatistic>,
    pub children: Vec<TimingNode>,
}

impl TimingNode {
    pub(super) fn at_path(&mut self, path: &[usize]) -> &mut TimingNode {
        path.iter().fold(self, |node, &i| &mut node.children[i])
    }

    /// The index of the child called `name`, created if needed.
    fn child_index(&mut self, name: &str) -> usize {
        match self.children.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                self.children.push(TimingNode {
                    name: name.to_string(),
                    ..TimingNode::default()
                });
                self.children.len() - 1
            }
        }
    }

    /// Adds the times of `other`'s children (and theirs) to the children of the same names.
    pub(super) fn merge(&mut self, other: &TimingNode) {
        for child in &other.children {
            let i = self.child_index(&child.name);
            self.children[i].time += child.time;
            super::statistics::accumulate(&mut self.children[i].statistics, &child.statistics);
            self.children[i].merge(child);
        }
    }

    /// Leaves (passes) summed by name, slowest first.
    fn passes_by_name(&self, out: &mut Vec<(String, Duration)>) {
        for child in &self.children {
            if child.children.is_empty() {
                match out.iter_mut().find(|(n, _)| *n == child.name) {
                    Some(entry) => entry.1 += child.time,
                    None => out.push((child.name.clone(), child.time)),
                }
            } else {
                child.passes_by_name(out);
            }
        }
    }
}

fn matches(anchor: &str, op_name: &str) -> bool {
    anchor == "any" || anchor == op_name
}

impl OpPassManager {
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn build(pipeline: &Pipeline, registry: &PassRegistry) -> Result<OpPassManager, String> {
        let mut entries = Vec::new();
        for element in &pipeline.elements {
            entries.push(match element {
                PipelineElement::Pass { name, options } => {
                    let pass = registry.create(name, options)?;
                    if let Some(anchor) = pass.anchor()
                        && pipeline.anchor != "any"
                        && anchor != pipeline.anchor
                    {
                        return Err(format!("pass '{name}' runs on '{anchor}' ops and cannot be scheduled on '{}'; nest it: {}({name})", pipeline.anchor, anchor));
                    }
                    Entry::Pass(pass)
                }
                PipelineElement::Nested(nested) => Entry::Nested(OpPassManager::build(nested, registry)?),
            });
        }
        Ok(OpPassManager {
            anchor: pipeline.anchor.clone(),
            entries,
            source: pipeline.clone(),
        })
    }

    fn describe(&self) -> Pipeline {
        let elements = self
            .entries
            .iter()
            .map(|e| match e {
                Entry::Pass(p) => PipelineElement::Pass {
                    name: p.argument().to_string(),
                    options: p.options(),
                },
                Entry::Nested(n) => PipelineElement::Nested(n.describe()),
            })
            .collect();
        Pipeline {
            anchor: self.anchor.clone(),
            elements,
        }
    }
}

impl PassManager {
    /// Resolves a parsed pipeline against the registry. Nested pipelines use as many
    /// threads as [`super::default_threads`] says; see [`PassManager::set_threads`].
    pub fn new(pipeline: &Pipeline, registry: &PassRegistry) -> Result<PassManager, String> {
        Ok(PassManager {
            root: OpPassManager::build(pipeline, registry)?,
            registry: registry.clone(),
            threads: super::threading::default_threads(),
            log: String::new(),
            timing: TimingNode::default(),
            timing_path: Vec::new(),
            analyses: AnalysisManager::new(),
        })
    }

    /// How many threads a nested pipeline may run on at once (`--mlir-disable-threading`
    /// is 1); 0 counts as 1. The output does not depend on it.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The pipeline with every option at its effective value (`--dump-pass-pipeline`).
    pub fn pipeline(&self) -> Pipeline {
        self.root.describe()
    }

    /// Runs the pipeline on `top`, which must match the root anchor.
    pub fn run(
        &mut self,
        ctx: &mut Context,
        top: OpId,
        instr: &Instrumentation,
    ) -> Result<(), Diagnostic> {
        let name = ctx.op_name(top).to_string();
        if !matches(&self.root.anchor, &name) {
            return Err(Diagnostic::error(
                ctx.op(top).loc,
                format!(
                    "can't run '{}' pass manager on '{name}' op",
                    self.root.anchor
                ),
            ));
        }
        let mut root = std::mem::replace(
            &mut self.root,
            OpPassManager {
                anchor: String::new(),
                entries: Vec::new(),
                source: Pipeline {
                    anchor: String::new(),
                    elements: Vec::new(),
                },
            },
        );
        // The IR may have changed since an earlier run.
        self.analyses.clear();
        let result = self.run_manager(&mut root, ctx, top, instr);
        self.root = root;
        self.analyses.clear();
        result
    }

    fn run_manager(
        &mut self,
        pm: &mut OpPassManager,
        ctx: &mut Context,
        op: OpId,
        instr: &Instrumentation,
    ) -> Result<(), Diagnostic> {
        for entry in &mut pm.entries {
            match entry {
                Entry::Pass(pass) => self.run_pass(pass.as_mut(), ctx, op, instr)?,
                Entry::Nested(nested) => {
                    // Ops directly nested in `op`'s regions, collected first so a pass may
                    // erase or add siblings without disturbing the walk.
                    let mut targets = Vec::new();
                    for &region in &ctx.op(op).regions {
                        for &block in &ctx.region(region).blocks {
                            targets.extend(
                                ctx.block_ops(block)
                                    .filter(|&o| matches(&nested.anchor, ctx.op_name(o))),
                            );
                        }
                    }
                    let start = Instant::now();
                    let label = format!("'{}' Pipeline", nested.anchor);
                    let index = self
                        .timing
                        .at_path(&self.timing_path.clone())
                        .child_index(&label);
                    self.timing_path.push(index);
                    let mut result = Ok(());
                    if self.threads > 1 && threading::can_fork(ctx, nested, &targets) {
                        result = self.run_nested_on_threads(nested, ctx, op, &targets, instr);
                        // The targets' bodies were replaced by the workers' results.
                        self.analyses
                            .invalidate(ctx, op, &PreservedAnalyses::none());
                    } else {
                        for target in targets {
                            if !ctx.op(target).erased {
                                result = self.run_manager(nested, ctx, target, instr);
                                if result.is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    self.timing_path.pop();
                    if instr.timing {
                        self.timing.at_path(&self.timing_path.clone()).children[index].time +=
                            start.elapsed();
                    }
                    result?;
                }
            }
        }
        Ok(())
    }

    fn run_pass(
        &mut self,
        pass: &mut dyn Pass,
        ctx: &mut Context,
        op: OpId,
        instr: &Instrumentation,
    ) -> Result<(), Diagnostic> {
        let (argument, display_name) = (pass.argument(), pass.display_name());
        let wanted = |list: &[String]| list.iter().any(|p| p == "*" || p == argument);
        let header = |when: &str| {
            format!("// -----// IR Dump {when} {display_name} ({argument}) //----- //\n")
        };
        if wanted(&instr.print_before) {
            self.log.push_str(&header("Before"));
            self.log.push_str(&print_operation(ctx, op, instr.print));
        }
        let before = instr
            .print_after_change
            .then(|| print_operation(ctx, op, instr.print));
        let start = Instant::now();
        let mut result = match pass.run_with_analyses(ctx, op, &mut self.analyses) {
            Ok(preserved) => {
                self.analyses.invalidate(ctx, op, &preserved);
                Ok(())
            }
            Err(diag) => {
                self.analyses
                    .invalidate(ctx, op, &PreservedAnalyses::none());
                Err(diag)
            }
        };
        if result.is_ok() && instr.verify_each {
            result = verifier::verify(ctx, op).map_err(|d| {
                let message = format!("{} (the IR no longer verifies after this pass)", d.message);
                Diagnostic { message, ..d }
            });
        }
        if instr.timing || instr.statistics {
            let elapsed = start.elapsed();
            let path = self.timing_path.clone();
            let node = self.timing.at_path(&path);
            let index = node.child_index(display_name);
            node.children[index].time += elapsed;
            if instr.statistics && result.is_ok() {
                super::statistics::accumulate(
                    &mut node.children[index].statistics,
                    &pass.statistics(),
                );
            }
        }
        if let Err(diag) = result {
            if instr.print_after_failure {
                self.log
                    .push_str(&header("After").replace(" (", " Failed ("));
                self.log.push_str(&print_operation(ctx, op, instr.print));
            }
            // Name the pass in the message itself, so `expected-error {{...}}` substrings
            // still match and no extra note needs expecting.
            let message = format!(
                "{} [pass '{argument}' on '{}']",
                diag.message,
                ctx.op_name(op)
            );
            return Err(Diagnostic { message, ..diag });
        }
        let after = (wanted(&instr.print_after) || instr.print_after_change)
            .then(|| print_operation(ctx, op, instr.print));
        if let Some(after) = after {
            let changed = before.as_ref().is_none_or(|b| *b != after);
            if wanted(&instr.print_after) || changed {
                self.log.push_str(&header("After"));
                self.log.push_str(&after);
            }
        }
        Ok(())
    }

    /// `--mlir-timing`'s report: the pipeline as a tree (`tree`) or the passes summed by
    /// name, slowest first; `before` and `after` are phases outside the pipeline (parsing,
    /// printing) listed around it.
    pub fn timing_report(
        &self,
        total: Duration,
        tree: bool,
        before: &[(&str, Duration)],
        after: &[(&str, Duration)],
    ) -> String {
        let mut out = String::new();
        let rule = "===".to_string() + &"-".repeat(73) + "===";
        let _ = writeln!(
            out,
            "{rule}\n{:^79}\n{rule}",
            "... Execution time report ..."
        );
        let _ = writeln!(
            out,
            "  Total Execution Time: {:.4} seconds\n",
            total.as_secs_f64()
        );
        let _ = writeln!(out, "  ----Wall Time----  ----Name----");
        let total_secs = total.as_secs_f64().max(f64::MIN_POSITIVE);
        let line = |out: &mut String, depth: usize, name: &str, time: Duration| {
            let t = time.as_secs_f64();
            let _ = writeln!(
                out,
                "  {t:8.4} ({:5.1}%)  {}{name}",
                100.0 * t / total_secs,
                "  ".repeat(depth)
            );
        };
        for (name, time) in before {
            line(&mut out, 0, name, *time);
        }
        if tree {
            fn walk(
                node: &TimingNode,
                depth: usize,
                out: &mut String,
                line: &dyn Fn(&mut String, usize, &str, Duration),
            ) {
                for child in &node.children {
                    line(out, depth, &child.name, child.time);
                    walk(child, depth + 1, out, line);
                }
            }
            walk(&self.timing, 0, &mut out, &line);
        } else {
            let mut passes = Vec::new();
            self.timing.passes_by_name(&mut passes);
            passes.sort_by_key(|p| std::cmp::Reverse(p.1));
            for (name, time) in passes {
                line(&mut out, 0, &name, time);
            }
        }
        for (name, time) in after {
            line(&mut out, 0, name, *time);
        }
        line(&mut out, 0, "Total", total);
        out
    }
}
