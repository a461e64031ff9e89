//! The e-class analysis: each e-class knows the static shape and element type of the
//! tensor it stands for, and whether it is a constant (computable at compile time from
//! constants alone, so extraction may fold it).
//!
//! Classes built from the IR take their type from the IR; classes that rules create get
//! theirs from the shape rules of the ops rules build ([`infer`]). Every rule checks
//! shapes before it adds a term, so a merge never sees two different types.

use egg::{Analysis, DidMerge, EGraph, Id};
use tb_dialects::graph::GraphOp;
use tb_dialects::graph::shape;
use tb_ir::Type;

use super::language::{Attrs, GraphNode};

/// The static type of a tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    pub shape: Vec<i64>,
    pub element: Type,
}

impl TensorInfo {
    pub fn num_elements(&self) -> i64 {
        self.shape.iter().product()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// What an e-class knows.
#[derive(Clone, Debug, Default)]
pub struct ClassData {
    /// The tensor's type; `None` only until the conversion fills in an IR type.
    pub info: Option<TensorInfo>,
    /// Computable from constants alone.
    pub constant: bool,
}

/// The analysis of [`EGraph`]s over [`GraphNode`].
#[derive(Clone, Debug, Default)]
pub struct GraphAnalysis;

pub type GraphEGraph = EGraph<GraphNode, GraphAnalysis>;

impl Analysis<GraphNode> for GraphAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut GraphEGraph, enode: &GraphNode) -> ClassData {
        match enode {
            GraphNode::Leaf(_) => ClassData::default(),
            GraphNode::Splat { element, shape, .. } => ClassData {
                info: Some(TensorInfo {
                    shape: shape.clone(),
                    element: *element,
                }),
                constant: true,
            },
            GraphNode::Op { kind, attrs, args } => {
                let inputs: Option<Vec<&TensorInfo>> =
                    args.iter().map(|&a| egraph[a].data.info.as_ref()).collect();
                let info = inputs.and_then(|inputs| infer(kind.0, attrs, &inputs));
                let constant = kind.0 == GraphOp::Constant
                    || (!args.is_empty() && args.iter().all(|&a| egraph[a].data.constant));
                ClassData { info, constant }
            }
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        let mut changed_a = false;
        if a.info.is_none() && b.info.is_some() {
            a.info = b.info.clone();
            changed_a = true;
        }
        if !a.constant && b.constant {
            a.constant = true;
            changed_a = true;
        }
        let changed_b = (b.info.is_none() && a.info.is_some()) || (!b.constant && a.constant);
        DidMerge(changed_a, changed_b)
    }
}

/// Whether `kind` applies one function to each element of its only operand.
pub fn is_unary_elementwise(kind: GraphOp) -> bool {
    use GraphOp as G;
    matches!(
        kind,
        G::Relu
            | G::LeakyRelu
            | G::Sigmoid
            | G::Tanh
            | G::Gelu
            | G::Erf
            | G::Exp
            | G::Log
            | G::Sqrt
            | G::Reciprocal
            | G::Neg
            | G::Abs
            | G::HardSigmoid
            | G::HardSwish
            | G::Softplus
            | G::Elu
            | G::Selu
            | G::Celu
            | G::Mish
            | G::Softsign
            | G::Clip
            | G::Identity
    )
}

/// Whether `kind` is a broadcasting binary op whose result has its operands' element type.
pub fn is_binary_arith(kind: GraphOp) -> bool {
    matches!(
        kind,
        GraphOp::Add | GraphOp::Sub | GraphOp::Mul | GraphOp::Div
    )
}

/// The result type of the ops rules build, from their operands' types; `None` for an op
/// rules do not build (its class gets the type of the class it joins).
pub fn infer(kind: GraphOp, attrs: &Attrs, inputs: &[&TensorInfo]) -> Option<TensorInfo> {
    use GraphOp as G;
    let first = inputs.first()?;
    let shape = |s: Vec<i64>| {
        Some(TensorInfo {
            shape: s,
            element: first.element,
        })
    };
    if inputs.iter().any(|i| i.element != first.element) {
        return None;
    }
    match kind {
        _ if is_unary_elementwise(kind) && inputs.len() == 1 => shape(first.shape.clone()),
        _ if is_binary_arith(kind) && inputs.len() == 2 => {
            shape(shape::broadcast("eqsat", &[&first.shape, &inputs[1].shape]).ok()?)
        }
        G::Matmul if inputs.len() == 2 => {
            shape(shape::matmul(&first.shape, &inputs[1].shape).ok()?)
        }
        G::Transpose if inputs.len() == 1 => {
            shape(shape::transpose(&first.shape, attrs.ints("perm")).ok()?)
        }
        G::Reshape if inputs.len() == 1 => shape(
            shape::reshape(
                &first.shape,
                attrs.ints("shape")?,
                attrs.bool("allowzero").unwrap_or(false),
            )
            .ok()?,
        ),
        G::Unsqueeze if inputs.len() == 1 => {
            shape(shape::unsqueeze(&first.shape, attrs.ints("axes")?).ok()?)
        }
        G::Attention if (3..=4).contains(&inputs.len()) => {
            let mask = inputs.get(3).map(|m| m.shape.as_slice());
            let d = tb_dialects::graph::attention_dims(
                &first.shape,
                &inputs[1].shape,
                &inputs[2].shape,
                mask,
            )
            .ok()?;
            shape(d.output_shape())
        }
        G::Concat => {
            let shapes: Vec<&[i64]> = inputs.iter().map(|i| i.shape.as_slice()).collect();
            shape(shape::concat(&shapes, attrs.int("axis")?).ok()?)
        }
        G::Slice if inputs.len() == 1 => shape(
            shape::slice(
                &first.shape,
                attrs.ints("starts")?,
                attrs.ints("ends")?,
                attrs.ints("axes"),
                attrs.ints("steps"),
            )
            .ok()?,
        ),
        _ => None,
    }
}

/// The type of `id`'s class.
pub fn info(egraph: &GraphEGraph, id: Id) -> Option<&TensorInfo> {
    egraph[id].data.info.as_ref()
}
