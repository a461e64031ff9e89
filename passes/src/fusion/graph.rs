//! The dependence graph of a function's `te.compute`s: one node per compute (with its
//! cost), one edge per read of a producer's result inside a consumer's body, carrying the
//! access map from the consumer's iteration domain to the producer's elements and the
//! class of that access ([`EdgeClass`]).

use std::collections::HashMap;

use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use tb_dialects::te::{self, TeOp};
use tb_ir::affine::AffineMap;
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, Value};

use super::access::{EdgeClass, classify_map};
use super::cost::{ComputeCost, compute_cost};

/// A `te.compute` of the function.
#[derive(Clone, Debug)]
pub struct ComputeNode {
    pub op: OpId,
    pub cost: ComputeCost,
    /// Whether the compute has reduction axes.
    pub reduces: bool,
    /// Whether the body uses an index block argument as a value (not only through read
    /// maps): such a body cannot be re-indexed by composing maps alone.
    pub uses_indices: bool,
    /// Users of the result other than the reads of computes in this graph (a `return`, a
    /// call, an op of another dialect), by op name.
    pub external_users: Vec<String>,
}

/// One read of a producer's result in a consumer's body.
#[derive(Clone, Debug)]
pub struct Dependence {
    /// The `te.read` or `te.read_at` op.
    pub read: OpId,
    /// Consumer domain -> producer elements (`None` for `te.read_at`).
    pub map: Option<AffineMap>,
    pub class: EdgeClass,
}

/// The dependence graph of one function's top-level `te.compute`s.
pub struct DependenceGraph {
    pub graph: StableDiGraph<ComputeNode, Dependence>,
    /// Nodes in program order (a topological order: SSA values are defined before use).
    pub order: Vec<NodeIndex>,
    index: HashMap<OpId, NodeIndex>,
}

impl DependenceGraph {
    /// Builds the graph of the `te.compute`s directly in the blocks of `func`'s body.
    pub fn build(ctx: &Context, func: OpId) -> DependenceGraph {
        let mut graph = StableDiGraph::new();
        let mut order = Vec::new();
        let mut index = HashMap::new();
        for &region in &ctx.op(func).regions {
            for &block in &ctx.region(region).blocks {
                for op in ctx.block_ops(block) {
                    if te::ComputeOp::cast(ctx, op).is_none() {
                        continue;
                    }
                    let node = graph.add_node(ComputeNode {
                        op,
                        cost: compute_cost(ctx, op),
                        reduces: !te::reduction_extents(ctx, op).is_empty(),
                        uses_indices: uses_indices(ctx, op),
                        external_users: Vec::new(),
                    });
                    order.push(node);
                    index.insert(op, node);
                }
            }
        }
        let mut this = DependenceGraph {
            graph,
            order,
            index,
        };
        for consumer in this.order.clone() {
            this.add_in_edges(ctx, consumer);
        }
        for node in this.order.clone() {
            let external = this.external_users_of(ctx, node);
            this.graph[node].external_users = external;
        }
        this
    }

    /// The node of `compute`, if it is in the graph.
    pub fn node(&self, compute: OpId) -> Option<NodeIndex> {
        self.index.get(&compute).copied()
    }

    /// The edges into `consumer`, in body order.
    pub fn producers(&self, consumer: NodeIndex) -> Vec<(NodeIndex, &Dependence)> {
        let mut edges: Vec<_> = self
            .graph
            .edges_directed(consumer, Direction::Incoming)
            .map(|e| (e.source(), e.weight()))
            .collect();
        edges.sort_by_key(|(_, d)| d.read);
        edges
    }

    /// The edges out of `producer`, grouped by consumer in program order.
    pub fn consumers(&self, producer: NodeIndex) -> Vec<(NodeIndex, Vec<&Dependence>)> {
        let mut by_consumer: Vec<(NodeIndex, Vec<&Dependence>)> = Vec::new();
        for edge in self.graph.edges_directed(producer, Direction::Outgoing) {
            match by_consumer.iter_mut().find(|(c, _)| *c == edge.target()) {
                Some((_, reads)) => reads.push(edge.weight()),
                None => by_consumer.push((edge.target(), vec![edge.weight()])),
            }
        }
        let position = |n: NodeIndex| self.order.iter().position(|&o| o == n);
        by_consumer.sort_by_key(|(c, _)| position(*c));
        for (_, reads) in &mut by_consumer {
            reads.sort_by_key(|d| d.read);
        }
        by_consumer
    }

    /// Kernels (computes) in the graph.
    pub fn kernel_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Estimated bytes moved by every kernel of the graph, each reading its inputs once and
    /// writing its result.
    pub fn bytes_moved(&self) -> u64 {
        self.graph
            .node_weights()
            .map(|n| n.cost.bytes_moved())
            .fold(0u64, u64::saturating_add)
    }

    fn add_in_edges(&mut self, ctx: &Context, consumer: NodeIndex) {
        let op = self.graph[consumer].op;
        let domain = te::domain(ctx, op);
        let parallel_rank = te::result_shape(ctx, op).len();
        let mut edges = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            let kind = TeOp::of(ctx, inner);
            if !matches!(kind, Some(TeOp::Read | TeOp::ReadAt)) {
                return;
            }
            let input = ctx.op(inner).operands[0];
            let Some(producer) = self.producer_of(ctx, input) else {
                return;
            };
            let producer_node = &self.graph[producer];
            let (map, class) = if kind == Some(TeOp::ReadAt) {
                (None, EdgeClass::Indirect)
            } else {
                let map = te::read_map(ctx, inner).cloned();
                let class = if producer_node.reduces {
                    EdgeClass::ReductionBoundary
                } else if te::read_padding(ctx, inner).is_some() {
                    EdgeClass::Padded
                } else {
                    match &map {
                        Some(m) => {
                            classify_map(m, &domain, parallel_rank, producer_node.cost.elements)
                        }
                        None => EdgeClass::Indirect,
                    }
                };
                (map, class)
            };
            edges.push((
                producer,
                Dependence {
                    read: inner,
                    map,
                    class,
                },
            ));
        });
        for (producer, dependence) in edges {
            self.graph.add_edge(producer, consumer, dependence);
        }
    }

    fn producer_of(&self, ctx: &Context, value: Value) -> Option<NodeIndex> {
        match ctx.value(value).def {
            ValueDef::Result { op, .. } => self.node(op),
            _ => None,
        }
    }

    /// Users of `node`'s result that are neither a compute of the graph (its operand list)
    /// nor a read inside one.
    fn external_users_of(&self, ctx: &Context, node: NodeIndex) -> Vec<String> {
        let result = ctx.op(self.graph[node].op).results[0];
        let mut names: Vec<String> = ctx
            .value(result)
            .uses
            .iter()
            .filter(|u| {
                let inside_graph = match TeOp::of(ctx, u.op) {
                    Some(TeOp::Compute) => self.node(u.op).is_some(),
                    Some(TeOp::Read | TeOp::ReadAt) => {
                        te::enclosing_compute(ctx, u.op).is_some_and(|c| self.node(c).is_some())
                    }
                    _ => false,
                };
                !inside_graph
            })
            .map(|u| ctx.op_name(u.op).to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Whether an index block argument of `compute` is an operand of some op in its body.
fn uses_indices(ctx: &Context, compute: OpId) -> bool {
    te::indices(ctx, compute)
        .iter()
        .any(|&arg| !ctx.value(arg).uses.is_empty())
}
