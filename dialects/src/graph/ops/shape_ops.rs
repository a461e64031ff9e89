//! Data movement: reshape, flatten, transpose, squeeze/unsqueeze, concat, split, slice,
//! gather, gather_elements, expand, pad, tile, depth_to_space and space_to_depth.
//!
//! Every ONNX input that fixes the result shape (Reshape's `shape`, Slice's `starts`,
//! `ends`, `axes` and `steps`, Pad's `pads` and `axes`, Squeeze/Unsqueeze `axes`, Split's
//! `split`, Tile's `repeats`, Expand's `shape`) is an `array<i64: ...>` attribute here;
//! Pad's `constant_value` is a scalar attribute of the element type.

use tb_ir::ods::{OpDef, attr, operand, optional_attr, variadic};

use super::FUNCTIONAL;
use crate::graph::attrs::{BOOL_ATTR, DENSE_I64_ARRAY_ATTR, I64_ATTR, SCALAR_ATTR, STRING_ATTR};
use crate::graph::canonicalize;
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::{TENSOR_ANY, TENSOR_INDICES};

/// The result has the input's element type and `shape`.
fn shaped(i: &RuleInput, out: shape::ShapeResult) -> RuleResult {
    Ok(vec![Inferred::with_shape(
        out.map_err(shape_err)?,
        i.arg(0),
    )])
}

fn reshape(i: &RuleInput) -> RuleResult {
    let target = i.attrs.required_ints("shape")?;
    let allowzero = i.attrs.bool("allowzero")?;
    shaped(i, shape::reshape(&i.arg(0).shape, &target, allowzero))
}

fn flatten(i: &RuleInput) -> RuleResult {
    shaped(i, shape::flatten(&i.arg(0).shape, i.attrs.i64("axis")?))
}

fn transpose(i: &RuleInput) -> RuleResult {
    let perm = i.attrs.ints("perm")?;
    shaped(i, shape::transpose(&i.arg(0).shape, perm.as_deref()))
}

fn squeeze(i: &RuleInput) -> RuleResult {
    let axes = i.attrs.ints("axes")?;
    shaped(i, shape::squeeze(&i.arg(0).shape, axes.as_deref()))
}

fn unsqueeze(i: &RuleInput) -> RuleResult {
    let axes = i.attrs.required_ints("axes")?;
    shaped(i, shape::unsqueeze(&i.arg(0).shape, &axes))
}

fn concat(i: &RuleInput) -> RuleResult {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let shapes: Vec<&[i64]> = i.operands.iter().map(|o| o.shape.as_slice()).collect();
    if shapes.is_empty() {
        return Err("requires at least one operand".into());
    }
    shaped(i, shape::concat(&shapes, i.attrs.i64("axis")?))
}

/// Split: sizes from `split`, else `num_outputs` (opset 18), else as many equal parts as
/// the op has results (opset 13).
fn split(i: &RuleInput) -> RuleResult {
    let sizes = i.attrs.ints("split")?;
    let num_outputs = match (i.attrs.opt_i64("num_outputs")?, &sizes) {
        (Some(n), _) => Some(n),
        (None, Some(_)) => None,
        (None, None) => match i.num_results {
            Some(n) => Some(n as i64),
            None => return Err("needs 'split' or 'num_outputs' to infer its results".into()),
        },
    };
    let axis = i.attrs.i64("axis")?;
    // Many more parts than elements would only make empty results (and a huge list).
    if let Some(n) = num_outputs {
        let dim = shape::normalize_axis("Split", axis, i.arg(0).shape.len())
            .map(|a| i.arg(0).shape[a])
            .map_err(shape_err)?;
        if n > dim.max(1) {
            return Err(format!("cannot split a dimension of {dim} into {n} parts"));
        }
    }
    let shapes =
        shape::split(&i.arg(0).shape, axis, sizes.as_deref(), num_outputs).map_err(shape_err)?;
    if let Some(n) = i.num_results
        && n != shapes.len()
    {
        return Err(format!("has {n} results but splits into {}", shapes.len()));
    }
    Ok(shapes
        .into_iter()
        .map(|s| Inferred::with_shape(s, i.arg(0)))
        .collect())
}

fn slice(i: &RuleInput) -> RuleResult {
    let a = &i.attrs;
    let (starts, ends) = (a.required_ints("starts")?, a.required_ints("ends")?);
    let (axes, steps) = (a.ints("axes")?, a.ints("steps")?);
    shaped(
        i,
        shape::slice(
            &i.arg(0).shape,
            &starts,
            &ends,
            axes.as_deref(),
            steps.as_deref(),
        ),
    )
}

fn gather(i: &RuleInput) -> RuleResult {
    shaped(
        i,
        shape::gather(&i.arg(0).shape, &i.arg(1).shape, i.attrs.i64("axis")?),
    )
}

fn gather_elements(i: &RuleInput) -> RuleResult {
    shaped(
        i,
        shape::gather_elements(&i.arg(0).shape, &i.arg(1).shape, i.attrs.i64("axis")?),
    )
}

fn expand(i: &RuleInput) -> RuleResult {
    let target = i.attrs.required_ints("shape")?;
    shaped(i, shape::expand(&i.arg(0).shape, &target))
}

fn pad(i: &RuleInput) -> RuleResult {
    let mode = i
        .attrs
        .choice("mode", &["constant", "reflect", "edge", "wrap"])?;
    let value = i.attrs.scalar_of("constant_value", i.arg(0).element)?;
    if value.is_some() && mode != "constant" {
        return Err(format!(
            "constant_value is only allowed with mode \"constant\", not \"{mode}\""
        ));
    }
    let pads = i.attrs.required_ints("pads")?;
    let axes = i.attrs.ints("axes")?;
    shaped(i, shape::pad(&i.arg(0).shape, &pads, axes.as_deref()))
}

fn tile(i: &RuleInput) -> RuleResult {
    let repeats = i.attrs.required_ints("repeats")?;
    shaped(i, shape::tile(&i.arg(0).shape, &repeats))
}

fn depth_to_space(i: &RuleInput) -> RuleResult {
    i.attrs.choice("mode", &["DCR", "CRD"])?;
    shaped(
        i,
        shape::depth_to_space(&i.arg(0).shape, i.attrs.i64("blocksize")?),
    )
}

fn space_to_depth(i: &RuleInput) -> RuleResult {
    shaped(
        i,
        shape::space_to_depth(&i.arg(0).shape, i.attrs.i64("blocksize")?),
    )
}

/// One data operand, one result of its element type.
macro_rules! data_op {
    ($name:literal, $rule:path, $attrs:expr $(, $field:ident : $value:expr)* $(,)?) => {
        graph_op!($name, $rule, {
            operands: &[operand("data", TENSOR_ANY)],
            results: &[operand("output", TENSOR_ANY)],
            attributes: $attrs,
            format: Some(FUNCTIONAL),
            $($field: $value,)*
        })
    };
}

pub(super) static DEFS: &[OpDef] = &[
    data_op!(
        "graph.reshape",
        reshape,
        &[
            optional_attr("allowzero", BOOL_ATTR).with_default("false"),
            attr("shape", DENSE_I64_ARRAY_ATTR),
        ],
        canonicalize: Some(canonicalize::reshape),
    ),
    data_op!(
        "graph.flatten",
        flatten,
        &[optional_attr("axis", I64_ATTR).with_default("1 : i64")],
    ),
    data_op!(
        "graph.transpose",
        transpose,
        &[optional_attr("perm", DENSE_I64_ARRAY_ATTR)],
        canonicalize: Some(canonicalize::transpose),
    ),
    data_op!(
        "graph.squeeze",
        squeeze,
        &[optional_attr("axes", DENSE_I64_ARRAY_ATTR)],
        canonicalize: Some(canonicalize::squeeze),
    ),
    data_op!(
        "graph.unsqueeze",
        unsqueeze,
        &[attr("axes", DENSE_I64_ARRAY_ATTR)],
        canonicalize: Some(canonicalize::unsqueeze),
    ),
    graph_op!("graph.concat", concat, {
        operands: &[variadic("inputs", TENSOR_ANY)],
        results: &[operand("concat_result", TENSOR_ANY)],
        attributes: &[attr("axis", I64_ATTR)],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.split", split, {
        operands: &[operand("input", TENSOR_ANY)],
        results: &[variadic("outputs", TENSOR_ANY)],
        attributes: &[
            optional_attr("axis", I64_ATTR).with_default("0 : i64"),
            optional_attr("num_outputs", I64_ATTR),
            optional_attr("split", DENSE_I64_ARRAY_ATTR),
        ],
        format: Some(FUNCTIONAL),
    }),
    data_op!(
        "graph.slice",
        slice,
        &[
            optional_attr("axes", DENSE_I64_ARRAY_ATTR),
            attr("ends", DENSE_I64_ARRAY_ATTR),
            attr("starts", DENSE_I64_ARRAY_ATTR),
            optional_attr("steps", DENSE_I64_ARRAY_ATTR),
        ],
    ),
    graph_op!("graph.gather", gather, {
        operands: &[operand("data", TENSOR_ANY), operand("indices", TENSOR_INDICES)],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[optional_attr("axis", I64_ATTR).with_default("0 : i64")],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.gather_elements", gather_elements, {
        operands: &[operand("data", TENSOR_ANY), operand("indices", TENSOR_INDICES)],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[optional_attr("axis", I64_ATTR).with_default("0 : i64")],
        format: Some(FUNCTIONAL),
    }),
    data_op!(
        "graph.expand",
        expand,
        &[attr("shape", DENSE_I64_ARRAY_ATTR)],
    ),
    data_op!(
        "graph.pad",
        pad,
        &[
            optional_attr("axes", DENSE_I64_ARRAY_ATTR),
            optional_attr("constant_value", SCALAR_ATTR),
            optional_attr("mode", STRING_ATTR).with_default("\"constant\""),
            attr("pads", DENSE_I64_ARRAY_ATTR),
        ],
    ),
    data_op!("graph.tile", tile, &[attr("repeats", DENSE_I64_ARRAY_ATTR)],),
    data_op!(
        "graph.depth_to_space",
        depth_to_space,
        &[
            attr("blocksize", I64_ATTR),
            optional_attr("mode", STRING_ATTR).with_default("\"DCR\""),
        ],
    ),
    data_op!(
        "graph.space_to_depth",
        space_to_depth,
        &[attr("blocksize", I64_ATTR)],
    ),
];
