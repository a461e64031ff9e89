//! Reductions: `axes` is an attribute before opset 18 (13 for ReduceSum) and an optional
//! input since; either way it becomes the `axes` attribute. Empty axes mean "no axes".

use super::super::attrs::ints_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx};

pub const OPS: &[(&str, &str)] = &[
    ("ReduceSum", "graph.reduce_sum"),
    ("ReduceMean", "graph.reduce_mean"),
    ("ReduceMax", "graph.reduce_max"),
    ("ReduceMin", "graph.reduce_min"),
    ("ReduceProd", "graph.reduce_prod"),
    ("ReduceL1", "graph.reduce_l1"),
    ("ReduceL2", "graph.reduce_l2"),
    ("ReduceLogSum", "graph.reduce_log_sum"),
    ("ReduceLogSumExp", "graph.reduce_log_sum_exp"),
    ("ReduceSumSquare", "graph.reduce_sum_square"),
];

pub fn graph_name(op: &str) -> Option<&'static str> {
    OPS.iter().find(|(o, _)| *o == op).map(|(_, g)| *g)
}

pub fn reduce(cx: &mut NodeCx, name: &'static str) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let mut attrs = cx.attrs(name, &["axes"]);
    if let Some(axes) = cx.ints_attr_or_input("axes", 1)?
        && !axes.is_empty()
    {
        attrs.push(("axes".into(), ints_attr(cx.ctx, &axes)));
    }
    Ok(cx.plan(name, vec![0], attrs))
}
