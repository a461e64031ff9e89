//! Operators that select or reorder elements, imported as gathers: ReverseSequence (the
//! indices computed from the run-time sequence lengths) and Compress (whose condition fixes
//! the result's shape, so it must be known at import time).

use tb_interpreter::{DType, Tensor};

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

/// ReverseSequence: along `time_axis`, the first `sequence_lens[b]` elements of batch `b`
/// in reverse order, the rest unchanged. The source position of time `t` in batch `b` is
/// `t < len[b] ? len[b] - 1 - t : t`, gathered along the time axis.
pub fn reverse_sequence(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let shape = cx.shape(0)?.to_vec();
    let n = cx.node;
    let batch_axis = n.attr_int_or("batch_axis", 1).map_err(attr_problem)?;
    let time_axis = n.attr_int_or("time_axis", 0).map_err(attr_problem)?;
    if shape.len() < 2 || !matches!((batch_axis, time_axis), (0, 1) | (1, 0)) {
        return Err(Problem::invalid(format!(
            "expects an input of rank 2 or more and batch_axis/time_axis 0 and 1, got rank {}, \
             batch_axis {batch_axis} and time_axis {time_axis}",
            shape.len()
        )));
    }
    let (batches, steps) = (shape[batch_axis as usize], shape[time_axis as usize]);
    if cx.shape(1)? != [batches] {
        return Err(Problem::invalid(format!(
            "sequence_lens must have shape [{batches}], got {:?}",
            cx.shape(1)?
        )));
    }
    // [time, batch] or [batch, time], as the first two axes of the input.
    let along = |time: i64, batch: i64| {
        if time_axis == 0 {
            vec![time, batch]
        } else {
            vec![batch, time]
        }
    };
    let mut e = Expander::new(n);
    let times = Tensor::from_vec(along(steps, 1), (0..steps).collect::<Vec<i64>>())
        .map_err(|m| Problem::invalid(m.0))?;
    let times = e.constant(times);
    let lens = e.op("Cast", &[&n.input[1]], vec![to_attr(DType::I64)]);
    let lens_view = e.ints(&along(1, batches));
    let lens = e.op("Reshape", &[&lens, &lens_view], vec![]);
    let one = e.scalar_like(1.0, DType::I64);
    let last = e.op("Sub", &[&lens, &one], vec![]);
    let reversed = e.op("Sub", &[&last, &times], vec![]);
    let inside = e.op("Less", &[&times, &lens], vec![]);
    let source = e.op("Where", &[&inside, &reversed, &times], vec![]);
    let mut view = along(steps, batches);
    view.extend(std::iter::repeat_n(1, shape.len() - 2));
    let view = e.ints(&view);
    let source = e.op("Reshape", &[&source, &view], vec![]);
    let full = e.ints(&shape);
    let source = e.op("Expand", &[&source, &full], vec![]);
    e.op_to(
        "GatherElements",
        &[&n.input[0], &source],
        vec![int_attr("axis", time_axis)],
        &n.output[0],
    );
    Ok(Lowering::Expand(e.finish()))
}

/// Compress: the slices along `axis` (of the flattened input without one) whose
/// condition is true; the condition may be shorter than the axis.
pub fn compress(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let shape = cx.shape(0)?.to_vec();
    let condition = cx.constant(1, "condition")?;
    if condition.shape().len() != 1 {
        return Err(Problem::invalid(format!(
            "condition must be 1-D, got shape {:?}",
            condition.shape()
        )));
    }
    let n = cx.node;
    let axis = n.attr_int("axis").map_err(attr_problem)?;
    let extent = match axis {
        Some(a) => {
            let r = shape.len() as i64;
            if a < -r || a >= r {
                return Err(Problem::invalid(format!(
                    "axis {a} is out of range for rank {r}"
                )));
            }
            shape[(if a < 0 { a + r } else { a }) as usize]
        }
        None => shape.iter().product(),
    };
    let keep: Vec<i64> = condition
        .to_f64_vec()
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != 0.0)
        .map(|(i, _)| i as i64)
        .collect();
    if keep.last().is_some_and(|&i| i >= extent) {
        return Err(Problem::invalid(format!(
            "condition selects position {} of an axis of {extent}",
            keep.last().copied().unwrap_or(0)
        )));
    }
    let mut e = Expander::new(n);
    let keep = e.ints(&keep);
    let (data, axis) = match axis {
        Some(a) => (n.input[0].clone(), a),
        None => {
            let flat = e.ints(&[-1]);
            (e.op("Reshape", &[&n.input[0], &flat], vec![]), 0)
        }
    };
    e.op_to(
        "Gather",
        &[&data, &keep],
        vec![int_attr("axis", axis)],
        &n.output[0],
    );
    Ok(Lowering::Expand(e.finish()))
}
