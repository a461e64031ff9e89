//! LinearAttention (opset 27), imported unrolled over its (static) number of tokens, as
//! ONNX's reference defines it: per head a `d_k × d_v` state, decayed by `exp(decay)`
//! (gated rules), corrected towards the value by `beta` (delta rules), updated by the
//! key-value outer product and read by the query; grouped-query heads share a state.
//! Computed in f32 whatever the input type, as the reference does.

use tb_interpreter::{DType, Tensor};

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

/// `[B, T, H*D]` (input `i`) as f32 `[B, H, T, D]`.
fn heads(cx: &NodeCx, e: &mut Expander, i: usize, heads: i64) -> Result<String, Problem> {
    let shape = cx.shape(i)?;
    let name = &cx.node.input[i];
    let [b, t, hd] = shape[..] else {
        return Err(Problem::invalid(format!(
            "input '{name}' must be [batch, tokens, heads * size], got shape {shape:?}"
        )));
    };
    if heads <= 0 || hd % heads != 0 {
        return Err(Problem::invalid(format!(
            "input '{name}': its last dimension {hd} is not a multiple of {heads} heads"
        )));
    }
    let view = e.ints(&[b, t, heads, hd / heads]);
    let v = e.op("Reshape", &[name, &view], vec![]);
    let v = e.op("Transpose", &[&v], vec![ints_attr("perm", &[0, 2, 1, 3])]);
    Ok(if cx.input(i)?.dtype == DType::F32 {
        v
    } else {
        e.op("Cast", &[&v], vec![to_attr(DType::F32)])
    })
}

pub fn linear_attention(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(2)?;
    let n = cx.node;
    let out_type = cx.input(0)?.dtype;
    if !out_type.is_float() {
        return Err(Problem::invalid(format!(
            "query must be a floating-point tensor, got {out_type}"
        )));
    }
    let rule = n
        .attr_string_or("update_rule", "gated_delta")
        .map_err(attr_problem)?;
    let (gating, delta) = match rule.as_str() {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        other => {
            return Err(Problem::invalid(format!(
                "update_rule must be linear, gated, delta or gated_delta, got \"{other}\""
            )));
        }
    };
    if gating != cx.has_input(4) || delta != cx.has_input(5) {
        return Err(Problem::invalid(format!(
            "update_rule \"{rule}\" {} decay and {} beta",
            if gating { "takes" } else { "takes no" },
            if delta { "takes" } else { "takes no" }
        )));
    }
    let q_heads = n
        .attr_required::<i64>("q_num_heads")
        .map_err(attr_problem)?;
    let kv_heads = n
        .attr_required::<i64>("kv_num_heads")
        .map_err(attr_problem)?;
    if q_heads <= 0 || kv_heads <= 0 || q_heads % kv_heads != 0 {
        return Err(Problem::invalid(format!(
            "q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})"
        )));
    }
    let q_shape = cx.shape(0)?.to_vec();
    let [batch, tokens, q_width] = q_shape[..] else {
        return Err(Problem::invalid(format!(
            "query must be [batch, tokens, heads * size], got shape {q_shape:?}"
        )));
    };
    let d_k = q_width / q_heads.max(1);
    let d_v = cx.shape(2)?.last().copied().unwrap_or(0) / kv_heads;
    for i in [1, 2] {
        if cx.shape(i)?[..2.min(cx.shape(i)?.len())] != [batch, tokens] {
            return Err(Problem::invalid(format!(
                "input '{}' must have the query's batch and tokens, got shape {:?}",
                n.input[i],
                cx.shape(i)?
            )));
        }
    }
    if cx.shape(1)?.last() != Some(&(kv_heads * d_k)) {
        return Err(Problem::invalid(format!(
            "key must have last dimension {}, got shape {:?}",
            kv_heads * d_k,
            cx.shape(1)?
        )));
    }
    let state_shape = [batch, kv_heads, d_k, d_v];
    if cx.has_input(3) && cx.shape(3)? != state_shape {
        return Err(Problem::invalid(format!(
            "past_state must have shape {state_shape:?}, got {:?}",
            cx.shape(3)?
        )));
    }
    let scale = match n.attr_float("scale").map_err(attr_problem)? {
        Some(s) if s != 0.0 => f64::from(s),
        _ => 1.0 / (d_k as f64).sqrt(),
    };
    let group = q_heads / kv_heads;

    let mut e = Expander::new(n);
    let q = heads(cx, &mut e, 0, q_heads)?;
    let k = heads(cx, &mut e, 1, kv_heads)?;
    let v = heads(cx, &mut e, 2, kv_heads)?;
    // decay as [B, H_kv, T, 1 or d_k]; beta as [B, H_kv or 1, T, 1].
    let per_head = |cx: &NodeCx, e: &mut Expander, i: usize, allowed: &[i64]| {
        let shape = cx.shape(i)?.to_vec();
        let last = shape.last().copied().unwrap_or(0);
        if shape.len() != 3 || shape[..2] != [batch, tokens] || !allowed.contains(&last) {
            return Err(Problem::invalid(format!(
                "input '{}' must have shape [{batch}, {tokens}, one of {allowed:?}], got {shape:?}",
                n.input[i]
            )));
        }
        let view = e.ints(&[batch, tokens, last, 1]);
        let r = e.op("Reshape", &[&n.input[i], &view], vec![]);
        let r = e.op("Transpose", &[&r], vec![ints_attr("perm", &[0, 2, 1, 3])]);
        Ok(if cx.input(i)?.dtype == DType::F32 {
            r
        } else {
            e.op("Cast", &[&r], vec![to_attr(DType::F32)])
        })
    };
    let decay = if gating {
        let last = cx.shape(4)?.last().copied().unwrap_or(0);
        Some(if last == kv_heads * d_k && last != kv_heads {
            heads(cx, &mut e, 4, kv_heads)?
        } else {
            per_head(cx, &mut e, 4, &[kv_heads])?
        })
    } else {
        None
    };
    let beta = if delta {
        Some(per_head(cx, &mut e, 5, &[kv_heads, 1])?)
    } else {
        None
    };
    let mut state = if cx.has_input(3) {
        if cx.input(3)?.dtype == DType::F32 {
            n.input[3].clone()
        } else {
            e.op("Cast", &[&n.input[3]], vec![to_attr(DType::F32)])
        }
    } else {
        let count = state_shape.iter().product::<i64>() as usize;
        let zeros = Tensor::from_vec(state_shape.to_vec(), vec![0.0f32; count])
            .map_err(|m| Problem::invalid(m.0))?;
        e.constant(zeros)
    };
    let state_type = if cx.has_input(3) {
        cx.input(3)?.dtype
    } else {
        out_type
    };
    let scale = e.scalar_like(scale, DType::F32);
    let (axis2, axis_last) = (e.ints(&[2]), e.ints(&[-1]));
    let mut outputs = Vec::new();
    for t in 0..tokens {
        let at = e.constant(Tensor::scalar(t));
        let step = |e: &mut Expander, v: &str| e.op("Gather", &[v, &at], vec![int_attr("axis", 2)]);
        let q_t = step(&mut e, &q);
        let k_t = step(&mut e, &k);
        let mut v_t = step(&mut e, &v);
        if let Some(decay) = &decay {
            let g = step(&mut e, decay);
            let g = e.op("Exp", &[&g], vec![]);
            let g = e.op("Unsqueeze", &[&g, &axis_last], vec![]);
            state = e.op("Mul", &[&state, &g], vec![]);
        }
        let k_row = e.op("Unsqueeze", &[&k_t, &axis2], vec![]);
        if let Some(beta) = &beta {
            let retrieved = e.op("MatMul", &[&k_row, &state], vec![]);
            let retrieved = e.op("Squeeze", &[&retrieved, &axis2], vec![]);
            let error = e.op("Sub", &[&v_t, &retrieved], vec![]);
            let b = step(&mut e, beta);
            v_t = e.op("Mul", &[&b, &error], vec![]);
        }
        let k_col = e.op("Unsqueeze", &[&k_t, &axis_last], vec![]);
        let v_row = e.op("Unsqueeze", &[&v_t, &axis2], vec![]);
        let update = e.op("Mul", &[&k_col, &v_row], vec![]);
        state = e.op("Add", &[&state, &update], vec![]);
        let read = if group == 1 {
            state.clone()
        } else {
            let spread = e.op("Unsqueeze", &[&state, &axis2], vec![]);
            let wide = e.ints(&[batch, kv_heads, group, d_k, d_v]);
            let spread = e.op("Expand", &[&spread, &wide], vec![]);
            let view = e.ints(&[batch, q_heads, d_k, d_v]);
            e.op("Reshape", &[&spread, &view], vec![])
        };
        let q_row = e.op("Unsqueeze", &[&q_t, &axis2], vec![]);
        let o = e.op("MatMul", &[&q_row, &read], vec![]);
        outputs.push(e.op("Mul", &[&o, &scale], vec![]));
    }
    let refs: Vec<&str> = outputs.iter().map(String::as_str).collect();
    let o = e.op("Concat", &refs, vec![int_attr("axis", 2)]);
    let o = e.op("Transpose", &[&o], vec![ints_attr("perm", &[0, 2, 1, 3])]);
    let flat = e.ints(&[batch, tokens, q_heads * d_v]);
    let o = e.op("Reshape", &[&o, &flat], vec![]);
    e.op_to("Cast", &[&o], vec![to_attr(out_type)], &n.output[0]);
    if let Some(present) = n.output.get(1).filter(|o| !o.is_empty()) {
        e.op_to("Cast", &[&state], vec![to_attr(state_type)], present);
    }
    Ok(Lowering::Expand(e.finish()))
}
