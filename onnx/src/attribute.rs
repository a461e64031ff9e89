//! Typed access to node attributes.
//!
//! `node.attr::<T>(name)` returns `Ok(None)` when the attribute is absent, the value when it
//! is present with the type `T` stands for, and an [`AttrError`] otherwise. `attr_or` applies
//! a default (ONNX operators define defaults for most optional attributes) and
//! `attr_required` turns absence into an error. The `attr_int`, `attr_ints` ... shorthands fix
//! `T` so call sites need no turbofish.

use std::fmt;

use tb_interpreter::Tensor;

use crate::error::OnnxError;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{
    AttributeProto, GraphProto, NodeProto, SparseTensorProto, TensorProto, TypeProto,
};
use crate::tensor::decode_tensor;

/// Why an attribute could not be read.
#[derive(Debug)]
pub struct AttrError {
    /// The node, as [`node_label`] names it.
    pub node: String,
    pub attribute: String,
    pub kind: AttrErrorKind,
}

#[derive(Debug)]
pub enum AttrErrorKind {
    /// A required attribute is absent.
    Missing,
    /// The attribute holds another type than the one asked for.
    WrongType {
        expected: AttributeType,
        found: AttributeType,
    },
    /// The value is malformed (a string that is not UTF-8, an attribute with no type).
    Invalid(String),
    /// A tensor attribute whose tensor could not be converted.
    Tensor(Box<OnnxError>),
    /// Inside a function body: the value is the calling node's attribute of this name.
    Reference(String),
}

impl fmt::Display for AttrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: attribute '{}': ", self.node, self.attribute)?;
        match &self.kind {
            AttrErrorKind::Missing => f.write_str("required but missing"),
            AttrErrorKind::WrongType { expected, found } => write!(
                f,
                "expected {}, found {}",
                expected.as_str_name(),
                found.as_str_name()
            ),
            AttrErrorKind::Invalid(message) => f.write_str(message),
            AttrErrorKind::Tensor(e) => e.fmt(f),
            AttrErrorKind::Reference(name) => write!(
                f,
                "refers to attribute '{name}' of the calling node; it has no value of its own"
            ),
        }
    }
}

impl std::error::Error for AttrError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            AttrErrorKind::Tensor(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

/// How a node is named in messages: its op type and name, or its first output when it has
/// no name (as most nodes in the wild do not).
pub fn node_label(node: &NodeProto) -> String {
    let op = if node.domain.is_empty() {
        node.op_type.clone()
    } else {
        format!("{}.{}", node.domain, node.op_type)
    };
    match (node.name.is_empty(), node.output.first()) {
        (false, _) => format!("{op} node '{}'", node.name),
        (true, Some(out)) if !out.is_empty() => format!("{op} node producing '{out}'"),
        _ => format!("{op} node"),
    }
}

/// The attribute's type: its `type` field, or for files from before that field existed, the
/// value field that is set.
pub fn attribute_type(attr: &AttributeProto) -> Option<AttributeType> {
    match AttributeType::try_from(attr.r#type) {
        Ok(AttributeType::Undefined) => {}
        Ok(t) => return Some(t),
        Err(_) => return None,
    }
    let legacy = [
        (attr.t.is_some(), AttributeType::Tensor),
        (attr.g.is_some(), AttributeType::Graph),
        (attr.sparse_tensor.is_some(), AttributeType::SparseTensor),
        (attr.tp.is_some(), AttributeType::TypeProto),
        (!attr.floats.is_empty(), AttributeType::Floats),
        (!attr.ints.is_empty(), AttributeType::Ints),
        (!attr.strings.is_empty(), AttributeType::Strings),
        (!attr.tensors.is_empty(), AttributeType::Tensors),
        (!attr.graphs.is_empty(), AttributeType::Graphs),
        (!attr.s.is_empty(), AttributeType::String),
        (attr.i != 0, AttributeType::Int),
        (attr.f != 0.0, AttributeType::Float),
    ];
    legacy.into_iter().find(|&(set, _)| set).map(|(_, t)| t)
}

/// A Rust type an attribute value can be read as.
pub trait FromAttr<'a>: Sized {
    const TYPE: AttributeType;
    /// Reads the value; the attribute's type is already known to be `TYPE`.
    fn from_attr(attr: &'a AttributeProto) -> Result<Self, AttrErrorKind>;
}

macro_rules! from_attr {
    ($t:ty, $kind:ident, |$a:ident| $body:expr) => {
        impl<'a> FromAttr<'a> for $t {
            const TYPE: AttributeType = AttributeType::$kind;
            fn from_attr($a: &'a AttributeProto) -> Result<Self, AttrErrorKind> {
                Ok($body)
            }
        }
    };
}

from_attr!(i64, Int, |a| a.i);
from_attr!(f32, Float, |a| a.f);
from_attr!(&'a [u8], String, |a| &a.s);
from_attr!(String, String, |a| utf8(&a.s)?);
from_attr!(&'a [i64], Ints, |a| &a.ints);
from_attr!(Vec<i64>, Ints, |a| a.ints.clone());
from_attr!(&'a [f32], Floats, |a| &a.floats);
from_attr!(Vec<f32>, Floats, |a| a.floats.clone());
from_attr!(Vec<String>, Strings, |a| a
    .strings
    .iter()
    .map(|s| utf8(s))
    .collect::<Result<_, _>>()?);
from_attr!(&'a TensorProto, Tensor, |a| tensor_proto(a)?);
from_attr!(Tensor, Tensor, |a| decode_tensor(tensor_proto(a)?)
    .map_err(|e| AttrErrorKind::Tensor(Box::new(e)))?);
from_attr!(&'a [TensorProto], Tensors, |a| &a.tensors);
from_attr!(&'a GraphProto, Graph, |a| a.g.as_ref().ok_or_else(
    || AttrErrorKind::Invalid("GRAPH attribute without a graph".into())
)?);
from_attr!(&'a [GraphProto], Graphs, |a| &a.graphs);
from_attr!(&'a SparseTensorProto, SparseTensor, |a| a
    .sparse_tensor
    .as_ref()
    .ok_or_else(|| AttrErrorKind::Invalid(
        "SPARSE_TENSOR attribute without a sparse tensor".into()
    ))?);
from_attr!(&'a TypeProto, TypeProto, |a| a.tp.as_ref().ok_or_else(
    || AttrErrorKind::Invalid("TYPE_PROTO attribute without a type".into())
)?);

fn utf8(bytes: &[u8]) -> Result<String, AttrErrorKind> {
    String::from_utf8(bytes.to_vec())
        .map_err(|e| AttrErrorKind::Invalid(format!("string is not UTF-8: {e}")))
}

fn tensor_proto(a: &AttributeProto) -> Result<&TensorProto, AttrErrorKind> {
    a.t.as_ref()
        .ok_or_else(|| AttrErrorKind::Invalid("TENSOR attribute without a tensor".into()))
}

/// Attribute access on a node.
pub trait NodeAttrs {
    /// The raw attribute named `name` (ONNX's checker rejects repeated names; should a file
    /// repeat one anyway, the first wins).
    fn attribute(&self, name: &str) -> Option<&AttributeProto>;

    /// Builds an error about attribute `name` of this node.
    fn attr_error(&self, name: &str, kind: AttrErrorKind) -> AttrError;

    /// The attribute as a `T`, `None` if absent.
    fn attr<'a, T: FromAttr<'a>>(&'a self, name: &str) -> Result<Option<T>, AttrError> {
        let Some(attr) = self.attribute(name) else {
            return Ok(None);
        };
        if !attr.ref_attr_name.is_empty() {
            let reference = AttrErrorKind::Reference(attr.ref_attr_name.clone());
            return Err(self.attr_error(name, reference));
        }
        match attribute_type(attr) {
            Some(t) if t == T::TYPE => T::from_attr(attr)
                .map(Some)
                .map_err(|kind| self.attr_error(name, kind)),
            Some(found) => Err(self.attr_error(
                name,
                AttrErrorKind::WrongType {
                    expected: T::TYPE,
                    found,
                },
            )),
            None => Err(self.attr_error(
                name,
                AttrErrorKind::Invalid(format!("has no known type (type = {})", attr.r#type)),
            )),
        }
    }

    /// The attribute as a `T`, or `default` if absent.
    fn attr_or<'a, T: FromAttr<'a>>(&'a self, name: &str, default: T) -> Result<T, AttrError> {
        Ok(self.attr(name)?.unwrap_or(default))
    }

    /// The attribute as a `T`; absence is an error.
    fn attr_required<'a, T: FromAttr<'a>>(&'a self, name: &str) -> Result<T, AttrError> {
        self.attr(name)?
            .ok_or_else(|| self.attr_error(name, AttrErrorKind::Missing))
    }

    fn attr_int(&self, name: &str) -> Result<Option<i64>, AttrError> {
        self.attr(name)
    }

    fn attr_int_or(&self, name: &str, default: i64) -> Result<i64, AttrError> {
        self.attr_or(name, default)
    }

    fn attr_ints(&self, name: &str) -> Result<Option<Vec<i64>>, AttrError> {
        self.attr(name)
    }

    fn attr_float(&self, name: &str) -> Result<Option<f32>, AttrError> {
        self.attr(name)
    }

    fn attr_float_or(&self, name: &str, default: f32) -> Result<f32, AttrError> {
        self.attr_or(name, default)
    }

    fn attr_floats(&self, name: &str) -> Result<Option<Vec<f32>>, AttrError> {
        self.attr(name)
    }

    fn attr_string(&self, name: &str) -> Result<Option<String>, AttrError> {
        self.attr(name)
    }

    fn attr_string_or(&self, name: &str, default: &str) -> Result<String, AttrError> {
        Ok(self.attr(name)?.unwrap_or_else(|| default.to_string()))
    }

    fn attr_strings(&self, name: &str) -> Result<Option<Vec<String>>, AttrError> {
        self.attr(name)
    }

    /// A tensor attribute, converted. Tensor attributes hold their data inline in practice;
    /// one with external data needs [`crate::Model::tensor`] on [`NodeAttrs::attr_tensor_proto`].
    fn attr_tensor(&self, name: &str) -> Result<Option<Tensor>, AttrError> {
        self.attr(name)
    }

    fn attr_tensor_proto(&self, name: &str) -> Result<Option<&TensorProto>, AttrError> {
        self.attr(name)
    }

    /// A subgraph (the body of `If`, `Loop`, `Scan`).
    fn attr_graph(&self, name: &str) -> Result<Option<&GraphProto>, AttrError> {
        self.attr(name)
    }
}

impl NodeAttrs for NodeProto {
    fn attribute(&self, name: &str) -> Option<&AttributeProto> {
        self.attribute.iter().find(|a| a.name == name)
    }

    fn attr_error(&self, name: &str, kind: AttrErrorKind) -> AttrError {
        AttrError {
            node: node_label(self),
            attribute: name.to_string(),
            kind,
        }
    }
}
