//! Operators with optional extra outputs or inference-only modes: MaxPool (`Indices`),
//! BatchNormalization (inference only) and LayerNormalization (`Mean`, `InvStdDev`).

use tb_ir::{FloatKind, Type};

use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx, OpPlan, attr_problem};
use crate::attribute::NodeAttrs;
use tb_dialects::graph::builder::op_state;

/// The type of the op's first result, inferred as if it had only that one.
fn first_result(cx: &mut NodeCx, plan: &OpPlan) -> Result<Type, Problem> {
    let operands: Vec<_> = plan
        .operands
        .iter()
        .map(|&i| cx.input(i).map(|x| x.ty))
        .collect::<Result<_, _>>()?;
    // Inference only reads operand types, so placeholders of those types suffice.
    let block = cx.ctx.create_block();
    let values = operands
        .iter()
        .map(|&ty| cx.ctx.add_block_argument(block, ty, None))
        .collect();
    let loc = cx.ctx.unknown_loc();
    let state = op_state(cx.ctx, plan.name, values, plan.attrs.clone(), loc);
    cx.ctx.erase_block(block);
    let state = state.map_err(Problem::invalid)?;
    state
        .result_types
        .first()
        .copied()
        .ok_or_else(|| Problem::invalid("the op infers no result"))
}

pub fn max_pool(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(2)?;
    let attrs = cx.attrs("graph.max_pool", &[]);
    let mut plan = OpPlan {
        name: "graph.max_pool",
        operands: vec![0],
        attrs,
        result_types: None,
        outputs: vec![0],
    };
    if cx.num_outputs() == 2 {
        let y = first_result(cx, &plan)?;
        let shape = tb_dialects::graph::types::static_tensor(cx.ctx, y)
            .map(|(s, _)| s.to_vec())
            .ok_or_else(|| Problem::invalid("the result is not a static tensor"))?;
        let i64 = cx.ctx.i64();
        let indices = tb_dialects::graph::types::tensor_type(cx.ctx, shape, i64);
        plan.result_types = Some(vec![y, indices]);
        plan.outputs = vec![0, 1];
    }
    Ok(Lowering::Op(plan))
}

/// Inference-mode BatchNormalization; `training_mode = 1` and the running-statistics
/// outputs are not supported.
pub fn batch_norm(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    if cx
        .node
        .attr_int_or("training_mode", 0)
        .map_err(attr_problem)?
        != 0
    {
        return Err(Problem::unsupported(
            "training_mode = 1 (batch statistics) is not supported; only inference is",
        ));
    }
    cx.at_most_outputs(1)?;
    let attrs = cx.attrs("graph.batch_normalization", &["training_mode"]);
    let operands = cx.all_inputs()?;
    Ok(cx.plan("graph.batch_normalization", operands, attrs))
}

/// LayerNormalization with as many of `Mean`/`InvStdDev` as the node asks for; they have
/// the input's shape with the normalized axes set to 1, in `f32` (`stash_type` 1).
pub fn layer_norm(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(3)?;
    let attrs = cx.attrs("graph.layer_normalization", &[]);
    let operands = cx.all_inputs()?;
    let n = cx.num_outputs().max(1);
    let mut plan = OpPlan {
        name: "graph.layer_normalization",
        operands,
        attrs,
        result_types: None,
        outputs: (0..n).collect(),
    };
    if n > 1 {
        if cx.node.output[1..n].iter().any(|o| o.is_empty()) {
            return Err(Problem::unsupported(
                "InvStdDev without Mean is not supported",
            ));
        }
        let y = first_result(cx, &plan)?;
        let x = cx.shape(0)?.to_vec();
        let rank = x.len() as i64;
        let axis = cx.node.attr_int_or("axis", -1).map_err(attr_problem)?;
        let axis = if axis < 0 { axis + rank } else { axis };
        let stats: Vec<i64> = x
            .iter()
            .enumerate()
            .map(|(d, &s)| if (d as i64) < axis { s } else { 1 })
            .collect();
        let f32 = cx.ctx.float_type(FloatKind::F32);
        let stat = tb_dialects::graph::types::tensor_type(cx.ctx, stats, f32);
        let mut types = vec![y];
        types.extend(std::iter::repeat_n(stat, n - 1));
        plan.result_types = Some(types);
    }
    Ok(Lowering::Op(plan))
}
