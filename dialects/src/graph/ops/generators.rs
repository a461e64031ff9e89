//! Ops that make tensors from attributes or from shapes: `graph.constant`,
//! `graph.constant_of_shape`, `graph.range`, `graph.shape` and `graph.size`.
//!
//! ConstantOfShape's shape input and Range's start/limit/delta fix the result shape, so
//! they are attributes (`shape = array<i64: ...>`, scalar `start`/`limit`/`delta`).

use tb_ir::ods::{OpDef, PURE, attr, operand, optional_attr};
use tb_ir::registry::OpTraits;

use super::FUNCTIONAL;
use crate::graph::attrs::{
    DENSE_I64_ARRAY_ATTR, ELEMENTS_ATTR, I64_ATTR, SCALAR_ATTR, Scalar, elements_type, scalar,
};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::{
    ElementKind, TENSOR_ANY, TENSOR_I64, TENSOR_NUMERIC, element_kind, static_tensor, type_string,
};

/// Constant: the result type is the value's.
fn constant(i: &RuleInput) -> RuleResult {
    let Some(value) = i.attrs.get("value") else {
        return Err("requires attribute 'value'".into());
    };
    let Some(ty) = elements_type(i.ctx, value) else {
        return Err(
            "attribute 'value' must be a dense or dense_resource elements attribute".into(),
        );
    };
    let Some((shape, element)) = static_tensor(i.ctx, ty) else {
        return Err(format!(
            "value type {} must be a statically shaped tensor",
            type_string(i.ctx, ty)
        ));
    };
    if element_kind(i.ctx, element).is_none() {
        return Err(format!(
            "value type {} has no ONNX element type",
            type_string(i.ctx, ty)
        ));
    }
    Ok(vec![Inferred::new(shape.to_vec(), Elem::Type(element))])
}

/// ConstantOfShape: the `value` scalar (ONNX's default: f32 zero) fills `shape`.
fn constant_of_shape(i: &RuleInput) -> RuleResult {
    let dims = i.attrs.required_ints("shape")?;
    let out = shape::constant_of_shape(&dims).map_err(shape_err)?;
    let element = match i.attrs.get("value") {
        Some(v) => match scalar(i.ctx, v) {
            Some((ty, _)) if element_kind(i.ctx, ty).is_some() => Elem::Type(ty),
            _ => return Err("attribute 'value' must be a scalar of an ONNX element type".into()),
        },
        None => Elem::F32,
    };
    Ok(vec![Inferred::new(out, element)])
}

/// Range: `start`, `limit` and `delta` are scalars of the result's element type.
fn range(i: &RuleInput) -> RuleResult {
    let mut ty = None;
    let mut values = [Scalar::Int(0); 3];
    for (k, name) in ["start", "limit", "delta"].into_iter().enumerate() {
        let Some(a) = i.attrs.get(name) else {
            return Err(format!("requires attribute '{name}'"));
        };
        let Some((t, v)) = scalar(i.ctx, a) else {
            return Err(format!("attribute '{name}' must be an integer or float"));
        };
        if *ty.get_or_insert(t) != t {
            return Err("start, limit and delta must have one type".into());
        }
        values[k] = v;
    }
    let ty = ty.expect("three attributes were read");
    let out = match (values, element_kind(i.ctx, ty)) {
        ([Scalar::Int(s), Scalar::Int(l), Scalar::Int(d)], Some(ElementKind::Signed(_))) => {
            shape::range_int(s as i64, l as i64, d as i64)
        }
        ([Scalar::Float(s), Scalar::Float(l), Scalar::Float(d)], Some(ElementKind::Float(_))) => {
            shape::range(s, l, d)
        }
        _ => {
            return Err(format!(
                "start, limit and delta must be signed integers or floats, got {}",
                type_string(i.ctx, ty)
            ));
        }
    }
    .map_err(shape_err)?;
    Ok(vec![Inferred::new(out, Elem::Type(ty))])
}

/// Shape (opset 15): the `[start, end)` dimensions as an i64 vector.
fn shape_of(i: &RuleInput) -> RuleResult {
    let out = shape::shape_op(
        &i.arg(0).shape,
        i.attrs.opt_i64("start")?,
        i.attrs.opt_i64("end")?,
    )
    .map_err(shape_err)?;
    Ok(vec![Inferred::new(out, Elem::I64)])
}

/// Size: the element count as an i64 scalar.
fn size(_: &RuleInput) -> RuleResult {
    Ok(vec![Inferred::new(vec![], Elem::I64)])
}

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.constant", constant, OpTraits { constant_like: true, ..PURE }, {
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[attr("value", ELEMENTS_ATTR)],
        format: Some("attr-dict $value"),
    }),
    graph_op!("graph.constant_of_shape", constant_of_shape, {
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[
            attr("shape", DENSE_I64_ARRAY_ATTR),
            optional_attr("value", SCALAR_ATTR),
        ],
        format: Some("attr-dict `:` type($output)"),
    }),
    graph_op!("graph.range", range, {
        results: &[operand("output", TENSOR_NUMERIC)],
        attributes: &[
            attr("delta", SCALAR_ATTR),
            attr("limit", SCALAR_ATTR),
            attr("start", SCALAR_ATTR),
        ],
        format: Some("attr-dict `:` type($output)"),
    }),
    graph_op!("graph.shape", shape_of, {
        operands: &[operand("data", TENSOR_ANY)],
        results: &[operand("shape", TENSOR_I64)],
        attributes: &[
            optional_attr("end", I64_ATTR),
            optional_attr("start", I64_ATTR),
        ],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.size", size, {
        operands: &[operand("data", TENSOR_ANY)],
        results: &[operand("size", TENSOR_I64)],
        format: Some(FUNCTIONAL),
    }),
];
