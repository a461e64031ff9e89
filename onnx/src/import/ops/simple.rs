//! Operators that map one-to-one onto a graph op: every input an operand, every attribute
//! converted by name. Also Clip (bounds from inputs), CastLike and Softmax.

use super::super::constants::scalar_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx};

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

/// Clip: `min`/`max` are optional scalar inputs (attributes before opset 11, which
/// [`version_convert`](super::super::version_convert) turns into inputs).
pub fn clip(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = Vec::new();
    for (k, key) in [(1usize, "min"), (2, "max")] {
        if cx.has_input(k) {
            let t = cx.constant(k, key)?;
            let bound = scalar_attr(cx.ctx, t)
                .ok_or_else(|| Problem::invalid(format!("input '{key}' must hold one element")))?;
            attrs.push((key.to_string(), bound));
        }
    }
    let _ = cx.attrs("graph.clip", &[]);
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

/// Softmax, LogSoftmax and Hardmax along `axis` (their opset-13 rule; older models'
/// 2-D coercion is rewritten by [`version_convert`](super::super::version_convert)).
pub fn softmax(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let name = match cx.node.op_type.as_str() {
        "Softmax" => "graph.softmax",
        "Hardmax" => "graph.hardmax",
        _ => "graph.log_softmax",
    };
    let attrs = cx.attrs(name, &[]);
    Ok(cx.plan(name, vec![0], attrs))
}
