//! Equality saturation on the graph level with `egg`: a function's graph ops become an
//! e-graph ([`convert`]) over a term language of typed graph ops ([`language`]) with a
//! shape, element-type and constant-ness analysis ([`analysis`]); verified rules
//! ([`rules`]) saturate it under budgets ([`saturate`]); the cheapest equivalent graph
//! under a [`CostModel`] ([`cost`]) is extracted ([`extract`]), rebuilt in the function, and
//! its constant subgraphs folded ([`fold`]).

pub mod analysis;
pub mod convert;
pub mod cost;
pub mod exact;
pub mod extract;
pub mod fold;
pub mod language;
pub mod rules;
pub mod saturate;

use std::collections::{HashMap, HashSet};

use tb_ir::{Context, OpId};

pub use cost::{AnalyticalCost, CostModel, CostQuery, PreferRewritten};
pub use saturate::{Limits, StopReason};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub limits: Limits,
    /// Rule names to use; empty: every rule.
    pub rules: Vec<String>,
    /// Constants computed at compile time have at most this many elements.
    pub fold_limit: usize,
    /// Exact extraction runs when the roots reach at most this many e-classes (0: never).
    pub exact_max_classes: usize,
    /// Search steps exact extraction may take before it settles for its best so far.
    pub exact_steps: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            rules: Vec::new(),
            fold_limit: 1 << 24,
            exact_max_classes: 256,
            exact_steps: 200_000,
        }
    }
}

/// What equality saturation did to one function.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub enodes: usize,
    pub eclasses: usize,
    pub iterations: usize,
    pub fired: Vec<(&'static str, usize)>,
    pub stop: Option<StopReason>,
    pub cost_before: f64,
    pub cost_after: f64,
    pub ops_before: usize,
    pub ops_after: usize,
    /// Whether the function was rewritten (the extracted graph was cheaper).
    pub changed: bool,
    pub folded: usize,
    /// Why an extracted graph was not used, if it was not.
    pub note: Option<String>,
    pub saturation_seconds: f64,
    /// How the extracted graph was chosen.
    pub extractor: Extractor,
    /// The exact search found a cheaper graph than greedy extraction.
    pub exact_improved: bool,
}

/// Which extraction chose the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Extractor {
    /// Greedy only (the e-graph was too large for the exact search).
    #[default]
    Greedy,
    /// The exact search finished: no cheaper graph exists.
    Exact,
    /// The exact search ran out of steps; its best graph (no worse than greedy's) is used.
    ExactBudget,
}

/// The rules `config` selects; an error names an unknown rule.
pub fn selected_rules(config: &Config) -> Result<Vec<&'static rules::Rule>, String> {
    let all = rules::all();
    if config.rules.is_empty() {
        return Ok(all);
    }
    config
        .rules
        .iter()
        .map(|name| {
            all.iter().copied().find(|r| r.name == name).ok_or_else(|| {
                let known: Vec<&str> = all.iter().map(|r| r.name).collect();
                format!("no rule '{name}' (rules: {})", known.join(", "))
            })
        })
        .collect()
}

/// Runs equality saturation on the body of function `func` (its single block).
pub fn optimize_function(
    ctx: &mut Context,
    func: OpId,
    config: &Config,
    model: &dyn CostModel,
) -> Result<Report, String> {
    let rules = selected_rules(config)?;
    let mut report = Report::default();
    let Some(&region) = ctx.op(func).regions.first() else {
        return Ok(report);
    };
    let blocks = &ctx.region(region).blocks;
    if blocks.len() != 1 {
        return Ok(report);
    }
    let block = blocks[0];
    let Some(mut conv) = convert::to_egraph(ctx, block) else {
        return Ok(report);
    };
    report.ops_before = conv.modeled.len();
    let mut origin = HashMap::new();
    let sat = saturate::saturate(&mut conv.egraph, &rules, config.limits, &mut origin);
    report.iterations = sat.iterations;
    report.fired = sat.fired;
    report.stop = Some(sat.stop);
    report.saturation_seconds = sat.time.as_secs_f64();
    report.enodes = conv.egraph.total_size();
    report.eclasses = conv.egraph.number_of_classes();

    let roots = conv.roots(ctx);
    let original: HashSet<_> = conv
        .original
        .values()
        .map(|n| n.clone().map_children_canonical(&conv.egraph))
        .collect();
    let costs = extract::NodeCosts::new(&conv.egraph, model, &original);
    let before = extract::input_cost(
        &conv.egraph,
        &costs,
        conv.original.iter().map(|(&id, node)| (id, node)),
    );
    let Some(mut extraction) = extract::extract(&conv.egraph, &costs, &roots) else {
        report.note = Some("no extraction covers every root".into());
        return Ok(report);
    };
    let small = exact::reachable(&conv.egraph, &roots).len() <= config.exact_max_classes;
    if small && config.exact_steps > 0 {
        let exact = exact::extract_exact(
            &conv.egraph,
            &costs,
            &roots,
            extraction.cost,
            config.exact_steps,
        );
        report.extractor = if exact.complete {
            Extractor::Exact
        } else {
            Extractor::ExactBudget
        };
        if let Some(better) = exact.better {
            report.exact_improved = true;
            extraction = better;
        }
    }
    report.ops_after = report.ops_before;
    let Some(before) = before else {
        report.note = Some("the input graph could not be costed".into());
        return Ok(report);
    };
    report.cost_before = before;
    report.cost_after = before;
    // Rewrite only for a strictly cheaper graph: an equal one would churn the IR.
    if extraction.cost >= before * (1.0 - 1e-9) {
        return Ok(report);
    }
    report.cost_after = extraction.cost;
    match convert::rebuild(ctx, &conv, &extraction.choice, &origin) {
        Ok(created) => {
            report.changed = true;
            let live = fold::fold_constants(ctx, &created, config.fold_limit);
            report.folded = live.folded;
            report.ops_after = live.remaining;
        }
        Err(e) => report.note = Some(e.0),
    }
    Ok(report)
}

trait Canonical {
    fn map_children_canonical(self, egraph: &analysis::GraphEGraph) -> Self;
}

impl Canonical for language::GraphNode {
    fn map_children_canonical(self, egraph: &analysis::GraphEGraph) -> Self {
        egg::Language::map_children(self, |c| egraph.find(c))
    }
}
