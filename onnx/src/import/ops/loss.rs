//! Training losses imported as their ONNX function bodies: NegativeLogLikelihoodLoss and
//! SoftmaxCrossEntropyLoss (a LogSoftmax over the classes, then the former). Both are
//! checked against ONNX's expected outputs by the conformance suite.

use tb_interpreter::DType;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, string_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

/// How a loss reduces its per-element values.
#[derive(Clone, Copy, PartialEq)]
enum Reduction {
    None,
    Sum,
    Mean,
}

fn reduction(cx: &NodeCx) -> Result<Reduction, Problem> {
    match cx
        .node
        .attr_string_or("reduction", "mean")
        .map_err(attr_problem)?
        .as_str()
    {
        "none" => Ok(Reduction::None),
        "sum" => Ok(Reduction::Sum),
        "mean" => Ok(Reduction::Mean),
        other => Err(Problem::invalid(format!(
            "reduction must be \"none\", \"sum\" or \"mean\", got \"{other}\""
        ))),
    }
}

/// Checks the shapes: input [N, C, d...], target [N, d...], weight [C].
fn check_shapes(cx: &NodeCx, what: &str) -> Result<(), Problem> {
    let input = cx.shape(0)?;
    let target = cx.shape(1)?;
    if input.len() < 2 {
        return Err(Problem::invalid(format!(
            "{what} must have rank 2 or more ([N, C, d...]), got rank {}",
            input.len()
        )));
    }
    let expected: Vec<i64> = std::iter::once(input[0])
        .chain(input[2..].iter().copied())
        .collect();
    if target != expected.as_slice() {
        return Err(Problem::invalid(format!(
            "the target's shape {target:?} must be the {what}'s without the class axis, \
             {expected:?}"
        )));
    }
    if cx.has_input(2) && cx.shape(2)? != [input[1]] {
        return Err(Problem::invalid(format!(
            "the weight must have shape [{}], got {:?}",
            input[1],
            cx.shape(2)?
        )));
    }
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::unsupported(format!(
            "{} of {dtype} tensors is not supported (floating-point only)",
            cx.node.op_type
        )));
    }
    if !matches!(cx.input(1)?.dtype, DType::I32 | DType::I64) {
        return Err(Problem::invalid(format!(
            "the target must hold int32 or int64 class indices, got {}",
            cx.input(1)?.dtype
        )));
    }
    Ok(())
}

/// NegativeLogLikelihoodLoss: `loss[n, d] = -input[n, target[n, d], d] * weight[target]`,
/// 0 where the target is `ignore_index`; "mean" divides the sum by the sum of the weights
/// that were applied.
pub fn negative_log_likelihood_loss(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    check_shapes(cx, "input")?;
    let reduction = reduction(cx)?;
    let n = cx.node;
    let ignore_index = n.attr_int("ignore_index").map_err(attr_problem)?;
    let dtype = cx.input(0)?.dtype;
    let target_dtype = cx.input(1)?.dtype;
    let has_weight = cx.has_input(2);
    let mut e = Expander::new(n);
    let mut target = n.input[1].clone();
    // Ignored positions read class 0 (the ignore index may lie outside 0..C), and their
    // loss and weight are zeroed.
    let ignored = ignore_index.map(|ii| {
        let ii = e.scalar_like(ii as f64, target_dtype);
        let ignored = e.op("Equal", &[&target, &ii], vec![]);
        let zero = e.scalar_like(0.0, target_dtype);
        target = e.op("Where", &[&ignored, &zero, &target], vec![]);
        ignored
    });
    let class_axis = e.ints(&[1]);
    let picked_at = e.op("Unsqueeze", &[&target, &class_axis], vec![]);
    let picked = e.op(
        "GatherElements",
        &[&n.input[0], &picked_at],
        vec![int_attr("axis", 1)],
    );
    let picked = e.op("Squeeze", &[&picked, &class_axis], vec![]);
    let loss = e.op("Neg", &[&picked], vec![]);
    let zero = e.scalar_like(0.0, dtype);
    let weight = match (has_weight, &ignored) {
        (true, _) => {
            let w = e.op("Gather", &[&n.input[2], &target], vec![int_attr("axis", 0)]);
            Some(match &ignored {
                Some(ignored) => e.op("Where", &[ignored, &zero, &w], vec![]),
                None => w,
            })
        }
        (false, Some(ignored)) => {
            let one = e.scalar_like(1.0, dtype);
            Some(e.op("Where", &[ignored, &zero, &one], vec![]))
        }
        (false, None) => None,
    };
    let loss = match &weight {
        Some(w) => e.op("Mul", &[&loss, w], vec![]),
        None => loss,
    };
    let out = n.output[0].as_str();
    let sum_all =
        |e: &mut Expander, v: &str| e.op("ReduceSum", &[v], vec![int_attr("keepdims", 0)]);
    match (reduction, &weight) {
        (Reduction::None, _) => e.op_to("Identity", &[&loss], vec![], out),
        (Reduction::Sum, _) => e.op_to("ReduceSum", &[&loss], vec![int_attr("keepdims", 0)], out),
        (Reduction::Mean, None) => {
            e.op_to("ReduceMean", &[&loss], vec![int_attr("keepdims", 0)], out)
        }
        (Reduction::Mean, Some(w)) => {
            let total = sum_all(&mut e, &loss);
            let weights = sum_all(&mut e, w);
            e.op_to("Div", &[&total, &weights], vec![], out);
        }
    }
    Ok(Lowering::Expand(e.finish()))
}

/// SoftmaxCrossEntropyLoss: `NegativeLogLikelihoodLoss(LogSoftmax(scores, axis 1), labels)`;
/// the optional second output is the log-probabilities.
pub fn softmax_cross_entropy_loss(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(2)?;
    check_shapes(cx, "scores")?;
    let reduction = reduction(cx)?;
    let n = cx.node;
    let ignore_index = n.attr_int("ignore_index").map_err(attr_problem)?;
    let shape = cx.shape(0)?.to_vec();
    let mut e = Expander::new(n);
    // LogSoftmax over the classes, on a [N, C, rest] view whose class axis is last after a
    // transpose, so the op means the same in every opset.
    let rest: i64 = shape[2..].iter().product();
    let view = e.ints(&[shape[0], shape[1], rest]);
    let viewed = e.op("Reshape", &[&n.input[0], &view], vec![]);
    let classes_last = e.op("Transpose", &[&viewed], vec![ints_attr("perm", &[0, 2, 1])]);
    let log_prob = e.op("LogSoftmax", &[&classes_last], vec![int_attr("axis", -1)]);
    let log_prob = e.op(
        "Transpose",
        &[&log_prob],
        vec![ints_attr("perm", &[0, 2, 1])],
    );
    let original = e.ints(&shape);
    let log_prob_out = match n.output.get(1).filter(|o| !o.is_empty()) {
        Some(o) => o.clone(),
        None => format!("{}/tb.log_prob", n.output[0]),
    };
    e.op_to("Reshape", &[&log_prob, &original], vec![], &log_prob_out);
    let mut attrs = vec![string_attr(
        "reduction",
        match reduction {
            Reduction::None => "none",
            Reduction::Sum => "sum",
            Reduction::Mean => "mean",
        },
    )];
    if let Some(ii) = ignore_index {
        attrs.push(int_attr("ignore_index", ii));
    }
    let mut inputs = vec![log_prob_out.as_str(), n.input[1].as_str()];
    if cx.has_input(2) {
        inputs.push(n.input[2].as_str());
    }
    e.op_to("NegativeLogLikelihoodLoss", &inputs, attrs, &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}
