//! Reads and writes at index tuples: `graph.gather_nd`, `graph.scatter_nd` and
//! `graph.scatter_elements` (ONNX's Scatter too). The shape rules are the kernels'.

use tb_ir::ods::{OpDef, operand, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{I64_ATTR, STRING_ATTR};
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::{TENSOR_ANY, TENSOR_I64, TENSOR_INDICES};
use tb_tensor::kernels::indexing::gather_nd_shape;

const REDUCTIONS: &[&str] = &["none", "add", "mul", "max", "min"];

fn gather_nd(i: &RuleInput) -> RuleResult {
    let out = gather_nd_shape(&i.arg(0).shape, &i.arg(1).shape, i.attrs.i64("batch_dims")?)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

fn scatter_nd(i: &RuleInput) -> RuleResult {
    i.attrs.choice("reduction", REDUCTIONS)?;
    i.same_element(&[0, 2])?;
    let (ds, is) = (&i.arg(0).shape, &i.arg(1).shape);
    let k = is.last().copied().unwrap_or(0);
    if k < 1 || k as usize > ds.len() {
        return Err(format!(
            "indices {} must end in a dimension between 1 and the rank of data",
            i.show(i.arg(1))
        ));
    }
    let mut expected = is[..is.len() - 1].to_vec();
    expected.extend_from_slice(&ds[k as usize..]);
    if i.arg(2).shape != expected {
        return Err(format!(
            "updates {} must have shape {expected:?}",
            i.show(i.arg(2))
        ));
    }
    Ok(vec![Inferred::like(i.arg(0))])
}

fn scatter_elements(i: &RuleInput) -> RuleResult {
    i.attrs.choice("reduction", REDUCTIONS)?;
    i.same_element(&[0, 2])?;
    let (ds, is) = (&i.arg(0).shape, &i.arg(1).shape);
    shape::normalize_axis("", i.attrs.i64("axis")?, ds.len()).map_err(shape_err)?;
    if &i.arg(2).shape != is || is.len() != ds.len() || is.iter().zip(ds).any(|(a, b)| a > b) {
        return Err(format!(
            "indices {} and updates {} must have one shape, of data's rank and within it",
            i.show(i.arg(1)),
            i.show(i.arg(2))
        ));
    }
    Ok(vec![Inferred::like(i.arg(0))])
}

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.gather_nd", gather_nd, {
        operands: &[operand("data", TENSOR_ANY), operand("indices", TENSOR_I64)],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[optional_attr("batch_dims", I64_ATTR).with_default("0 : i64")],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.scatter_nd", scatter_nd, {
        operands: &[
            operand("data", TENSOR_ANY),
            operand("indices", TENSOR_I64),
            operand("updates", TENSOR_ANY),
        ],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[optional_attr("reduction", STRING_ATTR).with_default("\"none\"")],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.scatter_elements", scatter_elements, {
        operands: &[
            operand("data", TENSOR_ANY),
            operand("indices", TENSOR_INDICES),
            operand("updates", TENSOR_ANY),
        ],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[
            optional_attr("axis", I64_ATTR).with_default("0 : i64"),
            optional_attr("reduction", STRING_ATTR).with_default("\"none\""),
        ],
        format: Some(FUNCTIONAL),
    }),
];
