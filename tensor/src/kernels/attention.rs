//! Scaled dot-product attention with heads (`graph.attention`, ONNX opset-23 `Attention`
//! in its 4-D form): `Y = softmax(softcap(scale · Q·Kᵀ) + mask [+ causal]) · V` per batch
//! and query head, where query head `h` reads key/value head `h / (Hq / Hkv)` (grouped-query
//! attention). The shape rule is shared by the verifier, the kernel and the lowering.

use crate::shape::{self, ShapeError};
use crate::tensor::Tensor;

use super::{KernelError, KernelResult, output_count, same_dtype, tensor_err};

const OP: &str = "Attention";

/// The attributes of an attention: the scale of the scores (`None`: `1/sqrt(head size)`),
/// the soft cap (`0` or less: none) and whether key `j > i` is hidden from query `i`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionAttrs {
    pub scale: Option<f64>,
    pub softcap: f64,
    pub is_causal: bool,
}

/// The sizes of an attention, read from its operand shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionDims {
    pub batch: i64,
    pub q_heads: i64,
    pub kv_heads: i64,
    pub q_len: i64,
    pub kv_len: i64,
    pub head_size: i64,
    pub v_head_size: i64,
}

impl AttentionDims {
    /// `Y`'s shape: `[batch, q_heads, q_len, v_head_size]`.
    pub fn output_shape(&self) -> Vec<i64> {
        vec![self.batch, self.q_heads, self.q_len, self.v_head_size]
    }

    /// The scores' shape: `[batch, q_heads, q_len, kv_len]` (what the mask broadcasts to).
    pub fn scores_shape(&self) -> Vec<i64> {
        vec![self.batch, self.q_heads, self.q_len, self.kv_len]
    }

    /// How many query heads share one key/value head.
    pub fn group(&self) -> i64 {
        self.q_heads / self.kv_heads
    }

    /// The scale the scores get: the attribute, or `1/sqrt(head_size)`.
    pub fn scale(&self, attrs: &AttentionAttrs) -> f64 {
        attrs
            .scale
            .unwrap_or_else(|| 1.0 / (self.head_size as f64).sqrt())
    }
}

fn err(message: String) -> ShapeError {
    ShapeError { op: OP, message }
}

/// Checks the operand shapes (Q, K, V and an optional mask) and returns the sizes.
pub fn attention_dims(
    q: &[i64],
    k: &[i64],
    v: &[i64],
    mask: Option<&[i64]>,
) -> Result<AttentionDims, ShapeError> {
    for (name, s) in [("Q", q), ("K", k), ("V", v)] {
        if s.len() != 4 {
            return Err(err(format!(
                "{name} must be 4-D [batch, heads, sequence, head size], got rank {}",
                s.len()
            )));
        }
    }
    let dims = AttentionDims {
        batch: q[0],
        q_heads: q[1],
        kv_heads: k[1],
        q_len: q[2],
        kv_len: k[2],
        head_size: q[3],
        v_head_size: v[3],
    };
    if k[0] != q[0] || v[0] != q[0] {
        return Err(err(format!(
            "Q, K and V must have the same batch size, got {}, {} and {}",
            q[0], k[0], v[0]
        )));
    }
    if k[3] != q[3] {
        return Err(err(format!(
            "K's head size {} must equal Q's {}",
            k[3], q[3]
        )));
    }
    if v[1] != k[1] || v[2] != k[2] {
        return Err(err(format!(
            "V must have K's heads and sequence length ({} and {}), got {} and {}",
            k[1], k[2], v[1], v[2]
        )));
    }
    if dims.kv_heads <= 0 || dims.q_heads % dims.kv_heads != 0 {
        return Err(err(format!(
            "the query heads ({}) must be a multiple of the key/value heads ({})",
            dims.q_heads, dims.kv_heads
        )));
    }
    if let Some(m) = mask {
        let scores = dims.scores_shape();
        let b = shape::broadcast(OP, &[m, &scores])?;
        if b != scores {
            return Err(err(format!(
                "the mask {m:?} must broadcast to the scores' shape {scores:?}"
            )));
        }
    }
    Ok(dims)
}

/// The flat offset in a tensor of `shape`, broadcast to the scores' four dims, of the
/// element at scores index `at`.
fn broadcast_offset(shape: &[i64], at: &[i64]) -> usize {
    let skip = at.len() - shape.len();
    let mut off = 0i64;
    for (d, &n) in shape.iter().enumerate() {
        let i = if n == 1 { 0 } else { at[skip + d] };
        off = off * n + i;
    }
    off as usize
}

/// Attention of `q`, `k`, `v` with an optional additive `mask`, computed in f64 and
/// returned in Q's element type. A row whose scores are all `-inf` gives NaN, as
/// softmax does.
pub fn attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    attrs: &AttentionAttrs,
) -> KernelResult {
    let mut inputs = vec![q, k, v];
    inputs.extend(mask);
    let dtype = same_dtype(OP, &inputs)?;
    if !dtype.is_float() {
        return Err(KernelError::new(
            OP,
            format!("needs float tensors, got {dtype}"),
        ));
    }
    let d = attention_dims(q.shape(), k.shape(), v.shape(), mask.map(Tensor::shape))?;
    let out_shape = d.output_shape();
    output_count(OP, &out_shape)?;
    let (qs, ks, vs) = (q.to_f64_vec(), k.to_f64_vec(), v.to_f64_vec());
    let ms = mask.map(|m| (m.shape().to_vec(), m.to_f64_vec()));
    let scale = d.scale(attrs);
    let (hd, vd) = (d.head_size as usize, d.v_head_size as usize);
    let (sq, skv) = (d.q_len as usize, d.kv_len as usize);
    let mut y = vec![0.0f64; out_shape.iter().product::<i64>() as usize];
    let mut scores = vec![0.0f64; skv];
    for b in 0..d.batch as usize {
        for h in 0..d.q_heads as usize {
            let kh = h / d.group() as usize;
            let kv_base = (b * d.kv_heads as usize + kh) * skv;
            for i in 0..sq {
                let q_row = ((b * d.q_heads as usize + h) * sq + i) * hd;
                for (j, s) in scores.iter_mut().enumerate() {
                    let k_row = (kv_base + j) * hd;
                    let dot: f64 = (0..hd).map(|c| qs[q_row + c] * ks[k_row + c]).sum();
                    let mut x = dot * scale;
                    if attrs.softcap > 0.0 {
                        x = attrs.softcap * (x / attrs.softcap).tanh();
                    }
                    if let Some((mshape, mdata)) = &ms {
                        let at = [b as i64, h as i64, i as i64, j as i64];
                        x += mdata[broadcast_offset(mshape, &at)];
                    }
                    if attrs.is_causal && j > i {
                        x = f64::NEG_INFINITY;
                    }
                    *s = x;
                }
                let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut sum = 0.0;
                for s in scores.iter_mut() {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                let y_row = ((b * d.q_heads as usize + h) * sq + i) * vd;
                for (j, p) in scores.iter().enumerate() {
                    let v_row = (kv_base + j) * vd;
                    for e in 0..vd {
                        y[y_row + e] += p / sum * vs[v_row + e];
                    }
                }
            }
        }
    }
    Ok(Tensor::from_vec(out_shape, y)
        .map_err(tensor_err(OP))?
        .cast(dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: Vec<i64>, v: Vec<f32>) -> Tensor {
        Tensor::from_vec(shape, v).unwrap()
    }

    #[test]
    fn one_key_returns_its_value() {
        let q = t(vec![1, 1, 2, 2], vec![1.0, 2.0, -3.0, 0.5]);
        let k = t(vec![1, 1, 1, 2], vec![0.3, 0.7]);
        let v = t(vec![1, 1, 1, 3], vec![4.0, 5.0, 6.0]);
        let attrs = AttentionAttrs {
            scale: None,
            softcap: 0.0,
            is_causal: false,
        };
        let y = attention(&q, &k, &v, None, &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 1, 2, 3]);
        assert_eq!(y.to_f64_vec(), vec![4.0, 5.0, 6.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn causal_first_query_sees_only_first_key() {
        let q = t(vec![1, 1, 2, 1], vec![1.0, 1.0]);
        let k = t(vec![1, 1, 2, 1], vec![1.0, 2.0]);
        let v = t(vec![1, 1, 2, 1], vec![10.0, 20.0]);
        let attrs = AttentionAttrs {
            scale: Some(1.0),
            softcap: 0.0,
            is_causal: true,
        };
        let y = attention(&q, &k, &v, None, &attrs).unwrap().to_f64_vec();
        assert_eq!(y[0], 10.0);
        let p = 1.0 / (1.0 + (-1.0f64).exp());
        assert!((y[1] - (10.0 * (1.0 - p) + 20.0 * p)).abs() < 1e-4);
    }

    #[test]
    fn rejects_heads_that_do_not_group() {
        let e = attention_dims(&[1, 3, 2, 4], &[1, 2, 2, 4], &[1, 2, 2, 4], None).unwrap_err();
        assert!(e.message.contains("multiple"), "{}", e.message);
    }
}
