//! RotaryEmbedding (rotary positional embeddings), imported as ONNX's function body: the
//! first `rotary_embedding_dim` features of each head are split into halves (or even and
//! odd positions, `interleaved`) and rotated by the cos/sin caches at each token's
//! position; the other features pass through.

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

pub fn rotary_embedding(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::invalid(format!(
            "X must be a floating-point tensor, got {dtype}"
        )));
    }
    let shape = cx.shape(0)?.to_vec();
    let interleaved = n.attr_int_or("interleaved", 0).map_err(attr_problem)? != 0;
    let num_heads = n.attr_int_or("num_heads", 0).map_err(attr_problem)?;
    // The input as [batch, sequence, heads, head_size].
    let (heads_shape, head_size) = match shape[..] {
        [b, h, s, d] => (vec![b, s, h, d], d),
        [b, s, hidden] if num_heads > 0 && hidden % num_heads == 0 => (
            vec![b, s, num_heads, hidden / num_heads],
            hidden / num_heads,
        ),
        _ => {
            return Err(Problem::invalid(format!(
                "X must be [batch, heads, sequence, head_size], or [batch, sequence, hidden] \
                 with num_heads dividing hidden; got shape {shape:?} and num_heads {num_heads}"
            )));
        }
    };
    let rotary = match n
        .attr_int_or("rotary_embedding_dim", 0)
        .map_err(attr_problem)?
    {
        0 => head_size,
        r => r,
    };
    if rotary <= 0 || rotary % 2 != 0 || rotary > head_size {
        return Err(Problem::invalid(format!(
            "rotary_embedding_dim {rotary} must be even and at most the head size {head_size}"
        )));
    }
    let half = rotary / 2;
    let (batch, sequence) = (heads_shape[0], heads_shape[1]);
    let cache_shape = if cx.has_input(3) {
        if cx.shape(3)? != [batch, sequence] {
            return Err(Problem::invalid(format!(
                "position_ids must have shape [{batch}, {sequence}], got {:?}",
                cx.shape(3)?
            )));
        }
        let rows = cx.shape(1)?.first().copied().unwrap_or(0);
        vec![rows, half]
    } else {
        vec![batch, sequence, half]
    };
    for i in [1, 2] {
        if cx.shape(i)? != cache_shape.as_slice() {
            return Err(Problem::invalid(format!(
                "the cos and sin caches must have shape {cache_shape:?}, got {:?}",
                cx.shape(i)?
            )));
        }
    }
    let mut e = Expander::new(n);
    let x = if shape.len() == 4 {
        e.op(
            "Transpose",
            &[&n.input[0]],
            vec![ints_attr("perm", &[0, 2, 1, 3])],
        )
    } else {
        let view = e.ints(&heads_shape);
        e.op("Reshape", &[&n.input[0], &view], vec![])
    };
    let heads_axis = e.ints(&[2]);
    let cache = |e: &mut Expander, i: usize| {
        let c = if cx.has_input(3) {
            e.op(
                "Gather",
                &[&n.input[i], &n.input[3]],
                vec![int_attr("axis", 0)],
            )
        } else {
            n.input[i].clone()
        };
        e.op("Unsqueeze", &[&c, &heads_axis], vec![])
    };
    let cos = cache(&mut e, 1);
    let sin = cache(&mut e, 2);
    let last = e.ints(&[3]);
    let slice = |e: &mut Expander, v: &str, start: i64, end: i64, step: i64| {
        let (s, en, st) = (e.ints(&[start]), e.ints(&[end]), e.ints(&[step]));
        e.op("Slice", &[v, &s, &en, &last, &st], vec![])
    };
    let (x1, x2) = if interleaved {
        (
            slice(&mut e, &x, 0, rotary, 2),
            slice(&mut e, &x, 1, rotary, 2),
        )
    } else {
        (
            slice(&mut e, &x, 0, half, 1),
            slice(&mut e, &x, half, rotary, 1),
        )
    };
    let cos_x1 = e.op("Mul", &[&cos, &x1], vec![]);
    let sin_x2 = e.op("Mul", &[&sin, &x2], vec![]);
    let real = e.op("Sub", &[&cos_x1, &sin_x2], vec![]);
    let sin_x1 = e.op("Mul", &[&sin, &x1], vec![]);
    let cos_x2 = e.op("Mul", &[&cos, &x2], vec![]);
    let imag = e.op("Add", &[&sin_x1, &cos_x2], vec![]);
    let rotated = if interleaved {
        let pair_axis = e.ints(&[4]);
        let real = e.op("Unsqueeze", &[&real, &pair_axis], vec![]);
        let imag = e.op("Unsqueeze", &[&imag, &pair_axis], vec![]);
        let pairs = e.op("Concat", &[&real, &imag], vec![int_attr("axis", 4)]);
        let mut view = heads_shape.clone();
        view[3] = rotary;
        let view = e.ints(&view);
        e.op("Reshape", &[&pairs, &view], vec![])
    } else {
        e.op("Concat", &[&real, &imag], vec![int_attr("axis", 3)])
    };
    let y = if rotary < head_size {
        let rest = slice(&mut e, &x, rotary, head_size, 1);
        e.op("Concat", &[&rotated, &rest], vec![int_attr("axis", 3)])
    } else {
        rotated
    };
    let out = n.output[0].as_str();
    if shape.len() == 4 {
        e.op_to(
            "Transpose",
            &[&y],
            vec![ints_attr("perm", &[0, 2, 1, 3])],
            out,
        );
    } else {
        let original = e.ints(&shape);
        e.op_to("Reshape", &[&y, &original], vec![], out);
    }
    Ok(Lowering::Expand(e.finish()))
}
