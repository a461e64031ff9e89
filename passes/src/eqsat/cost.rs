//! What extraction minimizes: a cost per e-node behind [`CostModel`], so the analytical
//! model here and a learned model later are interchangeable.

use tb_dialects::graph::GraphOp;

use super::analysis::{TensorInfo, is_binary_arith, is_unary_elementwise};
use super::language::GraphNode;

/// One e-node as a cost model sees it.
pub struct CostQuery<'a> {
    pub node: &'a GraphNode,
    pub output: &'a TensorInfo,
    pub inputs: Vec<&'a TensorInfo>,
    /// The node's class is computable from constants (its value folds before run time).
    pub constant: bool,
    /// The node was in the input graph (not added by a rule).
    pub original: bool,
}

/// A cost for every e-node; extraction minimizes the sum over the extracted graph, each
/// node counted once however many users it has. Costs must be finite and non-negative.
pub trait CostModel {
    fn node_cost(&self, query: &CostQuery) -> f64;
}

/// Work an op does, as the analytical model counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
    pub kernels: f64,
}

/// An analytical model: time = flops / throughput + bytes / bandwidth + kernels × launch
/// overhead, in nanoseconds of a nominal CPU core. Reshape-like ops are free (they change
/// no bytes); transposes and slices are affine index maps that the te-level fusion
/// composes into their consumer's reads, so they launch no kernel and cost a tenth of
/// their output's bytes (the strided, less local reads). Constant subgraphs fold at
/// compile time and cost nothing.
#[derive(Clone, Copy, Debug)]
pub struct AnalyticalCost {
    pub ns_per_flop: f64,
    pub ns_per_byte: f64,
    pub ns_per_kernel: f64,
}

impl Default for AnalyticalCost {
    fn default() -> Self {
        AnalyticalCost {
            ns_per_flop: 0.05,
            ns_per_byte: 0.1,
            ns_per_kernel: 2000.0,
        }
    }
}

/// Bytes of the tensor, at 4 bytes an element (the models' `f32`; the analysis keeps
/// element types as IR types, which only the context can size).
fn bytes(info: &TensorInfo) -> f64 {
    info.num_elements() as f64 * 4.0
}

impl AnalyticalCost {
    /// The work of one node.
    pub fn work(query: &CostQuery) -> Work {
        use GraphOp as G;
        let GraphNode::Op { kind, attrs, .. } = query.node else {
            return Work::default();
        };
        if query.constant {
            return Work::default();
        }
        let out = query.output;
        let out_elems = out.num_elements() as f64;
        let io_bytes: f64 = query.inputs.iter().map(|i| bytes(i)).sum::<f64>() + bytes(out);
        let kind = kind.0;
        match kind {
            G::Constant => Work::default(),
            G::Reshape | G::Flatten | G::Squeeze | G::Unsqueeze | G::Identity => Work {
                flops: 0.0,
                bytes: 0.0,
                kernels: 0.0,
            },
            G::Transpose | G::Slice => Work {
                flops: 0.0,
                bytes: 0.1 * bytes(out),
                kernels: 0.0,
            },
            G::Matmul => {
                let k = query
                    .inputs
                    .first()
                    .and_then(|a| a.shape.last())
                    .copied()
                    .unwrap_or(1) as f64;
                Work {
                    flops: 2.0 * out_elems * k,
                    bytes: io_bytes,
                    kernels: 1.0,
                }
            }
            G::Gemm | G::Conv | G::ConvTranspose => {
                // Each output reads one weight slice: weights' elements over output channels.
                let w = query.inputs.get(1).map_or(1.0, |w| {
                    let per_out =
                        w.num_elements() as f64 / (*w.shape.first().unwrap_or(&1)).max(1) as f64;
                    if kind == G::Gemm {
                        w.shape.iter().min().copied().unwrap_or(1) as f64
                    } else {
                        per_out
                    }
                });
                let _ = attrs;
                Work {
                    flops: 2.0 * out_elems * w,
                    bytes: io_bytes,
                    kernels: 1.0,
                }
            }
            G::Attention => {
                // Two contractions over the scores, the softmax's few ops per score, and
                // the probabilities written once.
                let (q, k, v) = match query.inputs.as_slice() {
                    [q, k, v, ..] => (q, k, v),
                    _ => return Work::default(),
                };
                let dim = |t: &TensorInfo, d: usize| t.shape.get(d).copied().unwrap_or(1) as f64;
                let scores = dim(q, 0) * dim(q, 1) * dim(q, 2) * dim(k, 2);
                Work {
                    flops: scores * (2.0 * (dim(q, 3) + dim(v, 3)) + 5.0),
                    bytes: io_bytes + 4.0 * scores,
                    kernels: 1.0,
                }
            }
            _ if is_unary_elementwise(kind) || is_binary_arith(kind) => Work {
                flops: out_elems,
                bytes: io_bytes,
                kernels: 1.0,
            },
            _ => {
                let in_elems: f64 = query.inputs.iter().map(|i| i.num_elements() as f64).sum();
                Work {
                    flops: in_elems.max(out_elems) * 4.0,
                    bytes: io_bytes,
                    kernels: 1.0,
                }
            }
        }
    }
}

impl CostModel for AnalyticalCost {
    fn node_cost(&self, query: &CostQuery) -> f64 {
        let w = Self::work(query);
        w.flops * self.ns_per_flop + w.bytes * self.ns_per_byte + w.kernels * self.ns_per_kernel
    }
}

/// Prefers whatever rules added over the input graph: extraction then shows a rule's
/// right-hand side, which is what the rule tests check against the interpreter.
#[derive(Clone, Copy, Debug, Default)]
pub struct PreferRewritten;

impl CostModel for PreferRewritten {
    fn node_cost(&self, query: &CostQuery) -> f64 {
        match query.node {
            GraphNode::Op { .. } if query.original => 1000.0,
            _ => 1.0,
        }
    }
}
