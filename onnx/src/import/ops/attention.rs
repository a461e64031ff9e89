//! ONNX `Attention` (opset 23): a node in the 4-D layout with an additive float mask as
//! long as the keys becomes one `graph.attention`; every other form is expanded into
//! simpler nodes around such a node: 3-D inputs split into heads (reshape, transpose) and
//! merged back, a boolean mask turned additive (`where(mask, 0, -inf)`), a mask shorter than
//! the keys padded with `-inf`, the key/value cache concatenated in front of K and V
//! (giving `present_key` / `present_value`), and the causal mask of a query block that
//! follows `past` cached keys spelled as a constant bias. The optional scores output
//! (`qk_matmul_output`) is computed beside it from the same inputs.

use tb_interpreter::{DType, Tensor};

use super::super::attrs::{bool_attr, f32_attr};
use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, string_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;
use crate::proto::AttributeProto;
use crate::proto::attribute_proto::AttributeType;

const Q: usize = 0;
const K: usize = 1;
const V: usize = 2;
const MASK: usize = 3;
const PAST_KEY: usize = 4;
const PAST_VALUE: usize = 5;
const NONPAD_KV_SEQLEN: usize = 6;

fn float_attr(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f: v,
        ..Default::default()
    }
}

pub fn attention(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let n = cx.node;
    cx.at_most_outputs(4)?;
    if cx.has_input(NONPAD_KV_SEQLEN) {
        return Err(Problem::unsupported(
            "Attention's nonpad_kv_seqlen input is not supported",
        ));
    }
    let dtype = cx.input(Q)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::unsupported(format!(
            "Attention of {dtype} tensors is not supported (floating-point only)"
        )));
    }
    let rank = cx.shape(Q)?.len();
    let kv_len = cx.shape(K)?.get(2).copied();
    let mask_fits = match cx.inputs.get(MASK).and_then(|m| m.as_ref()) {
        None => true,
        Some(m) => m.dtype == dtype && m.shape.last().copied() == kv_len,
    };
    let direct = rank == 4
        && mask_fits
        && !cx.has_input(PAST_KEY)
        && !cx.has_input(PAST_VALUE)
        && cx.num_outputs() <= 1;
    if direct {
        let mut attrs = vec![(
            "is_causal".to_string(),
            bool_attr(
                cx.ctx,
                n.attr_int_or("is_causal", 0).map_err(attr_problem)? != 0,
            ),
        )];
        if let Some(s) = n.attr_float("scale").map_err(attr_problem)? {
            attrs.push(("scale".into(), f32_attr(cx.ctx, s)));
        }
        let softcap = n.attr_float_or("softcap", 0.0).map_err(attr_problem)?;
        attrs.push(("softcap".into(), f32_attr(cx.ctx, softcap)));
        let operands = cx.all_inputs()?;
        return Ok(cx.plan("graph.attention", operands, attrs));
    }
    expand(cx, dtype, rank)
}

/// The node rewritten around a 4-D `Attention` with an additive mask and no cache.
fn expand(cx: &mut NodeCx, dtype: DType, rank: usize) -> Result<Lowering, Problem> {
    let n = cx.node;
    let q_shape = cx.shape(Q)?.to_vec();
    let (k_shape, v_shape) = (cx.shape(K)?.to_vec(), cx.shape(V)?.to_vec());
    let mut e = Expander::new(n);
    let (mut q, mut k, mut v) = (n.input[Q].clone(), n.input[K].clone(), n.input[V].clone());
    // Sequence lengths and the 3-D layout's head counts.
    let (q_len, mut kv_len) = (q_shape[rank - 2], k_shape[rank - 2]);
    let mut merge = None;
    match rank {
        3 => {
            let heads = |attr: &str| -> Result<i64, Problem> {
                match n.attr_int(attr).map_err(attr_problem)? {
                    Some(h) if h > 0 => Ok(h),
                    _ => Err(Problem::invalid(format!(
                        "3-D Attention needs a positive {attr} attribute"
                    ))),
                }
            };
            let (qh, kvh) = (heads("q_num_heads")?, heads("kv_num_heads")?);
            let mut split = |x: &str, s: &[i64], h: i64| -> Result<String, Problem> {
                if s[2] % h != 0 {
                    return Err(Problem::invalid(format!(
                        "hidden size {} is not a multiple of {h} heads",
                        s[2]
                    )));
                }
                let shape = e.ints(&[s[0], s[1], h, s[2] / h]);
                let r = e.op("Reshape", &[x, &shape], vec![]);
                Ok(e.op("Transpose", &[&r], vec![ints_attr("perm", &[0, 2, 1, 3])]))
            };
            q = split(&q, &q_shape, qh)?;
            k = split(&k, &k_shape, kvh)?;
            v = split(&v, &v_shape, kvh)?;
            merge = Some([q_shape[0], q_len, qh * (v_shape[2] / kvh)]);
        }
        4 => {}
        r => {
            return Err(Problem::invalid(format!(
                "Attention's Q must be 3-D or 4-D, got rank {r}"
            )));
        }
    }
    let mut past = 0;
    for (input, cache, output) in [(&mut k, PAST_KEY, 1), (&mut v, PAST_VALUE, 2)] {
        if cx.has_input(cache) {
            past = cx.shape(cache)?[2];
            let inputs = [n.input[cache].as_str(), input.as_str()];
            let attrs = vec![int_attr("axis", 2)];
            *input = match n.output.get(output).filter(|o| !o.is_empty()) {
                Some(o) => {
                    e.op_to("Concat", &inputs, attrs, o);
                    o.clone()
                }
                None => e.op("Concat", &inputs, attrs),
            };
        } else if let Some(o) = n.output.get(output).filter(|o| !o.is_empty()) {
            e.op_to("Identity", &[input.as_str()], vec![], o);
        }
    }
    kv_len += past;
    let causal = n.attr_int_or("is_causal", 0).map_err(attr_problem)? != 0;
    let mut mask = None;
    if cx.has_input(MASK) {
        let m = cx.input(MASK)?;
        let (m_dtype, m_shape) = (m.dtype, m.shape.clone());
        let mut name = n.input[MASK].clone();
        if m_dtype == DType::Bool {
            let zero = e.scalar_like(0.0, dtype);
            let hidden = e.scalar_like(f64::NEG_INFINITY, dtype);
            name = e.op("Where", &[&name, &zero, &hidden], vec![]);
        } else if m_dtype != dtype {
            return Err(Problem::unsupported(format!(
                "an Attention mask of {m_dtype} with {dtype} inputs is not supported"
            )));
        }
        let short = kv_len - m_shape.last().copied().unwrap_or(kv_len);
        if short > 0 {
            let mut pads = vec![0; 2 * m_shape.len()];
            pads[2 * m_shape.len() - 1] = short;
            let pads = e.ints(&pads);
            let hidden = e.scalar_like(f64::NEG_INFINITY, dtype);
            name = e.op(
                "Pad",
                &[&name, &pads, &hidden],
                vec![string_attr("mode", "constant")],
            );
        }
        mask = Some(name);
    }
    // A causal block after `past` cached keys: key j is hidden from query i when
    // j > i + past, which the plain causal flag (j > i) cannot say.
    // The scores output needs the causal mask spelled out, as does a query block after
    // cached keys (key j hidden from query i when j > i + past; the flag says j > i).
    let qk_output = n.output.get(3).filter(|o| !o.is_empty()).cloned();
    let causal_flag = causal && past == 0 && qk_output.is_none();
    if causal && !causal_flag {
        let bias: Vec<f64> = (0..q_len)
            .flat_map(|i| {
                (0..kv_len).map(move |j| if j > i + past { f64::NEG_INFINITY } else { 0.0 })
            })
            .collect();
        let bias = Tensor::from_vec(vec![q_len, kv_len], bias)
            .map_err(|e| Problem::invalid(e.0))?
            .cast(dtype);
        let bias = e.constant(bias);
        mask = Some(match mask {
            Some(m) => e.op("Add", &[&m, &bias], vec![]),
            None => bias,
        });
    }
    let mut attrs = vec![int_attr("is_causal", i64::from(causal_flag))];
    if let Some(s) = n.attr_float("scale").map_err(attr_problem)? {
        attrs.push(float_attr("scale", s));
    }
    if let Some(c) = n.attr_float("softcap").map_err(attr_problem)? {
        attrs.push(float_attr("softcap", c));
    }
    let mut inputs = vec![q.as_str(), k.as_str(), v.as_str()];
    if let Some(m) = &mask {
        inputs.push(m);
    }
    if let Some(qk) = &qk_output {
        let heads = (q_shape.len() == 4).then(|| (q_shape[1], k_shape[1]));
        let heads = match heads {
            Some(h) => h,
            None => (
                n.attr_int_or("q_num_heads", 1).map_err(attr_problem)?,
                n.attr_int_or("kv_num_heads", 1).map_err(attr_problem)?,
            ),
        };
        let scores = QkScores {
            q: &q,
            k: &k,
            mask: mask.as_deref(),
            heads,
            kv_len,
            head_size: cx.shape(Q)?.last().copied().unwrap_or(1)
                / if rank == 3 { heads.0 } else { 1 },
        };
        scores.emit(&mut e, n, dtype, qk)?;
    }
    let y = &n.output[0];
    match merge {
        Some(shape) => {
            let a = e.op("Attention", &inputs, attrs);
            let t = e.op("Transpose", &[&a], vec![ints_attr("perm", &[0, 2, 1, 3])]);
            let shape = e.ints(&shape);
            e.op_to("Reshape", &[&t, &shape], vec![], y);
        }
        None => e.op_to("Attention", &inputs, attrs, y),
    }
    Ok(Lowering::Expand(e.finish()))
}

/// What ONNX's optional fourth output, `qk_matmul_output`, is built from.
struct QkScores<'a> {
    q: &'a str,
    k: &'a str,
    mask: Option<&'a str>,
    /// Query and key/value heads.
    heads: (i64, i64),
    kv_len: i64,
    head_size: i64,
}

impl QkScores<'_> {
    /// `qk_matmul_output` as ONNX's reference computes it: by `qk_matmul_output_mode`, the
    /// scaled (and soft-capped) scores `Q·Kᵀ·scale` (0, 1), with the mask added (2), or
    /// after the softmax (3).
    fn emit(
        &self,
        e: &mut Expander,
        n: &crate::proto::NodeProto,
        dtype: DType,
        out: &str,
    ) -> Result<(), Problem> {
        let mode = n
            .attr_int_or("qk_matmul_output_mode", 0)
            .map_err(attr_problem)?;
        if !(0..=3).contains(&mode) {
            return Err(Problem::invalid(format!(
                "qk_matmul_output_mode {mode} is not 0 to 3"
            )));
        }
        let (hq, hkv) = self.heads;
        if hkv <= 0 || hq % hkv != 0 {
            return Err(Problem::invalid(format!(
                "{hq} query heads do not group over {hkv} key/value heads"
            )));
        }
        // Each key/value head repeated for the query heads of its group: [h0, h0, h1, h1, ...].
        let mut k = self.k.to_string();
        if hq != hkv {
            let axes = e.ints(&[2]);
            let wide = e.op("Unsqueeze", &[&k, &axes], vec![]);
            let group = e.ints(&[1, 1, hq / hkv, 1, 1]);
            let tiled = e.op("Tile", &[&wide, &group], vec![]);
            let merged = e.ints(&[0, hq, self.kv_len, self.head_size]);
            k = e.op("Reshape", &[&tiled, &merged], vec![]);
        }
        let kt = e.op("Transpose", &[&k], vec![ints_attr("perm", &[0, 1, 3, 2])]);
        let raw = e.op("MatMul", &[self.q, &kt], vec![]);
        let scale = match n.attr_float("scale").map_err(attr_problem)? {
            Some(s) => f64::from(s),
            None => 1.0 / (self.head_size as f64).sqrt(),
        };
        let scale = e.scalar_like(scale, dtype);
        let mut scores = e.op("Mul", &[&raw, &scale], vec![]);
        let softcap = n.attr_float_or("softcap", 0.0).map_err(attr_problem)?;
        if softcap > 0.0 {
            let cap = e.scalar_like(f64::from(softcap), dtype);
            let t = e.op("Div", &[&scores, &cap], vec![]);
            let t = e.op("Tanh", &[&t], vec![]);
            scores = e.op("Mul", &[&t, &cap], vec![]);
        }
        if let Some(m) = self.mask.filter(|_| mode >= 2) {
            scores = e.op("Add", &[&scores, m], vec![]);
        }
        if mode == 3 {
            scores = e.op("Softmax", &[&scores], vec![int_attr("axis", -1)]);
        }
        e.op_to("Identity", &[&scores], vec![], out);
        Ok(())
    }
}
