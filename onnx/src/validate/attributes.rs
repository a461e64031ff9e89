//! Node attributes: well-formed on any node (a name, a type, the value field its type
//! names and no other, each name once, no reference to a calling function's attribute
//! outside a function), and against the operator's schema (no unknown attribute, every
//! required one present, each of its declared type). Files of IR version 1 predate the
//! `type` field: their attributes are typed by the value field that is set.

use std::collections::HashSet;

use crate::attribute::attribute_type;
use crate::import::Problem;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{AttributeProto, NodeProto};

use super::node_at;
use super::schema::Schema;

/// Checks the attributes of `node` (number `index`) of a model of IR version `ir_version`.
pub fn check_well_formed(
    index: usize,
    node: &NodeProto,
    ir_version: i64,
    errors: &mut Vec<Problem>,
) {
    let mut seen = HashSet::new();
    for attr in &node.attribute {
        let problem = if attr.name.is_empty() {
            Some("an attribute has an empty name".to_string())
        } else if !seen.insert(attr.name.as_str()) {
            Some(format!("attribute '{}' appears more than once", attr.name))
        } else if !attr.ref_attr_name.is_empty() {
            Some(format!(
                "attribute '{}' refers to attribute '{}' of a calling function, but the node \
                 is not in a function",
                attr.name, attr.ref_attr_name
            ))
        } else if ir_version < 2 && attr.r#type == AttributeType::Undefined as i32 {
            None
        } else {
            value_problem(attr).map(|m| format!("attribute '{}' {m}", attr.name))
        };
        if let Some(message) = problem {
            errors.push(Problem::invalid(message).at(node_at(index, node)));
        }
    }
}

/// Why the attribute's value fields do not match its type, if they do not.
fn value_problem(attr: &AttributeProto) -> Option<String> {
    let ty = match AttributeType::try_from(attr.r#type) {
        Ok(AttributeType::Undefined) => return Some("has no type".into()),
        Ok(t) => t,
        Err(_) => return Some(format!("has unknown type {}", attr.r#type)),
    };
    // Scalars cannot be told from their zero default; the other fields can.
    let set = [
        (AttributeType::Tensor, attr.t.is_some()),
        (AttributeType::Graph, attr.g.is_some()),
        (AttributeType::SparseTensor, attr.sparse_tensor.is_some()),
        (AttributeType::TypeProto, attr.tp.is_some()),
        (AttributeType::Floats, !attr.floats.is_empty()),
        (AttributeType::Ints, !attr.ints.is_empty()),
        (AttributeType::Strings, !attr.strings.is_empty()),
        (AttributeType::Tensors, !attr.tensors.is_empty()),
        (AttributeType::Graphs, !attr.graphs.is_empty()),
        (
            AttributeType::SparseTensors,
            !attr.sparse_tensors.is_empty(),
        ),
        (AttributeType::TypeProtos, !attr.type_protos.is_empty()),
        (AttributeType::String, !attr.s.is_empty()),
        (AttributeType::Int, attr.i != 0),
        (AttributeType::Float, attr.f != 0.0),
    ];
    let single_message = matches!(
        ty,
        AttributeType::Tensor
            | AttributeType::Graph
            | AttributeType::SparseTensor
            | AttributeType::TypeProto
    );
    if single_message && !set.iter().any(|&(t, s)| t == ty && s) {
        return Some(format!(
            "is of type {} but holds no value",
            ty.as_str_name()
        ));
    }
    let other = set.iter().find(|&&(t, s)| t != ty && s).map(|&(t, _)| t)?;
    Some(format!(
        "is of type {} but also holds a {} value",
        ty.as_str_name(),
        other.as_str_name()
    ))
}

/// Checks `node`'s attributes against `schema`, the version opset `opset` uses.
pub fn check_against(
    index: usize,
    node: &NodeProto,
    schema: &Schema,
    opset: i64,
    errors: &mut Vec<Problem>,
) {
    let mut push =
        |message: String| errors.push(Problem::invalid(message).at(node_at(index, node)));
    for attr in &node.attribute {
        let Some(spec) = schema.attribute(&attr.name) else {
            push(format!(
                "attribute '{}' is not an attribute of {} in opset {opset}",
                attr.name, schema.op_type
            ));
            continue;
        };
        // An untyped (IR version 1) attribute whose value is zero or empty has no type to
        // compare; any value reads the same as the expected type's default.
        let Some(found) = attribute_type(attr) else {
            continue;
        };
        if found != spec.ty {
            let found = found.as_str_name();
            push(format!(
                "attribute '{}' must be {}, found {found}",
                attr.name,
                spec.ty.as_str_name()
            ));
        }
    }
    for spec in schema.attributes.iter().filter(|s| s.required) {
        if !node.attribute.iter().any(|a| a.name == spec.name) {
            push(format!(
                "attribute '{}' is required by {} in opset {opset} but missing",
                spec.name, schema.op_type
            ));
        }
    }
}
