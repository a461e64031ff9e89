//! `graph.attention`: scaled dot-product attention with heads, after ONNX's opset-23
//! `Attention` in its 4-D form. `Q: [B, Hq, Sq, D]`, `K: [B, Hkv, Skv, D]`,
//! `V: [B, Hkv, Skv, Dv]`, an optional additive float `mask` broadcasting to
//! `[B, Hq, Sq, Skv]`; `Y = softmax(softcap(scale · Q·Kᵀ) + mask) · V : [B, Hq, Sq, Dv]`,
//! query head `h` reading key/value head `h / (Hq / Hkv)`. Attributes: `scale` (absent:
//! `1/sqrt(D)`), `softcap` (0: none), `is_causal` (key `j > i` hidden from query `i`).
//! The importer brings ONNX's 3-D layout, boolean masks, short masks and the key/value
//! cache into this form.

use tb_ir::ods::{AttrDef, OpDef, operand, optional, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{Attrs, BOOL_ATTR, F32_ATTR};
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::types::TENSOR_FLOAT;
use tb_tensor::kernels::attention::{AttentionAttrs, attention_dims};

/// The attention attributes with their defaults (shared with the interpreter and lowering).
pub fn attention_attrs(a: &Attrs) -> Result<AttentionAttrs, String> {
    Ok(AttentionAttrs {
        scale: a.opt_f64("scale")?,
        softcap: a.f64("softcap")?,
        is_causal: a.bool("is_causal")?,
    })
}

fn attention(i: &RuleInput) -> RuleResult {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let mask = i.opt_arg(3).map(|m| m.shape.as_slice());
    let dims = attention_dims(&i.arg(0).shape, &i.arg(1).shape, &i.arg(2).shape, mask)
        .map_err(shape_err)?;
    attention_attrs(&i.attrs)?;
    Ok(vec![Inferred::with_shape(dims.output_shape(), i.arg(0))])
}

const ATTRS: &[AttrDef] = &[
    optional_attr("is_causal", BOOL_ATTR).with_default("false"),
    optional_attr("scale", F32_ATTR),
    optional_attr("softcap", F32_ATTR).with_default("0.000000e+00 : f32"),
];

pub(super) static DEFS: &[OpDef] = &[graph_op!("graph.attention", attention, {
    operands: &[
        operand("Q", TENSOR_FLOAT),
        operand("K", TENSOR_FLOAT),
        operand("V", TENSOR_FLOAT),
        optional("mask", TENSOR_FLOAT),
    ],
    results: &[operand("Y", TENSOR_FLOAT)],
    attributes: ATTRS,
    format: Some(FUNCTIONAL),
})];
