//! The partition of a function's computes into kernels: which producers are inlined into
//! their consumers and which stay kernels of their own, decided over the whole function.
//!
//! Every round looks at all the producers left and asks [`plan::decide`] whether each may
//! be inlined as the function stands (the limits of [`FusionLimits`]: recomputation, body
//! size, the working-set budget, the parallelism a kernel keeps). Of those that may, the one
//! that saves the most memory traffic is inlined (ties: the first in program order), the
//! graph is rebuilt, and the next round starts, until none may. When the limits bind, the
//! most profitable fusions are the ones made; a producer refused in one round is asked
//! again in the next, since inlining others changes its consumers (a producer read by two
//! kernels, one of which is inlined into the other, now has one). The producers left are
//! reported with the reason they stay. The decisions depend only on the IR and the limits.
//!
//! `FusionOrder::Program` is the earlier, local rule: each producer decided once, in
//! program order.

use std::collections::HashSet;

use petgraph::stable_graph::NodeIndex;
use tb_ir::{Context, OpId};

use super::graph::DependenceGraph;
use super::plan::{self, FusionLimits};
use super::report::FusionReport;
use super::vertical;

/// The order in which producers are inlined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusionOrder {
    /// The producer that saves the most bytes first, every producer asked again each round.
    Benefit,
    /// Each producer once, in program order.
    Program,
}

impl FusionOrder {
    /// The order named `name` (`benefit` or `program`).
    pub fn parse(name: &str) -> Result<FusionOrder, String> {
        match name {
            "benefit" => Ok(FusionOrder::Benefit),
            "program" => Ok(FusionOrder::Program),
            other => Err(format!(
                "unknown fusion order '{other}' (expected 'benefit' or 'program')"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FusionOrder::Benefit => "benefit",
            FusionOrder::Program => "program",
        }
    }
}

/// Partitions `func`'s computes under `limits`, recording what was inlined and refused in
/// `report`; returns the final graph.
pub fn partition(
    ctx: &mut Context,
    func: OpId,
    limits: &FusionLimits,
    report: &mut FusionReport,
) -> Result<DependenceGraph, String> {
    match limits.order {
        FusionOrder::Benefit => by_benefit(ctx, func, limits, report),
        FusionOrder::Program => in_program_order(ctx, func, limits, report),
    }
}

/// Bytes the materialized result of `producer` costs: written once, read back by each read
/// of its consumers.
fn traffic_saved(graph: &DependenceGraph, producer: NodeIndex) -> u64 {
    let reads: u64 = graph
        .consumers(producer)
        .iter()
        .map(|(_, reads)| reads.len() as u64)
        .sum();
    graph.graph[producer]
        .cost
        .result_bytes
        .saturating_mul(reads.saturating_add(1))
}

fn by_benefit(
    ctx: &mut Context,
    func: OpId,
    limits: &FusionLimits,
    report: &mut FusionReport,
) -> Result<DependenceGraph, String> {
    let mut graph = DependenceGraph::build(ctx, func);
    loop {
        let mut best: Option<(u64, NodeIndex)> = None;
        for &node in &graph.order {
            if plan::decide(ctx, &graph, node, limits).is_ok() {
                let saved = traffic_saved(&graph, node);
                if best.is_none_or(|(most, _)| saved > most) {
                    best = Some((saved, node));
                }
            }
        }
        let Some((_, producer)) = best else {
            break;
        };
        inline(ctx, &graph, producer)?;
        report.inlined += 1;
        graph = DependenceGraph::build(ctx, func);
    }
    for &node in &graph.order {
        if let Err((why, consumer)) = plan::decide(ctx, &graph, node, limits) {
            report.refuse(ctx, graph.graph[node].op, consumer, &why);
        }
    }
    Ok(graph)
}

fn in_program_order(
    ctx: &mut Context,
    func: OpId,
    limits: &FusionLimits,
    report: &mut FusionReport,
) -> Result<DependenceGraph, String> {
    let mut considered: HashSet<OpId> = HashSet::new();
    let mut graph = DependenceGraph::build(ctx, func);
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
                inline(ctx, &graph, producer)?;
                report.inlined += 1;
                graph = DependenceGraph::build(ctx, func);
            }
            Err((why, consumer)) => report.refuse(ctx, producer_op, consumer, &why),
        }
    }
    Ok(graph)
}

/// Inlines `producer` into every consumer and erases it.
fn inline(ctx: &mut Context, graph: &DependenceGraph, producer: NodeIndex) -> Result<(), String> {
    let producer_op = graph.graph[producer].op;
    let consumers: Vec<OpId> = graph
        .consumers(producer)
        .iter()
        .map(|(c, _)| graph.graph[*c].op)
        .collect();
    for consumer in consumers {
        vertical::inline_producer(ctx, producer_op, consumer)?;
    }
    ctx.erase_op(producer_op);
    Ok(())
}
