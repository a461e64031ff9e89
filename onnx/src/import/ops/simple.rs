//! Operators that map one-to-one onto a graph op: every input an operand, every attribute
//! converted by name. Also Clip (bounds from inputs), CastLike and Softmax (opset rules).

use super::super::attrs::i64_attr;
use super::super::constants::scalar_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

/// ONNX operator → graph op.
pub const OPS: &[(&str, &str)] = &[
    ("Relu", "graph.relu"),
    ("LeakyRelu", "graph.leaky_relu"),
    ("ThresholdedRelu", "graph.thresholded_relu"),
    ("Elu", "graph.elu"),
    ("Selu", "graph.selu"),
    ("Celu", "graph.celu"),
    ("PRelu", "graph.prelu"),
    ("Sigmoid", "graph.sigmoid"),
    ("HardSigmoid", "graph.hard_sigmoid"),
    ("HardSwish", "graph.hard_swish"),
    ("Tanh", "graph.tanh"),
    ("Gelu", "graph.gelu"),
    ("Softplus", "graph.softplus"),
    ("Softsign", "graph.softsign"),
    ("Mish", "graph.mish"),
    ("Swish", "graph.swish"),
    ("Shrink", "graph.shrink"),
    ("Erf", "graph.erf"),
    ("Exp", "graph.exp"),
    ("Log", "graph.log"),
    ("Sqrt", "graph.sqrt"),
    ("Reciprocal", "graph.reciprocal"),
    ("Neg", "graph.neg"),
    ("Abs", "graph.abs"),
    ("Sign", "graph.sign"),
    ("Floor", "graph.floor"),
    ("Ceil", "graph.ceil"),
    ("Round", "graph.round"),
    ("Sin", "graph.sin"),
    ("Cos", "graph.cos"),
    ("Tan", "graph.tan"),
    ("Asin", "graph.asin"),
    ("Acos", "graph.acos"),
    ("Atan", "graph.atan"),
    ("Sinh", "graph.sinh"),
    ("Cosh", "graph.cosh"),
    ("Asinh", "graph.asinh"),
    ("Acosh", "graph.acosh"),
    ("Atanh", "graph.atanh"),
    ("Not", "graph.not"),
    ("IsNaN", "graph.is_nan"),
    ("IsInf", "graph.is_inf"),
    ("Cast", "graph.cast"),
    ("Add", "graph.add"),
    ("Sub", "graph.sub"),
    ("Mul", "graph.mul"),
    ("Div", "graph.div"),
    ("Pow", "graph.pow"),
    ("Mod", "graph.mod"),
    ("Equal", "graph.equal"),
    ("Less", "graph.less"),
    ("LessOrEqual", "graph.less_or_equal"),
    ("Greater", "graph.greater"),
    ("GreaterOrEqual", "graph.greater_or_equal"),
    ("And", "graph.and"),
    ("Or", "graph.or"),
    ("Xor", "graph.xor"),
    ("BitwiseAnd", "graph.bitwise_and"),
    ("BitwiseOr", "graph.bitwise_or"),
    ("BitwiseXor", "graph.bitwise_xor"),
    ("BitwiseNot", "graph.bitwise_not"),
    ("BitShift", "graph.bit_shift"),
    ("Where", "graph.where"),
    ("Max", "graph.max"),
    ("Min", "graph.min"),
    ("Sum", "graph.sum"),
    ("Mean", "graph.mean"),
    ("MatMul", "graph.matmul"),
    ("Gemm", "graph.gemm"),
    ("Einsum", "graph.einsum"),
    ("Conv", "graph.conv"),
    ("ConvTranspose", "graph.conv_transpose"),
    ("AveragePool", "graph.average_pool"),
    ("GlobalAveragePool", "graph.global_average_pool"),
    ("GlobalMaxPool", "graph.global_max_pool"),
    ("InstanceNormalization", "graph.instance_normalization"),
    ("Flatten", "graph.flatten"),
    ("Transpose", "graph.transpose"),
    ("Concat", "graph.concat"),
    ("Gather", "graph.gather"),
    ("GatherElements", "graph.gather_elements"),
    ("GatherND", "graph.gather_nd"),
    ("ScatterND", "graph.scatter_nd"),
    ("ScatterElements", "graph.scatter_elements"),
    ("Scatter", "graph.scatter_elements"),
    ("DepthToSpace", "graph.depth_to_space"),
    ("SpaceToDepth", "graph.space_to_depth"),
    ("ArgMax", "graph.arg_max"),
    ("ArgMin", "graph.arg_min"),
];

pub fn graph_name(op: &str) -> Option<&'static str> {
    OPS.iter().find(|(o, _)| *o == op).map(|(_, g)| *g)
}

/// Inputs to operands, attributes by name (Cast's `saturate` only concerns 8-bit floats,
/// which the IR does not have).
pub fn convert(cx: &mut NodeCx, name: &'static str) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let operands = cx.all_inputs()?;
    let attrs = cx.attrs(name, &["saturate"]);
    Ok(cx.plan(name, operands, attrs))
}

/// Clip: `min`/`max` are attributes before opset 11 and optional inputs since.
pub fn clip(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = Vec::new();
    for (k, key) in [(1usize, "min"), (2, "max")] {
        let bound =
            if let Some(v) = cx.node.attr_float(key).map_err(attr_problem)? {
                let t = tb_interpreter::Tensor::scalar(v);
                let t = t.cast(cx.input(0)?.dtype);
                scalar_attr(cx.ctx, &t)
            } else if cx.has_input(k) {
                let t = cx.constant(k, key)?;
                Some(scalar_attr(cx.ctx, t).ok_or_else(|| {
                    Problem::invalid(format!("input '{key}' must hold one element"))
                })?)
            } else {
                None
            };
        if let Some(b) = bound {
            attrs.push((key.to_string(), b));
        }
    }
    let _ = cx.attrs("graph.clip", &["min", "max"]);
    Ok(cx.plan("graph.clip", vec![0], attrs))
}

/// CastLike: a cast to the second input's element type.
pub fn cast_like(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let target = tb_ir::TypeKind::clone(cx.ctx.type_kind(cx.input(1)?.ty));
    let element = match target {
        tb_ir::TypeKind::RankedTensor { element, .. } => element,
        _ => return Err(Problem::invalid("input #1 is not a ranked tensor")),
    };
    let _ = cx.attrs("graph.cast", &["saturate"]);
    let to = cx.ctx.type_attr(element);
    Ok(cx.plan("graph.cast", vec![0], vec![("to".into(), to)]))
}

/// Softmax, LogSoftmax and Hardmax. Before opset 13 they flatten the input to 2-D at `axis`
/// (default 1); that agrees with today's rule only when `axis` is the last axis.
pub fn softmax(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let name = match cx.node.op_type.as_str() {
        "Softmax" => "graph.softmax",
        "Hardmax" => "graph.hardmax",
        _ => "graph.log_softmax",
    };
    let mut attrs = cx.attrs(name, &[]);
    if cx.opset < 13 {
        let rank = cx.shape(0)?.len() as i64;
        let axis = cx.node.attr_int_or("axis", 1).map_err(attr_problem)?;
        let axis = if axis < 0 { axis + rank } else { axis };
        if axis != rank - 1 {
            return Err(Problem::unsupported(format!(
                "{} before opset 13 with axis {axis} of a rank-{rank} input (2-D coercion) \
                 is not supported",
                cx.node.op_type
            )));
        }
        attrs.retain(|(k, _)| k != "axis");
        attrs.push(("axis".into(), i64_attr(cx.ctx, -1)));
    }
    Ok(cx.plan(name, vec![0], attrs))
}
