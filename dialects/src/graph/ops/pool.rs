//! Pooling: `graph.max_pool` (with its optional `Indices` result), `graph.average_pool`
//! and the global pools.

use tb_ir::ods::{AttrDef, OpDef, attr, operand, optional, optional_attr};

use super::FUNCTIONAL;
use super::conv::{WINDOW_ATTRS, auto_pad};
use crate::graph::attrs::{Attrs, BOOL_ATTR, DENSE_I64_ARRAY_ATTR, I64_ATTR};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape::{self, PoolAttrs};
use crate::graph::types::{TENSOR_FLOAT, TENSOR_I64};

/// MaxPool/AveragePool window attributes, with ONNX defaults (shared with the interpreter).
pub fn pool_attrs(a: &Attrs) -> Result<PoolAttrs, String> {
    Ok(PoolAttrs {
        kernel_shape: a.required_ints("kernel_shape")?,
        strides: a.ints("strides")?.unwrap_or_default(),
        pads: a.ints("pads")?.unwrap_or_default(),
        dilations: a.ints("dilations")?.unwrap_or_default(),
        ceil_mode: a.bool("ceil_mode")?,
        auto_pad: auto_pad(a)?,
    })
}

fn max_pool(i: &RuleInput) -> RuleResult {
    let order = i.attrs.i64("storage_order")?;
    if order != 0 && order != 1 {
        return Err(format!("storage_order must be 0 or 1, got {order}"));
    }
    let out = shape::pool("MaxPool", &i.arg(0).shape, &pool_attrs(&i.attrs)?).map_err(shape_err)?;
    let mut results = vec![Inferred::with_shape(out.clone(), i.arg(0))];
    // The Indices result exists only when the op declares it.
    if i.num_results == Some(2) {
        results.push(Inferred::new(out, Elem::I64));
    }
    Ok(results)
}

fn average_pool(i: &RuleInput) -> RuleResult {
    i.attrs.bool("count_include_pad")?;
    let out =
        shape::pool("AveragePool", &i.arg(0).shape, &pool_attrs(&i.attrs)?).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

fn global_pool(i: &RuleInput) -> RuleResult {
    let out = shape::global_pool("GlobalPool", &i.arg(0).shape).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

const CEIL_MODE: AttrDef = optional_attr("ceil_mode", BOOL_ATTR).with_default("false");
const KERNEL_SHAPE: AttrDef = attr("kernel_shape", DENSE_I64_ARRAY_ATTR);

const MAX_POOL_ATTRS: &[AttrDef] = &[
    WINDOW_ATTRS[0],
    CEIL_MODE,
    WINDOW_ATTRS[1],
    KERNEL_SHAPE,
    WINDOW_ATTRS[3],
    optional_attr("storage_order", I64_ATTR).with_default("0 : i64"),
    WINDOW_ATTRS[4],
];

const AVERAGE_POOL_ATTRS: &[AttrDef] = &[
    WINDOW_ATTRS[0],
    CEIL_MODE,
    optional_attr("count_include_pad", BOOL_ATTR).with_default("false"),
    WINDOW_ATTRS[1],
    KERNEL_SHAPE,
    WINDOW_ATTRS[3],
    WINDOW_ATTRS[4],
];

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.max_pool", max_pool, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_FLOAT), optional("Indices", TENSOR_I64)],
        attributes: MAX_POOL_ATTRS,
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.average_pool", average_pool, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_FLOAT)],
        attributes: AVERAGE_POOL_ATTRS,
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.global_average_pool", global_pool, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_FLOAT)],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.global_max_pool", global_pool, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_FLOAT)],
        format: Some(FUNCTIONAL),
    }),
];
