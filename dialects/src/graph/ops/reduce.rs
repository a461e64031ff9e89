//! Reductions (`graph.reduce_*`, opset 18 semantics with `axes` as an attribute) and
//! `graph.arg_max` / `graph.arg_min`.

use tb_ir::ods::{AttrDef, OpDef, operand, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{BOOL_ATTR, DENSE_I64_ARRAY_ATTR, I64_ATTR};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::reduce_constant;
use crate::graph::shape;
use crate::graph::types::{TENSOR_I64, TENSOR_NUMERIC};

fn reduce(i: &RuleInput) -> RuleResult {
    let axes = i.attrs.ints("axes")?.unwrap_or_default();
    let out = shape::reduce(
        "Reduce",
        &i.arg(0).shape,
        &axes,
        i.attrs.bool("keepdims")?,
        i.attrs.bool("noop_with_empty_axes")?,
    )
    .map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

fn arg_reduce(i: &RuleInput) -> RuleResult {
    i.attrs.bool("select_last_index")?;
    let out = shape::arg_reduce(
        "ArgReduce",
        &i.arg(0).shape,
        i.attrs.i64("axis")?,
        i.attrs.bool("keepdims")?,
    )
    .map_err(shape_err)?;
    Ok(vec![Inferred::new(out, Elem::I64)])
}

const KEEPDIMS: AttrDef = optional_attr("keepdims", BOOL_ATTR).with_default("true");

const REDUCE_ATTRS: &[AttrDef] = &[
    optional_attr("axes", DENSE_I64_ARRAY_ATTR),
    KEEPDIMS,
    optional_attr("noop_with_empty_axes", BOOL_ATTR).with_default("false"),
];

const ARG_ATTRS: &[AttrDef] = &[
    optional_attr("axis", I64_ATTR).with_default("0 : i64"),
    KEEPDIMS,
    optional_attr("select_last_index", BOOL_ATTR).with_default("false"),
];

macro_rules! reduce_op {
    ($name:literal) => {
        graph_op!($name, reduce, {
            operands: &[operand("data", TENSOR_NUMERIC)],
            results: &[operand("reduced", TENSOR_NUMERIC)],
            attributes: REDUCE_ATTRS,
            format: Some(FUNCTIONAL),
        })
    };
    ($name:literal, $canonicalize:path) => {
        graph_op!($name, reduce, {
            operands: &[operand("data", TENSOR_NUMERIC)],
            results: &[operand("reduced", TENSOR_NUMERIC)],
            attributes: REDUCE_ATTRS,
            format: Some(FUNCTIONAL),
            canonicalize: Some($canonicalize),
        })
    };
}

macro_rules! arg_op {
    ($name:literal) => {
        graph_op!($name, arg_reduce, {
            operands: &[operand("data", TENSOR_NUMERIC)],
            results: &[operand("reduced", TENSOR_I64)],
            attributes: ARG_ATTRS,
            format: Some(FUNCTIONAL),
        })
    };
}

pub(super) static DEFS: &[OpDef] = &[
    reduce_op!("graph.reduce_sum", reduce_constant::reduce_sum),
    reduce_op!("graph.reduce_mean"),
    reduce_op!("graph.reduce_max", reduce_constant::reduce_max),
    reduce_op!("graph.reduce_min", reduce_constant::reduce_min),
    reduce_op!("graph.reduce_prod"),
    reduce_op!("graph.reduce_l1"),
    reduce_op!("graph.reduce_l2"),
    reduce_op!("graph.reduce_log_sum"),
    reduce_op!("graph.reduce_log_sum_exp"),
    reduce_op!("graph.reduce_sum_square"),
    arg_op!("graph.arg_max"),
    arg_op!("graph.arg_min"),
];
