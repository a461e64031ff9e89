//! Ops whose result depends on where an element sits along an axis: `graph.trilu` (a
//! triangle of each trailing matrix), `graph.cum_sum` (running sums) and `graph.hardmax`
//! (a one-hot of the first maximum) and `graph.top_k` (the `k` first elements in order,
//! with their indices). ONNX's Trilu `k`, CumSum `axis` and TopK `k` inputs are
//! attributes here.

use tb_ir::ods::{OpDef, attr, operand, optional_attr};

use super::{FUNCTIONAL, UNARY};
use crate::graph::attrs::{BOOL_ATTR, I64_ATTR};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::{TENSOR_ANY, TENSOR_FLOAT, TENSOR_I64, TENSOR_NUMERIC};

/// Trilu: a matrix (or a batch of them) in, the same type out.
fn trilu(i: &RuleInput) -> RuleResult {
    let rank = i.arg(0).shape.len();
    if rank < 2 {
        return Err(format!(
            "requires an operand of rank 2 or more, got rank {rank}"
        ));
    }
    Ok(vec![Inferred::like(i.arg(0))])
}

/// CumSum and Hardmax: `axis` names a dimension of the operand; the same type out.
fn along_axis(i: &RuleInput) -> RuleResult {
    let rank = i.arg(0).shape.len();
    shape::normalize_axis("", i.attrs.i64("axis")?, rank).map_err(shape_err)?;
    Ok(vec![Inferred::like(i.arg(0))])
}

/// TopK: values and i64 indices, `k` along `axis`.
fn top_k(i: &RuleInput) -> RuleResult {
    let x = i.arg(0);
    let axis = shape::normalize_axis("", i.attrs.i64("axis")?, x.shape.len()).map_err(shape_err)?;
    let k = i.attrs.i64("k")?;
    if k < 0 || k > x.shape[axis] {
        return Err(format!(
            "k = {k} is not between 0 and the axis size {}",
            x.shape[axis]
        ));
    }
    let mut out = x.shape.clone();
    out[axis] = k;
    Ok(vec![
        Inferred::with_shape(out.clone(), x),
        Inferred::new(out, Elem::I64),
    ])
}

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.trilu", trilu, {
        operands: &[operand("input", TENSOR_ANY)],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[
            optional_attr("k", I64_ATTR).with_default("0 : i64"),
            optional_attr("upper", BOOL_ATTR).with_default("true"),
        ],
        format: Some(UNARY),
    }),
    graph_op!("graph.cum_sum", along_axis, {
        operands: &[operand("x", TENSOR_NUMERIC)],
        results: &[operand("y", TENSOR_NUMERIC)],
        attributes: &[
            attr("axis", I64_ATTR),
            optional_attr("exclusive", BOOL_ATTR).with_default("false"),
            optional_attr("reverse", BOOL_ATTR).with_default("false"),
        ],
        format: Some(UNARY),
    }),
    graph_op!("graph.top_k", top_k, {
        operands: &[operand("X", TENSOR_NUMERIC)],
        results: &[operand("values", TENSOR_NUMERIC), operand("indices", TENSOR_I64)],
        attributes: &[
            attr("k", I64_ATTR),
            optional_attr("axis", I64_ATTR).with_default("-1 : i64"),
            optional_attr("largest", BOOL_ATTR).with_default("true"),
            optional_attr("sorted", BOOL_ATTR).with_default("true"),
        ],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.hardmax", along_axis, {
        operands: &[operand("input", TENSOR_FLOAT)],
        results: &[operand("output", TENSOR_FLOAT)],
        attributes: &[optional_attr("axis", I64_ATTR).with_default("-1 : i64")],
        format: Some(UNARY),
    }),
];
