//! CausalConvWithState: a causal depthwise 1-D convolution that carries its last `k - 1`
//! input positions from one call to the next, imported as ONNX's function body: the
//! state (zeros without one) concatenated before the input, a grouped Conv without
//! padding, the optional fused SiLU, and the padded input's last `k - 1` positions as the
//! new state.

use tb_interpreter::Tensor;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

pub fn causal_conv_with_state(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(2)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::invalid(format!(
            "input must be a floating-point tensor, got {dtype}"
        )));
    }
    let shape = cx.shape(0)?.to_vec();
    let [batch, channels, length] = shape[..] else {
        return Err(Problem::invalid(format!(
            "input must have shape [batch, channels, length], got {shape:?}"
        )));
    };
    let weight = cx.shape(1)?.to_vec();
    let k = match weight[..] {
        [c, 1, k] if c == channels && k >= 1 => k,
        _ => {
            return Err(Problem::invalid(format!(
                "weight must have shape [{channels}, 1, k], got {weight:?}"
            )));
        }
    };
    if cx.has_input(3) && cx.shape(3)? != [batch, channels, k - 1] {
        return Err(Problem::invalid(format!(
            "past_state must have shape [{batch}, {channels}, {}], got {:?}",
            k - 1,
            cx.shape(3)?
        )));
    }
    let silu = match n
        .attr_string_or("activation", "none")
        .map_err(attr_problem)?
        .as_str()
    {
        "none" => false,
        "silu" | "swish" => true,
        other => {
            return Err(Problem::invalid(format!(
                "activation must be \"none\", \"silu\" or \"swish\", got \"{other}\""
            )));
        }
    };
    let mut e = Expander::new(n);
    let past = if cx.has_input(3) {
        n.input[3].clone()
    } else {
        let count = (batch * channels * (k - 1)) as usize;
        let zeros = Tensor::from_vec(vec![batch, channels, k - 1], vec![0.0; count])
            .map_err(|m| Problem::invalid(m.0))?
            .cast(dtype);
        e.constant(zeros)
    };
    let padded = e.op("Concat", &[&past, &n.input[0]], vec![int_attr("axis", 2)]);
    let mut operands = vec![padded.as_str(), n.input[1].as_str()];
    if cx.has_input(2) {
        operands.push(n.input[2].as_str());
    }
    let conv_attrs = vec![int_attr("group", channels), ints_attr("kernel_shape", &[k])];
    let output = n.output[0].as_str();
    if silu {
        let conv = e.op("Conv", &operands, conv_attrs);
        let gate = e.op("Sigmoid", &[&conv], vec![]);
        e.op_to("Mul", &[&conv, &gate], vec![], output);
    } else {
        e.op_to("Conv", &operands, conv_attrs, output);
    }
    if let Some(state) = n.output.get(1).filter(|o| !o.is_empty()) {
        let (start, end, axis) = (e.ints(&[length]), e.ints(&[length + k - 1]), e.ints(&[2]));
        e.op_to("Slice", &[&padded, &start, &end, &axis], vec![], state);
    }
    Ok(Lowering::Expand(e.finish()))
}
