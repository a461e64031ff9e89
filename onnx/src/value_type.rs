//! The types of graph inputs, outputs and intermediate values (`ValueInfoProto`), decoded
//! into a form the importer can match on. Dimensions may be known sizes, named symbols
//! (`batch`, `N`) or unknown, and are reported as such rather than guessed.

use std::fmt;

use tb_interpreter::DType;

use crate::dtype::{data_type_name, dtype_from_onnx};
use crate::error::{OnnxError, Result};
use crate::proto::tensor_shape_proto::dimension;
use crate::proto::type_proto::Value;
use crate::proto::{TensorShapeProto, TypeProto, ValueInfoProto};

/// One dimension of a tensor type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(i64),
    /// A named size, equal wherever the same name appears in the graph.
    Symbolic(String),
    Unknown,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Symbolic(s) => f.write_str(s),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A tensor type: the element type as an ONNX code (which may be one the interpreter lacks,
/// such as STRING) and the shape, `None` when even the rank is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    pub elem_type: i32,
    pub shape: Option<Vec<Dim>>,
}

impl TensorType {
    /// The interpreter's element type (the carrier of a narrow type, see [`crate::narrow`]),
    /// or an "unsupported" error for ONNX types it lacks.
    pub fn dtype(&self) -> Result<DType> {
        dtype_from_onnx(self.elem_type)
            .or_else(|| crate::NarrowType::from_onnx(self.elem_type).map(|n| n.carrier()))
            .ok_or_else(|| {
                OnnxError::unsupported(
                    "",
                    format!("element type {}", data_type_name(self.elem_type)),
                )
            })
    }

    /// The shape if every dimension is known.
    pub fn static_shape(&self) -> Option<Vec<i64>> {
        self.shape
            .as_ref()?
            .iter()
            .map(|d| match d {
                Dim::Known(n) => Some(*n),
                _ => None,
            })
            .collect()
    }
}

/// `FLOAT[N,3,?]`, or `FLOAT[*]` for an unknown rank.
impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", data_type_name(self.elem_type))?;
        match &self.shape {
            None => f.write_str("*")?,
            Some(dims) => {
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{d}")?;
                }
            }
        }
        f.write_str("]")
    }
}

/// The type of a value. `None` element types are ones the file leaves unspecified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    Tensor(TensorType),
    SparseTensor(TensorType),
    Sequence(Option<Box<ValueType>>),
    Optional(Option<Box<ValueType>>),
    Map {
        key_type: i32,
        value: Option<Box<ValueType>>,
    },
    /// The file records no type.
    Unknown,
}

impl ValueType {
    /// The kind of type, for messages: `tensor`, `sequence`, `optional` ...
    pub fn kind(&self) -> &'static str {
        match self {
            ValueType::Tensor(_) => "tensor",
            ValueType::SparseTensor(_) => "sparse tensor",
            ValueType::Sequence(_) => "sequence",
            ValueType::Optional(_) => "optional",
            ValueType::Map { .. } => "map",
            ValueType::Unknown => "unknown",
        }
    }
}

/// Decodes a `TypeProto`.
pub fn decode_type(ty: &TypeProto) -> Result<ValueType> {
    let boxed = |t: &Option<Box<TypeProto>>| -> Result<Option<Box<ValueType>>> {
        t.as_deref()
            .map(|t| decode_type(t).map(Box::new))
            .transpose()
    };
    Ok(match &ty.value {
        None => ValueType::Unknown,
        Some(Value::TensorType(t)) => ValueType::Tensor(TensorType {
            elem_type: t.elem_type,
            shape: t.shape.as_ref().map(decode_shape).transpose()?,
        }),
        Some(Value::SparseTensorType(t)) => ValueType::SparseTensor(TensorType {
            elem_type: t.elem_type,
            shape: t.shape.as_ref().map(decode_shape).transpose()?,
        }),
        Some(Value::SequenceType(s)) => ValueType::Sequence(boxed(&s.elem_type)?),
        Some(Value::OptionalType(o)) => ValueType::Optional(boxed(&o.elem_type)?),
        Some(Value::MapType(m)) => ValueType::Map {
            key_type: m.key_type,
            value: boxed(&m.value_type)?,
        },
    })
}

fn decode_shape(shape: &TensorShapeProto) -> Result<Vec<Dim>> {
    shape
        .dim
        .iter()
        .map(|d| match &d.value {
            // Exporters write -1 for "unknown", as onnxruntime reads it.
            Some(dimension::Value::DimValue(-1)) => Ok(Dim::Unknown),
            Some(dimension::Value::DimValue(n)) if *n < 0 => {
                Err(OnnxError::invalid("", format!("dimension {n} is negative")))
            }
            Some(dimension::Value::DimValue(n)) => Ok(Dim::Known(*n)),
            // An empty name carries no information, like an unset dimension; PaddlePaddle
            // writes `?` for every unknown dimension, so `?` names no shared size either.
            Some(dimension::Value::DimParam(s)) if s.is_empty() || s == "?" => Ok(Dim::Unknown),
            Some(dimension::Value::DimParam(s)) => Ok(Dim::Symbolic(s.clone())),
            None => Ok(Dim::Unknown),
        })
        .collect()
}

/// The type of a graph input, output or intermediate value.
pub fn value_type(info: &ValueInfoProto) -> Result<ValueType> {
    match &info.r#type {
        None => Ok(ValueType::Unknown),
        Some(t) => decode_type(t).map_err(|e| e.within(format!("value '{}'", info.name))),
    }
}

/// The tensor type of a value that must be a tensor.
pub fn tensor_type(info: &ValueInfoProto) -> Result<TensorType> {
    match value_type(info)? {
        ValueType::Tensor(t) => Ok(t),
        ValueType::Unknown => Err(OnnxError::invalid(
            format!("value '{}'", info.name),
            "has no type",
        )),
        other => Err(OnnxError::unsupported(
            format!("value '{}'", info.name),
            format!("its type is {}, not tensor", other.kind()),
        )),
    }
}
