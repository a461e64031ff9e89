//! Exact extraction for small e-graphs: a branch-and-bound search over the choice of one
//! e-node per needed e-class, with every class counted once however many users it has
//! (the cost of a DAG, not of a tree), and no cycles.
//!
//! Greedy extraction ([`super::extract`]) decides each class from its own subtree, so it
//! misses choices that only pay when shared (two roots that would both use one expensive
//! node) and overestimates sharing that does not happen. The search starts from the
//! greedy result as its bound, so it never returns anything worse; it stops after a budget
//! of search steps, and says whether it finished (then the result is optimal).

use std::collections::{HashMap, HashSet};

use egg::{Id, Language};

use super::analysis::GraphEGraph;
use super::extract::{Extraction, NodeCosts};

/// What the search found.
pub struct Exact {
    /// The best extraction found, if cheaper than the bound it started from.
    pub better: Option<Extraction>,
    /// The search covered every choice: nothing cheaper than the result exists.
    pub complete: bool,
    pub steps: usize,
}

/// The classes reachable from `roots` through any node, in discovery order.
pub fn reachable(egraph: &GraphEGraph, roots: &[Id]) -> Vec<Id> {
    let mut seen: HashSet<Id> = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<Id> = roots.iter().rev().map(|&r| egraph.find(r)).collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        order.push(id);
        for node in &egraph[id].nodes {
            for &c in node.children().iter().rev() {
                stack.push(egraph.find(c));
            }
        }
    }
    order
}

/// A candidate node of a class: its index in the class, cost and children (dense).
struct Candidate {
    index: usize,
    cost: f64,
    children: Vec<usize>,
}

struct Search<'a> {
    candidates: &'a [Vec<Candidate>],
    min_cost: &'a [f64],
    /// Chosen candidate per class (position in `candidates[class]`).
    chosen: Vec<Option<usize>>,
    /// Classes needed but not chosen, with how many chosen nodes need each.
    pending: Vec<usize>,
    needed_by: Vec<usize>,
    pending_bound: f64,
    cost: f64,
    best_cost: f64,
    best: Option<Vec<Option<usize>>>,
    steps: usize,
    budget: usize,
}

impl Search<'_> {
    /// Whether `from` reaches `to` through chosen nodes.
    fn reaches(&self, from: usize, to: usize) -> bool {
        let mut stack = vec![from];
        let mut seen = vec![false; self.chosen.len()];
        while let Some(c) = stack.pop() {
            if c == to {
                return true;
            }
            if std::mem::replace(&mut seen[c], true) {
                continue;
            }
            if let Some(k) = self.chosen[c] {
                stack.extend(&self.candidates[c][k].children);
            }
        }
        false
    }

    fn need(&mut self, class: usize) {
        self.needed_by[class] += 1;
        if self.needed_by[class] == 1 && self.chosen[class].is_none() {
            self.pending.push(class);
            self.pending_bound += self.min_cost[class];
        }
    }

    /// Explores every completion of the current partial choice; `false` when the budget
    /// ran out.
    fn run(&mut self) -> bool {
        self.steps += 1;
        if self.steps > self.budget {
            return false;
        }
        // Pending classes may have been chosen since they were pushed (through another
        // user): skip those.
        let Some(class) = self.pending.pop() else {
            if self.cost < self.best_cost {
                self.best_cost = self.cost;
                self.best = Some(self.chosen.clone());
            }
            return true;
        };
        self.pending_bound -= self.min_cost[class];
        let mut complete = true;
        for k in 0..self.candidates[class].len() {
            let cand = &self.candidates[class][k];
            if self.cost + cand.cost + self.pending_bound >= self.best_cost {
                // Candidates are sorted by cost: the rest cannot do better.
                break;
            }
            if cand.children.iter().any(|&c| self.reaches(c, class)) {
                continue;
            }
            let children = cand.children.clone();
            let cost = cand.cost;
            self.chosen[class] = Some(k);
            self.cost += cost;
            let (pending_len, bound) = (self.pending.len(), self.pending_bound);
            for &c in &children {
                self.need(c);
            }
            complete &= self.run();
            for &c in &children {
                self.needed_by[c] -= 1;
            }
            self.pending.truncate(pending_len);
            self.pending_bound = bound;
            self.cost -= cost;
            self.chosen[class] = None;
            if !complete {
                break;
            }
        }
        self.pending.push(class);
        self.pending_bound += self.min_cost[class];
        complete
    }
}

/// Searches for an extraction of `roots` cheaper than `bound` (the greedy one's cost),
/// within `budget` steps.
pub fn extract_exact(
    egraph: &GraphEGraph,
    costs: &NodeCosts,
    roots: &[Id],
    bound: f64,
    budget: usize,
) -> Exact {
    let classes = reachable(egraph, roots);
    let dense: HashMap<Id, usize> = classes.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let candidates: Vec<Vec<Candidate>> = classes
        .iter()
        .map(|&id| {
            let mut list: Vec<Candidate> = egraph[id]
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(index, node)| {
                    let cost = costs.cost(id, index)?;
                    let mut children: Vec<usize> = node
                        .children()
                        .iter()
                        .map(|c| dense[&egraph.find(*c)])
                        .collect();
                    children.sort_unstable();
                    children.dedup();
                    (!children.contains(&dense[&id])).then_some(Candidate {
                        index,
                        cost,
                        children,
                    })
                })
                .collect();
            // Cheapest first (ties by position, for determinism).
            list.sort_by(|a, b| a.cost.total_cmp(&b.cost).then(a.index.cmp(&b.index)));
            list
        })
        .collect();
    let min_cost: Vec<f64> = candidates
        .iter()
        .map(|c| c.first().map_or(f64::INFINITY, |c| c.cost))
        .collect();
    let n = classes.len();
    let mut search = Search {
        candidates: &candidates,
        min_cost: &min_cost,
        chosen: vec![None; n],
        pending: Vec::new(),
        needed_by: vec![0; n],
        pending_bound: 0.0,
        cost: 0.0,
        best_cost: bound,
        best: None,
        steps: 0,
        budget,
    };
    let mut root_ids: Vec<usize> = roots.iter().map(|r| dense[&egraph.find(*r)]).collect();
    root_ids.sort_unstable();
    root_ids.dedup();
    for &r in root_ids.iter().rev() {
        search.need(r);
    }
    let complete = search.run();
    let steps = search.steps;
    let better = search.best.map(|chosen| {
        let mut choice = HashMap::new();
        let mut cost = 0.0;
        for (i, k) in chosen.into_iter().enumerate() {
            if let Some(k) = k {
                let cand = &candidates[i][k];
                choice.insert(classes[i], egraph[classes[i]].nodes[cand.index].clone());
                cost += cand.cost;
            }
        }
        Extraction { choice, cost }
    });
    Exact {
        better,
        complete,
        steps,
    }
}
