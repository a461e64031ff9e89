//! Operators imported as a few simpler ONNX nodes, the way ONNX defines them by function
//! bodies: a converter answers [`Lowering::Expand`](super::node::Lowering) with the nodes
//! and the constants they read, and the importer imports those nodes in its place (each
//! located at the original node). Names the expansion makes up cannot clash with the
//! model's: they start with the original node's first output and a `/tb.` segment.

use tb_interpreter::Tensor;

use crate::proto::attribute_proto::AttributeType;
use crate::proto::tensor_proto::DataType;
use crate::proto::{AttributeProto, NodeProto};

/// Nodes (in order) that compute an ONNX node's outputs, and the constants they read.
pub struct Expansion {
    pub constants: Vec<(String, Tensor)>,
    pub nodes: Vec<NodeProto>,
}

/// Builds an [`Expansion`] of one node.
pub struct Expander<'n> {
    node: &'n NodeProto,
    expansion: Expansion,
    fresh: usize,
}

impl<'n> Expander<'n> {
    pub fn new(node: &'n NodeProto) -> Self {
        Expander {
            node,
            expansion: Expansion {
                constants: Vec::new(),
                nodes: Vec::new(),
            },
            fresh: 0,
        }
    }

    fn fresh_name(&mut self, what: &str) -> String {
        let base = self.node.output.first().map_or("", String::as_str);
        self.fresh += 1;
        format!("{base}/tb.{what}{}", self.fresh)
    }

    /// A constant the nodes can read, by its name.
    pub fn constant(&mut self, t: Tensor) -> String {
        let name = self.fresh_name("const");
        self.expansion.constants.push((name.clone(), t));
        name
    }

    /// An i64 list constant (a Reshape's shape, a Gather's indices).
    pub fn ints(&mut self, v: &[i64]) -> String {
        let t = Tensor::from_vec(vec![v.len() as i64], v.to_vec())
            .expect("a vector's length matches its shape");
        self.constant(t)
    }

    /// A 0-d constant of the element type `like` has.
    pub fn scalar_like(&mut self, v: f64, like: tb_interpreter::DType) -> String {
        self.constant(Tensor::scalar(v).cast(like))
    }

    /// A node of `op_type` over `inputs`; gives the name of its (single) output.
    pub fn op(&mut self, op_type: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        let out = self.fresh_name(&op_type.to_ascii_lowercase());
        self.op_to(op_type, inputs, attrs, &out);
        out
    }

    /// A node of `op_type` whose output is `output` (one of the expanded node's outputs).
    pub fn op_to(
        &mut self,
        op_type: &str,
        inputs: &[&str],
        attrs: Vec<AttributeProto>,
        output: &str,
    ) {
        self.expansion.nodes.push(NodeProto {
            op_type: op_type.into(),
            name: self.node.name.clone(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.to_string()],
            attribute: attrs,
            ..Default::default()
        });
    }

    /// A node of `op_type` with `n` outputs; gives their names.
    pub fn op_n(
        &mut self,
        op_type: &str,
        inputs: &[&str],
        attrs: Vec<AttributeProto>,
        n: usize,
    ) -> Vec<String> {
        let what = op_type.to_ascii_lowercase();
        let outputs: Vec<String> = (0..n).map(|_| self.fresh_name(&what)).collect();
        self.expansion.nodes.push(NodeProto {
            op_type: op_type.into(),
            name: self.node.name.clone(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.clone(),
            attribute: attrs,
            ..Default::default()
        });
        outputs
    }

    pub fn finish(self) -> Expansion {
        self.expansion
    }
}

pub fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i: v,
        ..Default::default()
    }
}

pub fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

pub fn string_attr(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::String as i32,
        s: v.as_bytes().to_vec(),
        ..Default::default()
    }
}

/// Cast's `to` for an element type.
pub fn to_attr(dtype: tb_interpreter::DType) -> AttributeProto {
    let to: DataType = crate::onnx_from_dtype(dtype);
    int_attr("to", to as i64)
}
