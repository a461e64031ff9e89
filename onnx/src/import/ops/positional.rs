//! Trilu, CumSum and TopK, whose scalar inputs (Trilu's `k`, CumSum's `axis`, TopK's `K`)
//! must be known at import time and become attributes: TopK's `K` fixes its result's
//! shape, so a `K` computed at run time is reported as such, naming the node.

use super::super::attrs::i64_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx, OpPlan};

/// The one integer held by constant input `i`.
fn scalar_int(cx: &NodeCx, i: usize, what: &str) -> Result<i64, Problem> {
    match cx.constant_ints(i, what)?.as_slice() {
        [v] => Ok(*v),
        other => Err(Problem::invalid(format!(
            "input '{}' ({what}) must hold one integer, got {}",
            cx.node.input[i],
            other.len()
        ))),
    }
}

pub fn trilu(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = cx.attrs("graph.trilu", &[]);
    if cx.has_input(1) {
        let k = scalar_int(cx, 1, "k")?;
        attrs.push(("k".into(), i64_attr(cx.ctx, k)));
    }
    Ok(cx.plan("graph.trilu", vec![0], attrs))
}

pub fn cum_sum(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = cx.attrs("graph.cum_sum", &[]);
    let axis = scalar_int(cx, 1, "axis")?;
    attrs.push(("axis".into(), i64_attr(cx.ctx, axis)));
    Ok(cx.plan("graph.cum_sum", vec![0], attrs))
}

/// TopK: `k` is an input (an attribute before opset 10, which
/// [`version_convert`](super::super::version_convert) turns into the input).
pub fn top_k(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(2)?;
    let mut attrs = cx.attrs("graph.top_k", &[]);
    let k = scalar_int(cx, 1, "K")?;
    attrs.push(("k".into(), i64_attr(cx.ctx, k)));
    Ok(Lowering::Op(OpPlan {
        name: "graph.top_k",
        operands: vec![0],
        attrs,
        result_types: None,
        outputs: vec![0, 1],
    }))
}
