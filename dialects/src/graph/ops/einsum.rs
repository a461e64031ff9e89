//! `graph.einsum`: ONNX Einsum, its equation an attribute; the shape rule resolves the
//! equation against the operand shapes (`tb_tensor`'s plan, which the kernel and the
//! lowering share).

use tb_ir::ods::{OpDef, attr, operand, variadic};

use super::FUNCTIONAL;
use crate::graph::attrs::STRING_ATTR;
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op};
use crate::graph::types::TENSOR_NUMERIC;
use tb_tensor::kernels::einsum::einsum_plan;

fn einsum(i: &RuleInput) -> RuleResult {
    if i.operands.is_empty() {
        return Err("requires at least one operand".into());
    }
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let shapes: Vec<&[i64]> = i.operands.iter().map(|o| o.shape.as_slice()).collect();
    let plan = einsum_plan(&i.attrs.string("equation")?, &shapes)?;
    Ok(vec![Inferred::with_shape(plan.output_shape(), i.arg(0))])
}

pub(super) static DEFS: &[OpDef] = &[graph_op!("graph.einsum", einsum, {
    operands: &[variadic("Inputs", TENSOR_NUMERIC)],
    results: &[operand("Output", TENSOR_NUMERIC)],
    attributes: &[attr("equation", STRING_ATTR)],
    format: Some(FUNCTIONAL),
})];
