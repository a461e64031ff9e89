//! Data movement whose shape-determining inputs become attributes: Reshape and Expand
//! (`shape`), Slice (`starts`, `ends`, `axes`, `steps`), Pad (`pads`, `constant_value`,
//! `axes`), Squeeze/Unsqueeze (`axes`), Split (`split`) and Tile (`repeats`). Older opsets
//! hold the same values as attributes; both spellings are read.

use tb_interpreter::Tensor;

use super::super::attrs::ints_attr;
use super::super::constants::scalar_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx, OpPlan, attr_problem};
use super::super::sizes::nonzero_product;
use crate::attribute::NodeAttrs;

/// An op over input 0 whose listed inputs become int-list attributes.
fn with_int_inputs(
    cx: &mut NodeCx,
    name: &'static str,
    lists: &[(&str, usize, bool)],
) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let skip: Vec<&str> = lists.iter().map(|(k, _, _)| *k).collect();
    let mut attrs = cx.attrs(name, &skip);
    for &(key, i, required) in lists {
        match cx.ints_attr_or_input(key, i)? {
            Some(v) => {
                check_size(cx, name, key, &v)?;
                attrs.push((key.to_string(), ints_attr(cx.ctx, &v)));
            }
            None if required => {
                return Err(Problem::invalid(format!("'{key}' is required but missing")));
            }
            None => {}
        }
    }
    Ok(cx.plan(name, vec![0], attrs))
}

/// The shape rules multiply and add 64-bit dimensions: an int list that would make them
/// overflow is an error here, computed in wide arithmetic.
fn check_size(cx: &NodeCx, op: &str, key: &str, values: &[i64]) -> Result<(), Problem> {
    let x = cx.shape(0)?;
    let wide = |v: &i64| *v as i128;
    let fits = match (op, key) {
        // `-1` (inferred) and `0` (copied) are bounded by the input's size.
        ("graph.reshape", _) => nonzero_product(values.iter().map(wide).filter(|&d| d > 0)),
        ("graph.expand", _) => nonzero_product(values.iter().map(wide).map(|d| d.max(1))),
        ("graph.tile", _) => nonzero_product(
            x.iter()
                .zip(values)
                .map(|(&d, &r)| d as i128 * (r as i128).max(0)),
        ),
        _ => Some(0),
    };
    if fits.is_none() {
        return Err(Problem::invalid(format!(
            "'{key}' {values:?} would give a result of more elements than fit in 64 bits"
        )));
    }
    Ok(())
}

pub fn reshape(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(cx, "graph.reshape", &[("shape", 1, true)])
}

pub fn expand(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(cx, "graph.expand", &[("shape", 1, true)])
}

pub fn tile(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(cx, "graph.tile", &[("repeats", 1, true)])
}

pub fn slice(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(
        cx,
        "graph.slice",
        &[
            ("starts", 1, true),
            ("ends", 2, true),
            ("axes", 3, false),
            ("steps", 4, false),
        ],
    )
}

pub fn squeeze(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(cx, "graph.squeeze", &[("axes", 1, false)])
}

pub fn unsqueeze(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    with_int_inputs(cx, "graph.unsqueeze", &[("axes", 1, true)])
}

/// Pad: `pads` (input 1, or an attribute before opset 11), `constant_value` (input 2, or
/// the float attribute `value`), `axes` (input 3, opset 18).
pub fn pad(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = cx.attrs("graph.pad", &["pads", "value"]);
    let pads = cx
        .ints_attr_or_input("pads", 1)?
        .ok_or_else(|| Problem::invalid("'pads' is required but missing"))?;
    // Padded dimensions are sums of 64-bit values: keep them far from overflowing.
    if pads.iter().any(|p| p.unsigned_abs() > 1 << 62) {
        return Err(Problem::invalid(format!(
            "'pads' {pads:?} has a value beyond 2^62"
        )));
    }
    attrs.push(("pads".into(), ints_attr(cx.ctx, &pads)));
    let dtype = cx.input(0)?.dtype;
    let value = if let Some(v) = cx.node.attr_float("value").map_err(attr_problem)? {
        Some(Tensor::scalar(v).cast(dtype))
    } else if cx.has_input(2) {
        Some(cx.constant(2, "constant_value")?.clone())
    } else {
        None
    };
    if let Some(v) = value {
        let a = scalar_attr(cx.ctx, &v)
            .ok_or_else(|| Problem::invalid("'constant_value' must hold one element"))?;
        attrs.push(("constant_value".into(), a));
    }
    if cx.has_input(3) {
        let axes = cx.constant_ints(3, "axes")?;
        attrs.push(("axes".into(), ints_attr(cx.ctx, &axes)));
    }
    Ok(cx.plan("graph.pad", vec![0], attrs))
}

/// Split: sizes from `split` (input 1, or an attribute before opset 13), else
/// `num_outputs` (opset 18), else as many equal parts as the node has outputs.
pub fn split(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let mut attrs = cx.attrs("graph.split", &["split"]);
    let outputs = cx.node.output.len();
    let sizes = match cx.ints_attr_or_input("split", 1)? {
        Some(s) => Some(s),
        None if attrs.iter().any(|(k, _)| k == "num_outputs") => None,
        None => {
            let rank = cx.shape(0)?.len() as i64;
            let axis = cx.node.attr_int_or("axis", 0).map_err(attr_problem)?;
            let axis = if axis < 0 { axis + rank } else { axis };
            let dim = *cx
                .shape(0)?
                .get(axis as usize)
                .ok_or_else(|| Problem::invalid(format!("axis {axis} is out of range")))?;
            let n = outputs as i64;
            if n == 0 || dim % n != 0 {
                return Err(Problem::invalid(format!(
                    "cannot split a dimension of {dim} into {n} equal parts"
                )));
            }
            Some(vec![dim / n; outputs])
        }
    };
    if let Some(s) = sizes {
        attrs.push(("split".into(), ints_attr(cx.ctx, &s)));
    }
    Ok(Lowering::Op(OpPlan {
        name: "graph.split",
        operands: vec![0],
        attrs,
        result_types: None,
        outputs: (0..outputs).collect(),
    }))
}
