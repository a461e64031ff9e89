//! `graph-eqsat`: equality saturation on the graph level. Each function's graph ops go
//! into an e-graph, the rules of [`crate::eqsat::rules`] saturate it under node, iteration
//! and time limits, and the cheapest equivalent graph under the analytical cost model
//! replaces the function's graph when it is cheaper (see [`crate::eqsat`]).

use std::time::Duration;

use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions, PassStatistic};
use tb_ir::{Context, Diagnostic, OpId};

use crate::eqsat::{
    AnalyticalCost, Config, Extractor, Limits, Report, StopReason, optimize_function,
    selected_rules,
};
use crate::pass_support::{collect_functions, stat};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "max-nodes",
        kind: OptionKind::Int,
        default: "50000",
        help: "Stop saturating when the e-graph has this many e-nodes",
    },
    PassOptionInfo {
        name: "max-iterations",
        kind: OptionKind::Int,
        default: "8",
        help: "Stop saturating after this many iterations",
    },
    PassOptionInfo {
        name: "max-time-ms",
        kind: OptionKind::Int,
        default: "2000",
        help: "Stop saturating after this many milliseconds (the only limit that makes the result machine-dependent)",
    },
    PassOptionInfo {
        name: "fold-limit",
        kind: OptionKind::Int,
        default: "16777216",
        help: "Fold constant subgraphs of at most this many elements",
    },
    PassOptionInfo {
        name: "exact-max-classes",
        kind: OptionKind::Int,
        default: "256",
        help: "Extract exactly (branch and bound) when the graph needs at most this many e-classes; 0: greedy only",
    },
    PassOptionInfo {
        name: "exact-steps",
        kind: OptionKind::Int,
        default: "200000",
        help: "Search steps the exact extraction may take before it keeps its best graph so far",
    },
    PassOptionInfo {
        name: "rules",
        kind: OptionKind::String,
        default: "",
        help: "Comma-separated rule names to use (default: every rule)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "graph-eqsat",
        description: "Rewrite graph ops by equality saturation and cost-based extraction",
        options: OPTIONS,
        create: |o: &PassOptions| {
            let positive = |name: &str| o.int(name).max(0) as u64;
            let rules = o.string("rules");
            Box::new(GraphEqsat {
                config: Config {
                    limits: Limits {
                        max_nodes: positive("max-nodes") as usize,
                        max_iterations: positive("max-iterations") as usize,
                        max_time: Duration::from_millis(positive("max-time-ms")),
                    },
                    rules: rules
                        .split(',')
                        .map(str::trim)
                        .filter(|r| !r.is_empty())
                        .map(String::from)
                        .collect(),
                    fold_limit: positive("fold-limit") as usize,
                    exact_max_classes: positive("exact-max-classes") as usize,
                    exact_steps: positive("exact-steps") as usize,
                },
                last: Vec::new(),
            })
        },
    }
}

struct GraphEqsat {
    config: Config,
    /// Reports of the last run, one per function.
    last: Vec<Report>,
}

impl Pass for GraphEqsat {
    fn argument(&self) -> &'static str {
        "graph-eqsat"
    }

    fn display_name(&self) -> &'static str {
        "GraphEqsat"
    }

    fn options(&self) -> Vec<(String, String)> {
        let l = &self.config.limits;
        vec![
            (
                "exact-max-classes".into(),
                self.config.exact_max_classes.to_string(),
            ),
            ("exact-steps".into(), self.config.exact_steps.to_string()),
            ("fold-limit".into(), self.config.fold_limit.to_string()),
            ("max-iterations".into(), l.max_iterations.to_string()),
            ("max-nodes".into(), l.max_nodes.to_string()),
            ("max-time-ms".into(), l.max_time.as_millis().to_string()),
            ("rules".into(), self.config.rules.join(",")),
        ]
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.last.clear();
        selected_rules(&self.config).map_err(|m| Diagnostic::error(ctx.op(op).loc, m))?;
        let mut funcs = Vec::new();
        collect_functions(ctx, op, &mut funcs);
        let model = AnalyticalCost::default();
        for func in funcs {
            let report = optimize_function(ctx, func, &self.config, &model)
                .map_err(|m| Diagnostic::error(ctx.op(func).loc, m))?;
            self.last.push(report);
        }
        Ok(())
    }

    fn statistics(&self) -> Vec<PassStatistic> {
        let sum = |f: &dyn Fn(&Report) -> u64| self.last.iter().map(f).sum::<u64>();
        let stopped = |reason: StopReason| sum(&|r| (r.stop == Some(reason)) as u64);
        let mut stats = vec![
            stat(
                "num-functions",
                "Functions with graph ops",
                sum(&|r| (r.stop.is_some()) as u64),
            ),
            stat(
                "num-rewritten",
                "Functions replaced by a cheaper graph",
                sum(&|r| r.changed as u64),
            ),
            stat(
                "num-enodes",
                "E-nodes after saturation",
                sum(&|r| r.enodes as u64),
            ),
            stat(
                "num-eclasses",
                "E-classes after saturation",
                sum(&|r| r.eclasses as u64),
            ),
            stat(
                "num-iterations",
                "Saturation iterations",
                sum(&|r| r.iterations as u64),
            ),
            stat(
                "stop-saturated",
                "Functions saturated",
                stopped(StopReason::Saturated),
            ),
            stat(
                "stop-iteration-limit",
                "Functions stopped by the iteration limit",
                stopped(StopReason::IterationLimit),
            ),
            stat(
                "stop-node-limit",
                "Functions stopped by the node limit",
                stopped(StopReason::NodeLimit),
            ),
            stat(
                "stop-time-limit",
                "Functions stopped by the time limit",
                stopped(StopReason::TimeLimit),
            ),
            stat(
                "extract-exact",
                "Functions whose extracted graph is proven cheapest (exact search finished)",
                sum(&|r| (r.extractor == Extractor::Exact) as u64),
            ),
            stat(
                "extract-exact-budget",
                "Functions whose exact search ran out of steps",
                sum(&|r| (r.extractor == Extractor::ExactBudget) as u64),
            ),
            stat(
                "extract-exact-improved",
                "Functions where the exact search beat greedy extraction",
                sum(&|r| r.exact_improved as u64),
            ),
            stat(
                "cost-before",
                "Estimated cost of the input graphs (ns)",
                sum(&|r| r.cost_before.round().max(0.0) as u64),
            ),
            stat(
                "cost-after",
                "Estimated cost of the output graphs (ns)",
                sum(&|r| r.cost_after.round().max(0.0) as u64),
            ),
            stat(
                "ops-before",
                "Graph ops before",
                sum(&|r| r.ops_before as u64),
            ),
            stat("ops-after", "Graph ops after", sum(&|r| r.ops_after as u64)),
            stat(
                "num-folded",
                "Constant ops folded after extraction",
                sum(&|r| r.folded as u64),
            ),
            stat(
                "saturation-us",
                "Time spent saturating (microseconds)",
                sum(&|r| (r.saturation_seconds * 1e6) as u64),
            ),
        ];
        for rule in crate::eqsat::rules::all() {
            let fired = sum(&|r| {
                r.fired
                    .iter()
                    .find(|(n, _)| *n == rule.name)
                    .map_or(0, |(_, c)| *c as u64)
            });
            stats.push(stat(
                rule.name,
                "Rewrites by this rule that changed the e-graph",
                fired,
            ));
        }
        stats
    }
}
