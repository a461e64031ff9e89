//! Matrix products: `graph.matmul` (numpy matmul with batch broadcasting) and `graph.gemm`.

use tb_ir::ods::{OpDef, operand, optional, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{BOOL_ATTR, F32_ATTR};
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape;
use crate::graph::types::TENSOR_NUMERIC;

fn matmul(i: &RuleInput) -> RuleResult {
    i.same_element(&[0, 1])?;
    let out = shape::matmul(&i.arg(0).shape, &i.arg(1).shape).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

fn gemm(i: &RuleInput) -> RuleResult {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let c = i.opt_arg(2).map(|c| c.shape.as_slice());
    let out = shape::gemm(
        &i.arg(0).shape,
        &i.arg(1).shape,
        c,
        i.attrs.bool("trans_a")?,
        i.attrs.bool("trans_b")?,
    )
    .map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.matmul", matmul, {
        operands: &[operand("A", TENSOR_NUMERIC), operand("B", TENSOR_NUMERIC)],
        results: &[operand("Y", TENSOR_NUMERIC)],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.gemm", gemm, {
        operands: &[
            operand("A", TENSOR_NUMERIC),
            operand("B", TENSOR_NUMERIC),
            optional("C", TENSOR_NUMERIC),
        ],
        results: &[operand("Y", TENSOR_NUMERIC)],
        attributes: &[
            optional_attr("alpha", F32_ATTR).with_default("1.000000e+00 : f32"),
            optional_attr("beta", F32_ATTR).with_default("1.000000e+00 : f32"),
            optional_attr("trans_a", BOOL_ATTR).with_default("false"),
            optional_attr("trans_b", BOOL_ATTR).with_default("false"),
        ],
        format: Some(FUNCTIONAL),
    }),
];
