//! The building blocks both attention models share (the ranker's encoder and the
//! schedule generator's decoder): parameter initialization, layer norm and one pre-norm
//! transformer layer. The two differ only in what attention may see, which the caller
//! passes as an additive bias.

use candle_core::{D, Tensor};
use tb_passes::schedule::Rng;

/// `n` values uniform in `[-bound, bound)`, drawn from `rng`.
pub(crate) fn uniform(rng: &mut Rng, n: usize, bound: f64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            ((2.0 * u - 1.0) * bound) as f32
        })
        .collect()
}

/// Layer norm over the last dimension, from differentiable primitives.
pub(crate) fn layer_norm(x: &Tensor, gain: &Tensor, bias: &Tensor) -> candle_core::Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let variance = centered.sqr()?.mean_keepdim(D::Minus1)?;
    centered
        .broadcast_div(&(variance + 1e-5)?.sqrt()?)?
        .broadcast_mul(gain)?
        .broadcast_add(bias)
}

/// One pre-norm layer on `x` (`[batch, len, dim]`): multi-head self-attention with `heads`
/// heads, whose scores get `bias` added (a large negative value hides a key), then a
/// ReLU feed-forward block, each added back to its input. `p` gives the layer's
/// parameters by name (`norm1.gain`, `query`, `key`, `value`, `out`, `up`, `down`, ...).
pub(crate) fn pre_norm_layer<'a>(
    x: &Tensor,
    bias: &Tensor,
    heads: usize,
    p: &dyn Fn(&str) -> &'a Tensor,
) -> candle_core::Result<Tensor> {
    let (n, len, d) = x.dims3()?;
    let dh = d / heads;
    let h = layer_norm(x, p("norm1.gain"), p("norm1.bias"))?;
    let flat = h.reshape((n * len, d))?;
    let split = |w: &Tensor| -> candle_core::Result<Tensor> {
        flat.matmul(w)?
            .reshape((n, len, heads, dh))?
            .transpose(1, 2)?
            .contiguous()
    };
    let (q, k, v) = (split(p("query"))?, split(p("key"))?, split(p("value"))?);
    let scores = (q.matmul(&k.t()?.contiguous()?)? / (dh as f64).sqrt())?.broadcast_add(bias)?;
    let weights = candle_nn::ops::softmax(&scores, D::Minus1)?;
    let attended = weights
        .matmul(&v)?
        .transpose(1, 2)?
        .contiguous()?
        .reshape((n * len, d))?
        .matmul(p("out"))?
        .broadcast_add(p("out.bias"))?
        .reshape((n, len, d))?;
    let x = (x + attended)?;
    let h = layer_norm(&x, p("norm2.gain"), p("norm2.bias"))?;
    let ff = h
        .reshape((n * len, d))?
        .matmul(p("up"))?
        .broadcast_add(p("up.bias"))?
        .relu()?
        .matmul(p("down"))?
        .broadcast_add(p("down.bias"))?
        .reshape((n, len, d))?;
    x + ff
}
