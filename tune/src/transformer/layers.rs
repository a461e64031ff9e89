//! The building blocks both attention models share (the ranker's encoder and the
//! schedule generator's decoder): parameter initialization, layer norm and one pre-norm
//! transformer layer. The two differ only in what attention may see, which the caller
//! passes as an additive bias.

use candle_core::{D, Device, Tensor, Var};
use tb_passes::schedule::Rng;

/// How a parameter starts.
pub(crate) enum Init {
    Uniform(f64),
    /// Uniform within 1/sqrt(rows): the scale of a linear layer's input.
    FanIn,
    Ones,
    Zeros,
}

/// The parameters of layer `l` of width `d` with a feed-forward block of `hidden` units,
/// as [`pre_norm_layer`] reads them.
pub(crate) fn layer_parameters(
    l: usize,
    d: usize,
    hidden: usize,
) -> Vec<(String, Vec<usize>, Init)> {
    let p = |n: &str| format!("layer{l}.{n}");
    vec![
        (p("norm1.gain"), vec![d], Init::Ones),
        (p("norm1.bias"), vec![d], Init::Zeros),
        (p("query"), vec![d, d], Init::FanIn),
        (p("key"), vec![d, d], Init::FanIn),
        (p("value"), vec![d, d], Init::FanIn),
        (p("out"), vec![d, d], Init::FanIn),
        (p("out.bias"), vec![d], Init::Zeros),
        (p("norm2.gain"), vec![d], Init::Ones),
        (p("norm2.bias"), vec![d], Init::Zeros),
        (p("up"), vec![d, hidden], Init::FanIn),
        (p("up.bias"), vec![hidden], Init::Zeros),
        (p("down"), vec![hidden, d], Init::FanIn),
        (p("down.bias"), vec![d], Init::Zeros),
    ]
}

/// The parameters `shapes` describes, in order, drawn from `seed`; `err` names a failure.
pub(crate) fn initial_parameters(
    shapes: Vec<(String, Vec<usize>, Init)>,
    seed: u64,
    err: &dyn Fn(candle_core::Error) -> String,
) -> Result<Vec<(String, Var)>, String> {
    let mut rng = Rng::seeded(seed);
    let mut params = Vec::with_capacity(shapes.len());
    for (name, shape, init) in shapes {
        let n: usize = shape.iter().product();
        let values = match init {
            Init::Uniform(b) => uniform(&mut rng, n, b),
            Init::FanIn => uniform(&mut rng, n, 1.0 / (shape[0] as f64).sqrt()),
            Init::Ones => vec![1.0; n],
            Init::Zeros => vec![0.0; n],
        };
        let t = Tensor::from_vec(values, shape, &Device::Cpu).map_err(err)?;
        params.push((name, Var::from_tensor(&t).map_err(err)?));
    }
    Ok(params)
}

/// `n` values uniform in `[-bound, bound)`, drawn from `rng`.
fn uniform(rng: &mut Rng, n: usize, bound: f64) -> Vec<f32> {
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
