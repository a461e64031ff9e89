//! Exact extraction finds the cheapest graph where greedy extraction does not: a node
//! worth using only when two roots share it, next to a node that looks shared because
//! classes nobody needs could use it.

use egg::Id;
use tb_dialects::graph::GraphOp;
use tb_ir::{Context, FloatKind};
use tb_passes::eqsat::analysis::{GraphEGraph, TensorInfo};
use tb_passes::eqsat::exact::extract_exact;
use tb_passes::eqsat::extract::{NodeCosts, extract};
use tb_passes::eqsat::language::{Attrs, GraphNode};
use tb_passes::eqsat::{CostModel, CostQuery};

/// Costs by op kind, so that the right answer can be worked out by hand.
struct ByKind;

impl CostModel for ByKind {
    fn node_cost(&self, query: &CostQuery) -> f64 {
        match query.node.kind() {
            Some(GraphOp::Relu | GraphOp::Tanh | GraphOp::Sigmoid) => 10.0,
            Some(GraphOp::Neg | GraphOp::Abs | GraphOp::Sqrt) => 1.0,
            Some(GraphOp::Exp | GraphOp::Log) => 15.0,
            _ => 0.0,
        }
    }
}

fn unary(egraph: &mut GraphEGraph, kind: GraphOp, x: Id) -> Id {
    egraph.add(GraphNode::op(kind, Attrs::default(), vec![x]))
}

/// Two roots that can each be computed alone (cost 10 each) or from one shared node
/// (15, then 1 each: 17 for both), and a third root that can be computed alone (10) or
/// from a node (15, then 1) that two classes no root needs could also use.
fn egraph() -> (GraphEGraph, Vec<Id>) {
    let mut ctx = Context::new();
    let f32 = ctx.float_type(FloatKind::F32);
    let mut egraph = GraphEGraph::default();
    let x = egraph.add(GraphNode::Leaf(0));
    egraph[x].data.info = Some(TensorInfo {
        shape: vec![4],
        element: f32,
    });
    let shared = unary(&mut egraph, GraphOp::Exp, x);
    let r1 = unary(&mut egraph, GraphOp::Relu, x);
    let r1_shared = unary(&mut egraph, GraphOp::Neg, shared);
    egraph.union(r1, r1_shared);
    let r2 = unary(&mut egraph, GraphOp::Tanh, x);
    let r2_shared = unary(&mut egraph, GraphOp::Abs, shared);
    egraph.union(r2, r2_shared);
    let lure = unary(&mut egraph, GraphOp::Log, x);
    let r3 = unary(&mut egraph, GraphOp::Sigmoid, x);
    let r3_lured = unary(&mut egraph, GraphOp::Sqrt, lure);
    egraph.union(r3, r3_lured);
    unary(&mut egraph, GraphOp::Erf, lure);
    unary(&mut egraph, GraphOp::Softplus, lure);
    egraph.rebuild();
    let roots = [r1, r2, r3].iter().map(|&r| egraph.find(r)).collect();
    (egraph, roots)
}

/// The op kinds an extraction chose, by name.
fn kinds(choice: &std::collections::HashMap<Id, GraphNode>) -> Vec<GraphOp> {
    let mut kinds: Vec<GraphOp> = choice.values().filter_map(GraphNode::kind).collect();
    kinds.sort_by_key(|k| format!("{k:?}"));
    kinds
}

#[test]
fn exact_extraction_beats_both_greedy_selections() {
    let (egraph, roots) = egraph();
    let costs = NodeCosts::new(&egraph, &ByKind, &Default::default());
    let greedy = extract(&egraph, &costs, &roots).expect("greedy extraction");
    // By tree cost the shared node never pays (16 > 10); amortized over its users the
    // lure looks cheap (15 / 3 + 1 < 10): each greedy selection gets one part wrong.
    assert!(greedy.cost > 29.0, "greedy cost {}", greedy.cost);
    let exact = extract_exact(&egraph, &costs, &roots, greedy.cost, 100_000);
    assert!(exact.complete);
    let best = exact.better.expect("a cheaper extraction");
    assert!((best.cost - 27.0).abs() < 0.1, "exact cost {}", best.cost);
    assert_eq!(
        kinds(&best.choice),
        vec![GraphOp::Abs, GraphOp::Exp, GraphOp::Neg, GraphOp::Sigmoid]
    );
}

#[test]
fn exact_extraction_counts_a_shared_node_once() {
    let (egraph, roots) = egraph();
    let costs = NodeCosts::new(&egraph, &ByKind, &Default::default());
    // Only the two roots that share: the optimum uses the shared node for both.
    let exact = extract_exact(&egraph, &costs, &roots[..2], f64::INFINITY, 100_000);
    let best = exact.better.expect("an extraction");
    assert!((best.cost - 17.0).abs() < 0.1, "exact cost {}", best.cost);
}

#[test]
fn exact_extraction_reports_an_exhausted_budget() {
    let (egraph, roots) = egraph();
    let costs = NodeCosts::new(&egraph, &ByKind, &Default::default());
    let exact = extract_exact(&egraph, &costs, &roots, f64::INFINITY, 2);
    assert!(!exact.complete);
    assert!(exact.steps <= 3);
}

#[test]
fn exact_extraction_never_returns_a_cycle() {
    // x = relu(y) and y = neg(x) in one class each, with a leaf alternative only for x.
    let mut ctx = Context::new();
    let f32 = ctx.float_type(FloatKind::F32);
    let mut egraph = GraphEGraph::default();
    let leaf = egraph.add(GraphNode::Leaf(0));
    egraph[leaf].data.info = Some(TensorInfo {
        shape: vec![2],
        element: f32,
    });
    let a = unary(&mut egraph, GraphOp::Exp, leaf);
    let b = unary(&mut egraph, GraphOp::Neg, a);
    let a_again = unary(&mut egraph, GraphOp::Identity, b);
    egraph.union(a, a_again);
    egraph.rebuild();
    let roots = vec![egraph.find(b)];
    let costs = NodeCosts::new(&egraph, &ByKind, &Default::default());
    let best = extract_exact(&egraph, &costs, &roots, f64::INFINITY, 100_000)
        .better
        .expect("an extraction");
    // The identity is free but would make a cycle: exp must compute `a`.
    assert!(best.choice.values().any(|n| n.kind() == Some(GraphOp::Exp)));
    assert!(
        best.choice
            .values()
            .all(|n| n.kind() != Some(GraphOp::Identity))
    );
}
