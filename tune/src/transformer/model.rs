//! A small transformer encoder over tensor sentences ([`crate::sentence`]), scoring each
//! sentence with one number (higher: faster). Pre-norm encoder layers (multi-head
//! self-attention over the words, a ReLU feed-forward block, residual connections), learned
//! word and position embeddings, a final layer norm, the mean over the words and a linear
//! read-out. Every parameter is a `candle` variable of our own, initialized from a seeded
//! generator (candle's CPU generator cannot be seeded), so training is reproducible.

use candle_core::{Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use super::layers::{Init, initial_parameters, layer_norm, layer_parameters, pre_norm_layer};
use crate::sentence::{PAD, TOKENIZER_VERSION, VOCABULARY};

/// What a saved model says it is.
const FORMAT: &str = "tb-tune transformer ranker";

/// The layout of the saved parameters; a model of another layout is refused.
pub const MODEL_SCHEMA_VERSION: u32 = 1;

/// The encoder's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Width of the word vectors.
    pub dim: usize,
    pub heads: usize,
    pub layers: usize,
    /// Width of the feed-forward block.
    pub hidden: usize,
    /// Longest sentence; longer ones keep their first `max_len` words.
    pub max_len: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dim: 32,
            heads: 4,
            layers: 2,
            hidden: 64,
            max_len: 96,
        }
    }
}

/// The encoder and its parameters (named, in a fixed order).
pub struct Encoder {
    pub config: Config,
    params: Vec<(String, Var)>,
}

/// A saved encoder: its versions, sizes and every parameter's shape and values.
#[derive(Serialize, Deserialize)]
struct Saved {
    format: String,
    tokenizer_version: u32,
    model_schema: u32,
    config: Config,
    params: Vec<(String, Vec<usize>, Vec<f32>)>,
}

fn located(what: &str) -> impl Fn(candle_core::Error) -> String + '_ {
    move |e| format!("transformer {what}: {e}")
}

impl Encoder {
    /// A fresh encoder with parameters drawn from `seed`.
    pub fn new(config: Config, seed: u64) -> Result<Encoder, String> {
        if config.dim == 0 || config.heads == 0 || !config.dim.is_multiple_of(config.heads) {
            return Err(format!(
                "transformer: dim {} is not a positive multiple of heads {}",
                config.dim, config.heads
            ));
        }
        let (d, h) = (config.dim, config.hidden);
        let mut shapes: Vec<(String, Vec<usize>, Init)> = vec![
            ("embed".into(), vec![VOCABULARY, d], Init::Uniform(0.1)),
            (
                "position".into(),
                vec![config.max_len, d],
                Init::Uniform(0.1),
            ),
        ];
        for l in 0..config.layers {
            shapes.extend(layer_parameters(l, d, h));
        }
        shapes.extend([
            ("final.gain".into(), vec![d], Init::Ones),
            ("final.bias".into(), vec![d], Init::Zeros),
            ("readout".into(), vec![d, 1], Init::FanIn),
            ("readout.bias".into(), vec![1], Init::Zeros),
        ]);
        let params = initial_parameters(shapes, seed, &located("init"))?;
        Ok(Encoder { config, params })
    }

    /// The trainable parameters.
    pub fn vars(&self) -> Vec<Var> {
        self.params.iter().map(|(_, v)| v.clone()).collect()
    }

    fn param(&self, name: &str) -> &Tensor {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_tensor())
            .expect("every parameter name the forward pass uses is created by Encoder::new")
    }

    /// Scores of a batch of sentences (token ids), as a `[batch]` tensor.
    pub fn forward(&self, sentences: &[Vec<u32>]) -> Result<Tensor, String> {
        let err = located("forward");
        let n = sentences.len();
        let len = sentences
            .iter()
            .map(|s| s.len().min(self.config.max_len))
            .max()
            .unwrap_or(0)
            .max(1);
        let (d, heads) = (self.config.dim, self.config.heads);
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for s in sentences {
            for i in 0..len {
                let id = s
                    .get(i)
                    .copied()
                    .filter(|_| i < self.config.max_len)
                    .unwrap_or(PAD);
                ids.push(id.min(VOCABULARY as u32 - 1));
                mask.push(if id == PAD { 0f32 } else { 1f32 });
            }
        }
        let dev = &Device::Cpu;
        let ids = Tensor::from_vec(ids, n * len, dev).map_err(&err)?;
        let mask = Tensor::from_vec(mask, (n, len), dev).map_err(&err)?;
        let words = self.param("embed").index_select(&ids, 0).map_err(&err)?;
        let positions = self.param("position").narrow(0, 0, len).map_err(&err)?;
        let mut x = words
            .reshape((n, len, d))
            .and_then(|w| w.broadcast_add(&positions))
            .map_err(&err)?;
        // Attention to padding is cut off with a large negative bias.
        let bias = mask
            .affine(1e9, -1e9)
            .and_then(|b| b.reshape((n, 1, 1, len)))
            .map_err(&err)?;
        for l in 0..self.config.layers {
            let p = |name: &str| self.param(&format!("layer{l}.{name}"));
            x = pre_norm_layer(&x, &bias, heads, &p).map_err(&err)?;
        }
        (|| -> candle_core::Result<Tensor> {
            let x = layer_norm(&x, self.param("final.gain"), self.param("final.bias"))?;
            let m = mask.unsqueeze(2)?;
            let count = m.sum(1)?.clamp(1f32, f32::MAX)?;
            let pooled = x.broadcast_mul(&m)?.sum(1)?.broadcast_div(&count)?;
            pooled
                .matmul(self.param("readout"))?
                .broadcast_add(self.param("readout.bias"))?
                .squeeze(1)
        })()
        .map_err(&err)
    }

    /// Scores of sentences as numbers, in batches of 256.
    pub fn scores(&self, sentences: &[Vec<u32>]) -> Result<Vec<f64>, String> {
        let mut out = Vec::with_capacity(sentences.len());
        for chunk in sentences.chunks(256) {
            let s = self
                .forward(chunk)?
                .detach()
                .to_vec1::<f32>()
                .map_err(located("scores"))?;
            out.extend(s.into_iter().map(f64::from));
        }
        Ok(out)
    }

    /// The model as JSON, with its tokenizer and layout versions.
    pub fn to_json(&self) -> Result<String, String> {
        let mut params = Vec::with_capacity(self.params.len());
        for (name, var) in &self.params {
            let t = var.as_tensor();
            let values = t
                .flatten_all()
                .and_then(|f| f.to_vec1::<f32>())
                .map_err(located("save"))?;
            params.push((name.clone(), t.dims().to_vec(), values));
        }
        serde_json::to_string(&Saved {
            format: FORMAT.into(),
            tokenizer_version: TOKENIZER_VERSION,
            model_schema: MODEL_SCHEMA_VERSION,
            config: self.config,
            params,
        })
        .map_err(|e| format!("transformer save: {e}"))
    }

    /// A saved model, refused unless its format, tokenizer version, layout version and
    /// every parameter's shape match this build's.
    pub fn from_json(text: &str) -> Result<Encoder, String> {
        let saved: Saved = serde_json::from_str(text)
            .map_err(|e| format!("not a saved transformer ranker: {e}"))?;
        if saved.format != FORMAT {
            return Err(format!(
                "not a saved transformer ranker (format '{}')",
                saved.format
            ));
        }
        if saved.tokenizer_version != TOKENIZER_VERSION {
            return Err(format!(
                "the transformer was trained on tokenizer version {}, this build writes version {TOKENIZER_VERSION}",
                saved.tokenizer_version
            ));
        }
        if saved.model_schema != MODEL_SCHEMA_VERSION {
            return Err(format!(
                "the transformer has parameter layout {}, this build reads layout {MODEL_SCHEMA_VERSION}",
                saved.model_schema
            ));
        }
        let encoder = Encoder::new(saved.config, 0)?;
        if saved.params.len() != encoder.params.len() {
            return Err(format!(
                "the saved transformer has {} parameters, its config needs {}",
                saved.params.len(),
                encoder.params.len()
            ));
        }
        for ((name, shape, values), (expected, var)) in saved.params.iter().zip(&encoder.params) {
            if name != expected || shape.as_slice() != var.as_tensor().dims() {
                return Err(format!(
                    "saved parameter '{name}' {shape:?} where '{expected}' {:?} was expected",
                    var.as_tensor().dims()
                ));
            }
            if values.len() != shape.iter().product::<usize>() {
                return Err(format!(
                    "saved parameter '{name}' has the wrong number of values"
                ));
            }
            let t = Tensor::from_vec(values.clone(), shape.as_slice(), &Device::Cpu)
                .map_err(located("load"))?;
            var.set(&t).map_err(located("load"))?;
        }
        Ok(encoder)
    }
}
