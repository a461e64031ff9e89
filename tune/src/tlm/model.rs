//! The generator's network: a small causal transformer decoder over tensor sentences.
//! Pre-norm layers (masked multi-head self-attention, so a word sees only the words before
//! it, and a ReLU feed-forward block, with residual connections), learned word and
//! position embeddings and a final layer norm. The hidden state after a word predicts the
//! next word: a candidate word's logit is the dot product of that state with the word's
//! output vector, the sum of its input embedding (tied) and a second embedding looked up
//! by another hash of the word ([`output_id`]), so two words that share a tokenizer id
//! still get different logits. Parameters are `candle` variables drawn from a seeded
//! generator, so training is reproducible.

use candle_core::{Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use crate::sentence::{PAD, RESERVED, VOCABULARY, token_id};
use crate::transformer::layers::{
    Init, initial_parameters, layer_norm, layer_parameters, pre_norm_layer,
};

/// The decoder's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Width of the word vectors.
    pub dim: usize,
    pub heads: usize,
    pub layers: usize,
    /// Width of the feed-forward block.
    pub hidden: usize,
    /// Longest sentence the position table covers.
    pub max_len: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dim: 32,
            heads: 4,
            layers: 2,
            hidden: 64,
            max_len: 64,
        }
    }
}

/// The id of a word's second output vector: the tokenizer's hash of the word behind a
/// prefix no word starts with, an independent bucket of the same vocabulary.
pub fn output_id(word: &str) -> u32 {
    token_id(&format!("\u{1}{word}"))
}

/// A parameter as saved: its name, shape and values.
pub type SavedParam = (String, Vec<usize>, Vec<f32>);

/// The decoder and its parameters (named, in a fixed order).
pub struct Decoder {
    pub config: Config,
    params: Vec<(String, Var)>,
}

pub(crate) fn located(what: &str) -> impl Fn(candle_core::Error) -> String + '_ {
    move |e| format!("schedule generator {what}: {e}")
}

impl Decoder {
    /// A fresh decoder with parameters drawn from `seed`.
    pub fn new(config: Config, seed: u64) -> Result<Decoder, String> {
        if config.dim == 0 || config.heads == 0 || !config.dim.is_multiple_of(config.heads) {
            return Err(format!(
                "schedule generator: dim {} is not a positive multiple of heads {}",
                config.dim, config.heads
            ));
        }
        if config.max_len < 2 {
            return Err("schedule generator: max_len must be at least 2".into());
        }
        let (d, h) = (config.dim, config.hidden);
        let mut shapes: Vec<(String, Vec<usize>, Init)> = vec![
            ("embed".into(), vec![VOCABULARY, d], Init::Uniform(0.1)),
            ("output".into(), vec![VOCABULARY, d], Init::Uniform(0.1)),
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
        ]);
        let params = initial_parameters(shapes, seed, &located("init"))?;
        Ok(Decoder { config, params })
    }

    /// The trainable parameters.
    pub fn vars(&self) -> Vec<Var> {
        self.params.iter().map(|(_, v)| v.clone()).collect()
    }

    /// Every parameter's name, shape and values, in order (what a saved model holds).
    pub fn values(&self) -> Result<Vec<SavedParam>, String> {
        self.params
            .iter()
            .map(|(name, var)| {
                let t = var.as_tensor();
                let values = t
                    .flatten_all()
                    .and_then(|f| f.to_vec1::<f32>())
                    .map_err(located("save"))?;
                Ok((name.clone(), t.dims().to_vec(), values))
            })
            .collect()
    }

    /// A decoder of `config` holding `values` (from [`Decoder::values`]), refused unless
    /// every parameter's name and shape match.
    pub fn with_values(config: Config, values: &[SavedParam]) -> Result<Decoder, String> {
        let decoder = Decoder::new(config, 0)?;
        if values.len() != decoder.params.len() {
            return Err(format!(
                "the saved generator has {} parameters, its config needs {}",
                values.len(),
                decoder.params.len()
            ));
        }
        for ((name, shape, v), (expected, var)) in values.iter().zip(&decoder.params) {
            if name != expected || shape.as_slice() != var.as_tensor().dims() {
                return Err(format!(
                    "saved parameter '{name}' {shape:?} where '{expected}' {:?} was expected",
                    var.as_tensor().dims()
                ));
            }
            if v.len() != shape.iter().product::<usize>() {
                return Err(format!(
                    "saved parameter '{name}' has the wrong number of values"
                ));
            }
            let t = Tensor::from_vec(v.clone(), shape.as_slice(), &Device::Cpu)
                .map_err(located("load"))?;
            var.set(&t).map_err(located("load"))?;
        }
        Ok(decoder)
    }

    /// An independent copy (fine-tuning the copy leaves this one as it is).
    pub fn duplicate(&self) -> Result<Decoder, String> {
        Decoder::with_values(self.config, &self.values()?)
    }

    fn param(&self, name: &str) -> &Tensor {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_tensor())
            .expect("every parameter name the forward pass uses is created by Decoder::new")
    }

    /// Hidden states of a batch of sentences (token ids, padded on the right), as a
    /// `[batch, len, dim]` tensor: position `i` has seen words `0..=i` only. Sentences
    /// longer than `max_len` are refused.
    pub fn hidden(&self, sentences: &[Vec<u32>]) -> Result<Tensor, String> {
        let err = located("forward");
        let n = sentences.len();
        let len = sentences.iter().map(Vec::len).max().unwrap_or(0).max(1);
        if len > self.config.max_len {
            return Err(format!(
                "schedule generator: a sentence of {len} words is longer than the {} the model reads",
                self.config.max_len
            ));
        }
        let (d, heads) = (self.config.dim, self.config.heads);
        let mut ids = Vec::with_capacity(n * len);
        let mut keep = Vec::with_capacity(n * len);
        for s in sentences {
            for i in 0..len {
                let id = s.get(i).copied().unwrap_or(PAD);
                ids.push(id.min(VOCABULARY as u32 - 1));
                keep.push(if id == PAD { 0f32 } else { 1f32 });
            }
        }
        // Key j is visible from query i when j <= i and j is a word.
        let mut bias = Vec::with_capacity(n * len * len);
        for b in 0..n {
            for i in 0..len {
                for j in 0..len {
                    let visible = j <= i && keep[b * len + j] > 0.0;
                    bias.push(if visible { 0f32 } else { -1e9 });
                }
            }
        }
        let dev = &Device::Cpu;
        let ids = Tensor::from_vec(ids, n * len, dev).map_err(&err)?;
        let bias = Tensor::from_vec(bias, (n, 1, len, len), dev).map_err(&err)?;
        let words = self.param("embed").index_select(&ids, 0).map_err(&err)?;
        let positions = self.param("position").narrow(0, 0, len).map_err(&err)?;
        let mut x = words
            .reshape((n, len, d))
            .and_then(|w| w.broadcast_add(&positions))
            .map_err(&err)?;
        for l in 0..self.config.layers {
            let p = |name: &str| self.param(&format!("layer{l}.{name}"));
            x = pre_norm_layer(&x, &bias, heads, &p).map_err(&err)?;
        }
        layer_norm(&x, self.param("final.gain"), self.param("final.bias")).map_err(&err)
    }

    /// Output vectors of words given as `(token id, output id)` pairs: `[count, dim]`.
    pub fn word_vectors(&self, words: &[(u32, u32)]) -> Result<Tensor, String> {
        let err = located("output");
        let dev = &Device::Cpu;
        let clamp = |id: u32| id.clamp(RESERVED as u32, VOCABULARY as u32 - 1);
        let ids: Vec<u32> = words.iter().map(|w| clamp(w.0)).collect();
        let out: Vec<u32> = words.iter().map(|w| clamp(w.1)).collect();
        let ids = Tensor::from_vec(ids, words.len(), dev).map_err(&err)?;
        let out = Tensor::from_vec(out, words.len(), dev).map_err(&err)?;
        let tied = self.param("embed").index_select(&ids, 0).map_err(&err)?;
        let second = self.param("output").index_select(&out, 0).map_err(&err)?;
        (tied + second).map_err(&err)
    }
}
