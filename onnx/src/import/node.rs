//! What a converter sees of one ONNX node ([`NodeCx`]) and what it answers ([`Lowering`]).

use tb_interpreter::{DType, Tensor};
use tb_ir::{Attr, Context, Type};

use super::attrs::convert_all;
use super::error::{Problem, ProblemKind};
use crate::attribute::NodeAttrs;
use crate::proto::NodeProto;

/// One present input of the node.
pub struct Input<'a> {
    pub ty: Type,
    pub shape: Vec<i64>,
    pub dtype: DType,
    /// Its value, when known at import time.
    pub constant: Option<&'a Tensor>,
    /// Whether `constant` may select what is computed (an `If` branch): false for a value
    /// supplied only for shape-determining uses of a graph input.
    pub foldable: bool,
    /// The narrow ONNX type whose values the tensor carries (see [`crate::narrow`]).
    pub narrow: Option<crate::NarrowType>,
}

/// A node being converted.
pub struct NodeCx<'a> {
    pub ctx: &'a mut Context,
    pub node: &'a NodeProto,
    /// The version of the default-domain opset the model imports.
    pub opset: i64,
    /// One entry per ONNX input; `None` where the input is omitted (`""`).
    pub inputs: Vec<Option<Input<'a>>>,
    /// Problems found so far; the node fails if there are any.
    pub problems: Vec<Problem>,
}

/// A graph op to build: `operands` are indices of the node's inputs, result `i` defines
/// the node's output `outputs[i]`.
pub struct OpPlan {
    pub name: &'static str,
    pub operands: Vec<usize>,
    pub attrs: Vec<(String, Attr)>,
    /// Result types for ops whose shape rule needs to know how many results there are.
    pub result_types: Option<Vec<Type>>,
    pub outputs: Vec<usize>,
}

/// What one node output is, when no op computes it.
pub enum Output {
    /// The value of input `i` (Identity, Dropout at inference).
    Input(usize),
    Constant(Tensor),
}

pub enum Lowering {
    Op(OpPlan),
    Outputs(Vec<Output>),
    /// Simpler nodes that compute the outputs (see [`super::expansion`]).
    Expand(super::expansion::Expansion),
    /// A `graph.if` on input 0, whose regions compute the then and else branches.
    If(Box<[Branch; 2]>),
    /// A `graph.loop` whose body computes the branch.
    Loop(Box<LoopPlan>),
    /// A `graph.scan` whose body computes the branch.
    Scan(Box<ScanPlan>),
}

/// One subgraph imported into a region: an `If` branch decided at run time or a `Loop` or
/// `Scan` body. The nodes that compute it, the (renamed) names of its inputs, bound to the
/// region's block arguments (a body's; an `If` branch has none), and the names of its
/// results (one per node output; a body's in its own order).
pub struct Branch {
    pub expansion: super::expansion::Expansion,
    pub inputs: Vec<String>,
    pub results: Vec<String>,
}

/// A Loop: its body, and what import time knows of how many iterations it runs.
pub struct LoopPlan {
    pub body: Branch,
    /// The value of `M`, when known (`None` when it is omitted or computed at run time).
    pub trip_count: Option<i64>,
    /// Whether `cond` is omitted or known to be true, so that only the body can stop the
    /// loop before `M` iterations.
    pub starts_true: bool,
    /// The loop unrolled, for a body that needs its iteration number as a constant (a
    /// Slice bound computed from it): present when `M` is known and small and the body
    /// passes the condition on unchanged.
    pub unrolled: Option<Unrolled>,
}

/// A Loop as straight-line nodes: one renamed copy of the body per iteration, whose
/// iteration number is a constant (`body`, in the model's opset), then the nodes that give
/// the Loop's outputs (`glue`, in opset-13 form: Identity of the final values, Unsqueeze
/// and Concat of the scan values).
pub struct Unrolled {
    pub body: super::expansion::Expansion,
    pub glue: super::expansion::Expansion,
}

/// A Scan (opset 9 on): its body and its attributes, axes normalized and every list as
/// long as the inputs or outputs it describes.
pub struct ScanPlan {
    pub body: Branch,
    pub num_scan_inputs: usize,
    pub input_axes: Vec<i64>,
    pub input_directions: Vec<i64>,
    pub output_axes: Vec<i64>,
    pub output_directions: Vec<i64>,
}

impl<'a> NodeCx<'a> {
    pub fn has_input(&self, i: usize) -> bool {
        matches!(self.inputs.get(i), Some(Some(_)))
    }

    /// Input `i`, or a problem saying it is required.
    pub fn input(&self, i: usize) -> Result<&Input<'a>, Problem> {
        self.inputs
            .get(i)
            .and_then(|x| x.as_ref())
            .ok_or_else(|| Problem::invalid(format!("input #{i} is required but missing")))
    }

    pub fn shape(&self, i: usize) -> Result<&[i64], Problem> {
        Ok(&self.input(i)?.shape)
    }

    /// The value of input `i`, which must be known at import time because it fixes a
    /// shape (`what` names it in the error).
    pub fn constant(&self, i: usize, what: &str) -> Result<&'a Tensor, Problem> {
        let input = self.input(i)?;
        input.constant.ok_or_else(|| {
            Problem::new(
                ProblemKind::NotConstant,
                format!(
                    "input '{}' ({what}) must be a constant known at import time, but it is \
                     computed at run time",
                    self.node.input[i]
                ),
            )
        })
    }

    /// A constant integer input as a list.
    pub fn constant_ints(&self, i: usize, what: &str) -> Result<Vec<i64>, Problem> {
        self.constant(i, what)?.to_i64_vec().map_err(|e| {
            Problem::invalid(format!("input '{}' ({what}): {}", self.node.input[i], e.0))
        })
    }

    /// An int list given as attribute `attr` (older opsets) or as input `i` (newer ones);
    /// `None` when neither is present.
    pub fn ints_attr_or_input(&self, attr: &str, i: usize) -> Result<Option<Vec<i64>>, Problem> {
        if let Some(v) = self.node.attr_ints(attr).map_err(attr_problem)? {
            return Ok(Some(v));
        }
        if self.has_input(i) {
            return self.constant_ints(i, attr).map(Some);
        }
        Ok(None)
    }

    /// The node's attributes for graph op `op`, except `skip`; problems are recorded.
    pub fn attrs(&mut self, op: &str, skip: &[&str]) -> Vec<(String, Attr)> {
        let mut errors = Vec::new();
        let out = convert_all(self.ctx, self.node, op, skip, &mut errors);
        self.problems.extend(errors.into_iter().map(|e| {
            let kind = if e.contains("is not supported") {
                ProblemKind::UnsupportedFeature
            } else {
                ProblemKind::Invalid
            };
            Problem::new(kind, e)
        }));
        out
    }

    /// Operands for every present input, which must not leave a gap before a later one.
    pub fn all_inputs(&self) -> Result<Vec<usize>, Problem> {
        let present: Vec<usize> = (0..self.inputs.len())
            .filter(|&i| self.has_input(i))
            .collect();
        if let Some(gap) = (0..present.len()).find(|&k| present[k] != k) {
            return Err(Problem::unsupported(format!(
                "optional input #{gap} is omitted before a later input"
            )));
        }
        Ok(present)
    }

    /// The number of outputs the node asks for (trailing omitted ones do not count).
    pub fn num_outputs(&self) -> usize {
        let outs = &self.node.output;
        outs.iter()
            .rposition(|o| !o.is_empty())
            .map_or(0, |p| p + 1)
    }

    /// A plan with the usual shape: `operands` in, results to outputs `0..n`.
    pub fn plan(
        &self,
        name: &'static str,
        operands: Vec<usize>,
        attrs: Vec<(String, Attr)>,
    ) -> Lowering {
        Lowering::Op(OpPlan {
            name,
            operands,
            attrs,
            result_types: None,
            outputs: vec![0],
        })
    }

    /// An error unless the node asks for at most `n` outputs.
    pub fn at_most_outputs(&self, n: usize) -> Result<(), Problem> {
        if self.num_outputs() > n {
            return Err(Problem::unsupported(format!(
                "only the first {n} output(s) are supported, the node asks for {}",
                self.num_outputs()
            )));
        }
        Ok(())
    }
}

/// An attribute that cannot be read.
pub fn attr_problem(e: crate::attribute::AttrError) -> Problem {
    match &e.kind {
        crate::attribute::AttrErrorKind::Tensor(t) if t.is_unsupported() => {
            Problem::new(ProblemKind::UnsupportedType, e.to_string())
        }
        _ => Problem::invalid(e.to_string()),
    }
}
