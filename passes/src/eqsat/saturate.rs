//! The saturation loop: every iteration indexes the e-graph once, lets every rule search
//! it, adds what they found and restores the e-graph's invariants, until nothing changes
//! or a budget runs out. Rules are searched and applied in a fixed order over sorted
//! classes, so the same input always gives the same e-graph (unless the time limit, the
//! only budget that depends on the machine, stops it).

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use egg::Id;

use super::analysis::GraphEGraph;
use super::language::GraphNode;
use super::rules::{Index, Rule, Term};

/// Saturation budgets.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_nodes: usize,
    pub max_iterations: usize,
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: 50_000,
            max_iterations: 8,
            max_time: Duration::from_secs(2),
        }
    }
}

/// Why saturation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// No rule changed the e-graph: every equivalent form the rules know is in it.
    Saturated,
    IterationLimit,
    NodeLimit,
    TimeLimit,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::Saturated => "saturated",
            StopReason::IterationLimit => "iteration limit",
            StopReason::NodeLimit => "node limit",
            StopReason::TimeLimit => "time limit",
        })
    }
}

/// What saturation did.
#[derive(Clone, Debug)]
pub struct Saturation {
    pub iterations: usize,
    /// Per rule name, the rewrites that changed the e-graph.
    pub fired: Vec<(&'static str, usize)>,
    pub stop: StopReason,
    pub time: Duration,
}

/// Runs `rules` on `egraph`. `origin` learns, for each class a rule created, the classes
/// it was created for (its location comes from there): a batched matmul built for three
/// projections is located at all three.
pub fn saturate(
    egraph: &mut GraphEGraph,
    rules: &[&'static Rule],
    limits: Limits,
    origin: &mut HashMap<Id, Vec<Id>>,
) -> Saturation {
    let start = Instant::now();
    let mut fired: Vec<(&'static str, usize)> = rules.iter().map(|r| (r.name, 0)).collect();
    let mut iterations = 0;
    let stop = loop {
        if iterations >= limits.max_iterations {
            break StopReason::IterationLimit;
        }
        iterations += 1;
        let found: Vec<Vec<super::rules::Rewrite>> = {
            let index = Index::new(egraph);
            rules.iter().map(|rule| (rule.search)(&index)).collect()
        };
        let mut changed = false;
        let mut over_budget = None;
        'apply: for (i, rewrites) in found.into_iter().enumerate() {
            for rewrite in rewrites {
                let before = egraph.total_size();
                let id = add_term(egraph, &rewrite.term, rewrite.class, origin);
                let grew = egraph.total_size() != before;
                let merged = egraph.union(rewrite.class, id);
                if grew || merged {
                    fired[i].1 += 1;
                    changed = true;
                }
                if egraph.total_size() > limits.max_nodes {
                    over_budget = Some(StopReason::NodeLimit);
                    break 'apply;
                }
            }
            if start.elapsed() > limits.max_time {
                over_budget = Some(StopReason::TimeLimit);
                break 'apply;
            }
        }
        egraph.rebuild();
        if let Some(reason) = over_budget {
            break reason;
        }
        if !changed {
            break StopReason::Saturated;
        }
        if start.elapsed() > limits.max_time {
            break StopReason::TimeLimit;
        }
    };
    Saturation {
        iterations,
        fired,
        stop,
        time: start.elapsed(),
    }
}

fn add_term(
    egraph: &mut GraphEGraph,
    term: &Term,
    for_class: Id,
    origin: &mut HashMap<Id, Vec<Id>>,
) -> Id {
    let mut typed = None;
    let node = match term {
        Term::Class(id) => return *id,
        Term::Op {
            kind,
            attrs,
            args,
            info,
        } => {
            typed = info.clone();
            let args = args
                .iter()
                .map(|a| add_term(egraph, a, for_class, origin))
                .collect();
            GraphNode::op(*kind, attrs.clone(), args)
        }
        Term::Splat {
            value,
            element,
            shape,
        } => GraphNode::Splat {
            value: value.to_bits(),
            element: *element,
            shape: shape.clone(),
        },
    };
    let classes = egraph.number_of_classes();
    let id = egraph.add(node);
    let created = egraph.number_of_classes() != classes;
    if let Some(info) = typed
        && egraph[id].data.info.is_none()
    {
        egraph[id].data.info = Some(info);
    }
    if created || origin.contains_key(&id) {
        let list = origin.entry(id).or_default();
        if !list.contains(&for_class) {
            list.push(for_class);
        }
    }
    id
}
