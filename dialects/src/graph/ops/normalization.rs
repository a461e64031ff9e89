//! Normalizations (`graph.batch_normalization` in inference mode, `graph.instance_normalization`,
//! `graph.layer_normalization`) and `graph.softmax` / `graph.log_softmax` (opset 13: one axis).

use tb_ir::ods::{OpDef, operand, optional, optional_attr, variadic};

use super::{FUNCTIONAL, UNARY};
use crate::graph::attrs::{F32_ATTR, I64_ATTR};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::TENSOR_FLOAT;

fn all_same_element(i: &RuleInput) -> Result<(), String> {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)
}

fn batch_norm(i: &RuleInput) -> RuleResult {
    all_same_element(i)?;
    let s = |k: usize| i.arg(k).shape.as_slice();
    let out = shape::batch_norm(s(0), s(1), s(2), s(3), s(4)).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

fn instance_norm(i: &RuleInput) -> RuleResult {
    all_same_element(i)?;
    let s = |k: usize| i.arg(k).shape.as_slice();
    let out = shape::instance_norm(s(0), s(1), s(2)).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

/// LayerNormalization: `Y`, then optionally `Mean` and `InvStdDev` in `stash_type`
/// precision (ONNX's only value, 1, is f32).
fn layer_norm(i: &RuleInput) -> RuleResult {
    all_same_element(i)?;
    let stash = i.attrs.i64("stash_type")?;
    if stash != 1 {
        return Err(format!("stash_type must be 1 (float), got {stash}"));
    }
    let bias = i.opt_arg(2).map(|b| b.shape.as_slice());
    let l = shape::layer_norm(&i.arg(0).shape, &i.arg(1).shape, bias, i.attrs.i64("axis")?)
        .map_err(shape_err)?;
    let stats = match i.num_results {
        Some(n) if n > 3 => return Err(format!("has {n} results, at most 3 (Y, Mean, InvStdDev)")),
        Some(n) => n - 1,
        None => 0,
    };
    let mut results = vec![Inferred::with_shape(l.y, i.arg(0))];
    results.extend((0..stats).map(|_| Inferred::new(l.stats.clone(), Elem::F32)));
    Ok(results)
}

fn softmax(i: &RuleInput) -> RuleResult {
    let out =
        shape::softmax("Softmax", &i.arg(0).shape, i.attrs.i64("axis")?).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

const EPSILON: tb_ir::ods::AttrDef =
    optional_attr("epsilon", F32_ATTR).with_default("9.99999974E-6 : f32");

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.batch_normalization", batch_norm, {
        operands: &[
            operand("X", TENSOR_FLOAT),
            operand("scale", TENSOR_FLOAT),
            operand("B", TENSOR_FLOAT),
            operand("input_mean", TENSOR_FLOAT),
            operand("input_var", TENSOR_FLOAT),
        ],
        results: &[operand("Y", TENSOR_FLOAT)],
        attributes: &[
            EPSILON,
            optional_attr("momentum", F32_ATTR).with_default("0.899999976 : f32"),
        ],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.instance_normalization", instance_norm, {
        operands: &[
            operand("input", TENSOR_FLOAT),
            operand("scale", TENSOR_FLOAT),
            operand("B", TENSOR_FLOAT),
        ],
        results: &[operand("output", TENSOR_FLOAT)],
        attributes: &[EPSILON],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.layer_normalization", layer_norm, {
        operands: &[
            operand("X", TENSOR_FLOAT),
            operand("Scale", TENSOR_FLOAT),
            optional("B", TENSOR_FLOAT),
        ],
        results: &[operand("Y", TENSOR_FLOAT), variadic("stats", TENSOR_FLOAT)],
        attributes: &[
            optional_attr("axis", I64_ATTR).with_default("-1 : i64"),
            EPSILON,
            optional_attr("stash_type", I64_ATTR).with_default("1 : i64"),
        ],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.softmax", softmax, {
        operands: &[operand("input", TENSOR_FLOAT)],
        results: &[operand("output", TENSOR_FLOAT)],
        attributes: &[optional_attr("axis", I64_ATTR).with_default("-1 : i64")],
        format: Some(UNARY),
    }),
    graph_op!("graph.log_softmax", softmax, {
        operands: &[operand("input", TENSOR_FLOAT)],
        results: &[operand("output", TENSOR_FLOAT)],
        attributes: &[optional_attr("axis", I64_ATTR).with_default("-1 : i64")],
        format: Some(UNARY),
    }),
];
