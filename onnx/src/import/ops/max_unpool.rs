//! MaxUnpool: the input's values written at their MaxPool indices (flat positions in the
//! unpooled shape the kernel, strides and pads make, as MaxPool's `Indices` output gives
//! them) into zeros of that shape, a scatter over it flattened; an `output_shape` (known at
//! import time) may be larger, the rest zeros at the end of each axis, as ONNX's reference.

use tb_interpreter::Tensor;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use super::super::sizes::FOLD_BUDGET;
use crate::attribute::NodeAttrs;

pub fn max_unpool(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let shape = cx.shape(0)?.to_vec();
    let spatial = shape.len().saturating_sub(2);
    if spatial == 0 || cx.shape(1)? != shape.as_slice() {
        return Err(Problem::invalid(format!(
            "X [N, C, spatial...] and I must have one shape, got {shape:?} and {:?}",
            cx.shape(1)?
        )));
    }
    let kernel = n
        .attr_required::<Vec<i64>>("kernel_shape")
        .map_err(attr_problem)?;
    let strides = n
        .attr_ints("strides")
        .map_err(attr_problem)?
        .unwrap_or(vec![1; spatial]);
    let pads = n
        .attr_ints("pads")
        .map_err(attr_problem)?
        .unwrap_or(vec![0; 2 * spatial]);
    if kernel.len() != spatial || strides.len() != spatial || pads.len() != 2 * spatial {
        return Err(Problem::invalid(format!(
            "kernel_shape {kernel:?}, strides {strides:?} and pads {pads:?} must match {spatial} \
             spatial axes"
        )));
    }
    let mut unpooled = shape[..2].to_vec();
    unpooled.extend(
        (0..spatial)
            .map(|a| (shape[a + 2] - 1) * strides[a] - pads[a] - pads[spatial + a] + kernel[a]),
    );
    let out_shape = if cx.has_input(2) {
        cx.constant_ints(2, "output_shape")?
    } else {
        unpooled.clone()
    };
    let total: i64 = unpooled.iter().product();
    let count: i64 = shape.iter().product();
    let fits =
        out_shape.len() == unpooled.len() && out_shape.iter().zip(&unpooled).all(|(o, u)| o >= u);
    if unpooled.iter().any(|&d| d < 0) || total < count || !fits {
        return Err(Problem::invalid(format!(
            "output shape {out_shape:?} cannot hold the unpooled {unpooled:?} of {shape:?}"
        )));
    }
    if out_shape.iter().product::<i64>() > FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "an output of shape {out_shape:?} is not supported"
        )));
    }
    let dtype = cx.input(0)?.dtype;
    let mut e = Expander::new(n);
    let zeros = Tensor::from_vec(vec![total], vec![0.0; total as usize])
        .map_err(|m| Problem::invalid(m.0))?
        .cast(dtype);
    let zeros = e.constant(zeros);
    let flat = e.ints(&[-1]);
    let indices = e.op("Reshape", &[&n.input[1], &flat], vec![]);
    let values = e.op("Reshape", &[&n.input[0], &flat], vec![]);
    let written = e.op(
        "ScatterElements",
        &[&zeros, &indices, &values],
        vec![int_attr("axis", 0)],
    );
    let unpooled_shape = e.ints(&unpooled);
    if out_shape == unpooled {
        e.op_to(
            "Reshape",
            &[&written, &unpooled_shape],
            vec![],
            &n.output[0],
        );
    } else {
        let written = e.op("Reshape", &[&written, &unpooled_shape], vec![]);
        let mut extra = vec![0; unpooled.len()];
        extra.extend(out_shape.iter().zip(&unpooled).map(|(o, u)| o - u));
        let extra = e.ints(&extra);
        e.op_to("Pad", &[&written, &extra], vec![], &n.output[0]);
    }
    Ok(Lowering::Expand(e.finish()))
}
