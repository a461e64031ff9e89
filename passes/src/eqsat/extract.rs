//! Extraction: one e-node per needed e-class, minimizing the cost of the extracted graph
//! with shared nodes counted once.
//!
//! Two greedy bottom-up selections are computed: by tree cost (a class's cost is its
//! node's cost plus its children's), and by amortized cost (a child's cost is divided
//! among the classes that can use it, so a node several classes could share, like a
//! batched matmul, looks as cheap as it is when shared). Each selection is then costed as
//! a graph from the roots, every class once, and the cheaper one wins.

use std::collections::{HashMap, HashSet};

use egg::{Id, Language};

use super::analysis::GraphEGraph;
use super::cost::{CostModel, CostQuery};
use super::language::GraphNode;

/// The chosen node of each class reachable from the roots, and their total cost.
#[derive(Clone, Debug)]
pub struct Extraction {
    pub choice: HashMap<Id, GraphNode>,
    pub cost: f64,
}

/// A small cost every node has on top of the model's, so that no selection cycles
/// through free nodes; nodes rules added pay twice as much, so that between equally
/// costly forms the input's wins and the pass does not churn the IR.
const EPSILON: f64 = 1e-3;

/// The model's cost of every node, per class in sorted order.
pub struct NodeCosts {
    classes: Vec<Id>,
    costs: HashMap<Id, Vec<f64>>,
}

impl NodeCosts {
    pub fn new(
        egraph: &GraphEGraph,
        model: &dyn CostModel,
        original: &HashSet<GraphNode>,
    ) -> NodeCosts {
        let mut classes: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        classes.sort();
        let mut costs = HashMap::new();
        for &id in &classes {
            let class = &egraph[id];
            let per_node = class
                .nodes
                .iter()
                .map(|node| {
                    let output = class.data.info.as_ref();
                    let inputs: Option<Vec<_>> = node
                        .children()
                        .iter()
                        .map(|&c| egraph[c].data.info.as_ref())
                        .collect();
                    match (output, inputs) {
                        (Some(output), Some(inputs)) => {
                            let q = CostQuery {
                                node,
                                output,
                                inputs,
                                constant: class.data.constant,
                                original: original.contains(node),
                            };
                            let epsilon = if q.original { EPSILON } else { 2.0 * EPSILON };
                            model.node_cost(&q).max(0.0) + epsilon
                        }
                        _ => f64::INFINITY,
                    }
                })
                .collect();
            costs.insert(id, per_node);
        }
        NodeCosts { classes, costs }
    }
}

impl NodeCosts {
    /// The cost of node `index` of class `id`, if it can be computed at all.
    pub fn cost(&self, id: Id, index: usize) -> Option<f64> {
        let c = *self.costs.get(&id)?.get(index)?;
        c.is_finite().then_some(c)
    }
}

/// Greedy selection: each class's cheapest node, where a child contributes its class's
/// cost divided by `share(child)`.
fn select(
    egraph: &GraphEGraph,
    costs: &NodeCosts,
    share: &dyn Fn(Id) -> f64,
) -> HashMap<Id, (f64, usize)> {
    let mut best: HashMap<Id, (f64, usize)> = HashMap::new();
    // Amortized costs through a cycle shrink geometrically: stop after enough sweeps.
    for _ in 0..MAX_SWEEPS {
        let mut changed = false;
        for &id in &costs.classes {
            for (i, node) in egraph[id].nodes.iter().enumerate() {
                let mut total = costs.costs[&id][i];
                for &c in node.children() {
                    let c = egraph.find(c);
                    match best.get(&c) {
                        Some(&(cost, _)) => total += cost / share(c),
                        None => total = f64::INFINITY,
                    }
                }
                if total.is_finite() && best.get(&id).is_none_or(|&(b, _)| total < b) {
                    best.insert(id, (total, i));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    best
}

/// Sweeps of the greedy selection over all classes (each settles at least one more level
/// of the graph; a deeper graph stops early with costs that are upper bounds).
const MAX_SWEEPS: usize = 64;

/// The graph a selection extracts from `roots`, with each class's cost counted once;
/// `None` if the selection has a cycle or misses a class.
fn as_graph(
    egraph: &GraphEGraph,
    costs: &NodeCosts,
    best: &HashMap<Id, (f64, usize)>,
    roots: &[Id],
) -> Option<Extraction> {
    let mut choice = HashMap::new();
    let mut cost = 0.0;
    // Iterative DFS with on-stack marks to detect cycles.
    let mut state: HashMap<Id, bool> = HashMap::new(); // false: on stack, true: done
    for &root in roots {
        let root = egraph.find(root);
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                state.insert(id, true);
                continue;
            }
            match state.get(&id) {
                Some(true) => continue,
                Some(false) => return None,
                None => {}
            }
            let &(_, i) = best.get(&id)?;
            let node = egraph[id].nodes[i].clone();
            cost += costs.costs[&id][i];
            state.insert(id, false);
            stack.push((id, true));
            for &c in node.children() {
                let c = egraph.find(c);
                match state.get(&c) {
                    Some(false) => return None,
                    Some(true) => {}
                    None => stack.push((c, false)),
                }
            }
            choice.insert(id, node);
        }
    }
    Some(Extraction { choice, cost })
}

/// The cheapest of the greedy selections, as a graph from `roots`.
pub fn extract(egraph: &GraphEGraph, costs: &NodeCosts, roots: &[Id]) -> Option<Extraction> {
    let mut users: HashMap<Id, HashSet<Id>> = HashMap::new();
    for &id in &costs.classes {
        for node in &egraph[id].nodes {
            for &c in node.children() {
                users.entry(egraph.find(c)).or_default().insert(id);
            }
        }
    }
    let tree = select(egraph, costs, &|_| 1.0);
    let amortized = select(egraph, costs, &|c| {
        users.get(&c).map_or(1, |u| u.len()).max(1) as f64
    });
    let a = as_graph(egraph, costs, &tree, roots);
    let b = as_graph(egraph, costs, &amortized, roots);
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.cost < a.cost { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The cost of the input graph: each of its nodes once. (Classes the rules merged, such
/// as a transpose by the identity and its input, may hold several input nodes, so the
/// input graph is not one node per class.)
pub fn input_cost<'a>(
    egraph: &GraphEGraph,
    costs: &NodeCosts,
    nodes: impl IntoIterator<Item = (Id, &'a GraphNode)>,
) -> Option<f64> {
    let mut seen = HashSet::new();
    let mut total = 0.0;
    for (id, node) in nodes {
        let id = egraph.find(id);
        let node = node.clone().map_children(|c| egraph.find(c));
        let i = egraph[id].nodes.iter().position(|n| *n == node)?;
        if seen.insert((id, i)) {
            total += costs.costs[&id][i];
        }
    }
    Some(total)
}
