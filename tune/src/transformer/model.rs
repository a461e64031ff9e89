//! A small transformer encoder over tensor sentences ([`crate::sentence`]), scoring each
//! sentence with one number (higher: faster). Pre-norm encoder layers (multi-head
//! self-attention over the words, a ReLU feed-forward block, residual connections), learned
//! word and position embeddings, a final layer norm, the mean over the words and a linear
//! read-out. Every parameter is a `candle` variable of our own, initialized from a seeded
//! generator (candle's CPU generator cannot be seeded), so training is reproducible.
//!
//! Beside the words, the encoder reads the candidate's loop features ([`crate::features`],
//! the tree ranker's input) as further tokens, in the way ATFormer reads a program's
//! statement features: the features are standardized (mean and deviation of the training
//! candidates, saved with the model), cut into groups of [`Config::feature_group`], and
//! each group is mapped to a token by a projection of its own (linear, or through a ReLU
//! layer of [`Config::feature_hidden`] units). Attention then relates what the code does
//! (features) to how it was scheduled and where it runs (words). Without feature tokens the
//! encoder had to infer the scheduled program from the knob words alone and ranked
//! held-out tasks well below the tree; the default, one token through a hidden layer, was
//! the best of the groupings tried (README, "Measured across devices").

use candle_core::{Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use super::layers::{Init, initial_parameters, layer_norm, layer_parameters, pre_norm_layer};
use crate::features::{FEATURE_COUNT, FEATURE_SCHEMA_VERSION};
use crate::sentence::{PAD, TOKENIZER_VERSION, VOCABULARY};

/// What a saved model says it is.
const FORMAT: &str = "tb-tune transformer ranker";

/// The layout of the saved parameters; a model of another layout is refused.
pub const MODEL_SCHEMA_VERSION: u32 = 2;

/// A standardized feature is clipped to this many standard deviations, so a task unlike
/// the training tasks cannot push a token far outside what training saw.
const FEATURE_CLIP: f32 = 5.0;

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
    /// Loop features read per candidate (0: words only).
    pub features: usize,
    /// Features per feature token (the last token's group may be short; it is padded
    /// with zeros).
    pub feature_group: usize,
    /// Hidden width of the feature tokens' projection (0: a linear projection).
    pub feature_hidden: usize,
}

impl Config {
    /// Feature tokens per candidate.
    pub fn feature_tokens(&self) -> usize {
        self.features.div_ceil(self.feature_group.max(1))
    }
}

impl Default for Config {
    fn default() -> Self {
        // Chosen on held-out tasks of the cross-device data set (README, "Measured across
        // devices"): one feature token through a hidden layer, width 64.
        Config {
            dim: 64,
            heads: 4,
            layers: 2,
            hidden: 64,
            max_len: 96,
            features: FEATURE_COUNT,
            feature_group: FEATURE_COUNT,
            feature_hidden: 64,
        }
    }
}

/// The parameters of an encoder of `config`, in order, with their shapes and how each
/// starts.
fn parameter_shapes(config: &Config) -> Vec<(String, Vec<usize>, Init)> {
    let (d, h) = (config.dim, config.hidden);
    let mut shapes: Vec<(String, Vec<usize>, Init)> = vec![
        ("embed".into(), vec![VOCABULARY, d], Init::Uniform(0.1)),
        (
            "position".into(),
            vec![config.max_len, d],
            Init::Uniform(0.1),
        ),
    ];
    if config.features > 0 {
        let (tokens, group) = (config.feature_tokens(), config.feature_group.max(1));
        let first = if config.feature_hidden > 0 {
            config.feature_hidden
        } else {
            d
        };
        shapes.extend([
            (
                "feature.project".into(),
                vec![tokens, group, first],
                Init::Uniform(1.0 / (group as f64).sqrt()),
            ),
            (
                "feature.bias".into(),
                vec![tokens, 1, first],
                Init::Uniform(0.1),
            ),
        ]);
        if config.feature_hidden > 0 {
            shapes.extend([
                (
                    "feature.project2".into(),
                    vec![tokens, first, d],
                    Init::Uniform(1.0 / (first as f64).sqrt()),
                ),
                ("feature.bias2".into(), vec![tokens, 1, d], Init::Zeros),
            ]);
        }
    }
    for l in 0..config.layers {
        shapes.extend(layer_parameters(l, d, h));
    }
    shapes.extend([
        ("final.gain".into(), vec![d], Init::Ones),
        ("final.bias".into(), vec![d], Init::Zeros),
        ("readout".into(), vec![d, 1], Init::FanIn),
        ("readout.bias".into(), vec![1], Init::Zeros),
    ]);
    shapes
}

/// The encoder and its parameters (named, in a fixed order).
pub struct Encoder {
    pub config: Config,
    params: Vec<(String, Var)>,
    /// Mean and standard deviation of each feature over the training candidates (fixed
    /// by [`Encoder::standardize_on`], kept through fine-tuning).
    feature_mean: Vec<f32>,
    feature_std: Vec<f32>,
}

/// A saved encoder: its versions, sizes and every parameter's shape and values.
#[derive(Serialize, Deserialize)]
struct Saved {
    format: String,
    tokenizer_version: u32,
    model_schema: u32,
    /// The loop features' layout ([`FEATURE_SCHEMA_VERSION`]) the feature token was
    /// trained on.
    feature_schema: u32,
    config: Config,
    feature_mean: Vec<f32>,
    feature_std: Vec<f32>,
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
        let params = initial_parameters(parameter_shapes(&config), seed, &located("init"))?;
        Ok(Encoder {
            config,
            params,
            feature_mean: vec![0.0; config.features],
            feature_std: vec![1.0; config.features],
        })
    }

    /// Fixes the features' standardization to their mean and deviation over `rows`
    /// (a fresh model's training candidates).
    pub fn standardize_on<'a>(&mut self, rows: impl Iterator<Item = &'a [f32]>) {
        let k = self.config.features;
        let (mut sum, mut square, mut n) = (vec![0f64; k], vec![0f64; k], 0usize);
        for row in rows {
            for (j, &v) in row.iter().take(k).enumerate() {
                sum[j] += f64::from(v);
                square[j] += f64::from(v) * f64::from(v);
            }
            n += 1;
        }
        if n == 0 {
            return;
        }
        for j in 0..k {
            let mean = sum[j] / n as f64;
            let variance = (square[j] / n as f64 - mean * mean).max(0.0);
            self.feature_mean[j] = mean as f32;
            // A constant feature stays at 0 instead of dividing by nothing.
            self.feature_std[j] = if variance > 1e-12 {
                variance.sqrt() as f32
            } else {
                1.0
            };
        }
    }

    /// The feature tokens' input, `[n, tokens, group]`: standardized, clipped, and zero
    /// where a row is short or a group is not full.
    fn feature_input(&self, features: &[Vec<f32>]) -> Vec<f32> {
        let (tokens, group) = (
            self.config.feature_tokens(),
            self.config.feature_group.max(1),
        );
        let mut out = vec![0f32; features.len() * tokens * group];
        for (i, row) in features.iter().enumerate() {
            for (j, &v) in row.iter().take(self.config.features).enumerate() {
                let z = (v - self.feature_mean[j]) / self.feature_std[j];
                out[i * tokens * group + j] = if z.is_finite() {
                    z.clamp(-FEATURE_CLIP, FEATURE_CLIP)
                } else {
                    0.0
                };
            }
        }
        out
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

    /// Scores of a batch of sentences (token ids) with their candidates' loop features
    /// (one row per sentence; ignored by a model that reads none), as a `[batch]` tensor.
    pub fn forward(&self, sentences: &[Vec<u32>], features: &[Vec<f32>]) -> Result<Tensor, String> {
        let err = located("forward");
        let n = sentences.len();
        if self.config.features > 0 && features.len() != n {
            return Err(format!(
                "transformer forward: {n} sentences but {} feature rows",
                features.len()
            ));
        }
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
        let mut mask = mask;
        if self.config.features > 0 {
            let (tokens, group) = (
                self.config.feature_tokens(),
                self.config.feature_group.max(1),
            );
            let feature_words = (|| -> candle_core::Result<Tensor> {
                // [n, tokens, group] -> [tokens, n, group] @ [tokens, group, d] -> [n, tokens, d]
                let mut h =
                    Tensor::from_vec(self.feature_input(features), (n, tokens, group), dev)?
                        .transpose(0, 1)?
                        .contiguous()?
                        .matmul(self.param("feature.project"))?
                        .broadcast_add(self.param("feature.bias"))?;
                if self.config.feature_hidden > 0 {
                    h = h
                        .relu()?
                        .matmul(self.param("feature.project2"))?
                        .broadcast_add(self.param("feature.bias2"))?;
                }
                h.transpose(0, 1)
            })()
            .map_err(&err)?;
            x = Tensor::cat(&[&feature_words, &x], 1).map_err(&err)?;
            mask = Tensor::ones((n, tokens), candle_core::DType::F32, dev)
                .and_then(|ones| Tensor::cat(&[&ones, &mask], 1))
                .map_err(&err)?;
        }
        let len = x.dim(1).map_err(&err)?;
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

    /// Scores of sentences (with their feature rows, as [`Encoder::forward`] takes them)
    /// as numbers, in batches of 256.
    pub fn scores(
        &self,
        sentences: &[Vec<u32>],
        features: &[Vec<f32>],
    ) -> Result<Vec<f64>, String> {
        let mut out = Vec::with_capacity(sentences.len());
        for (i, chunk) in sentences.chunks(256).enumerate() {
            let rows = features.get(i * 256..(i * 256 + chunk.len()).min(features.len()));
            let s = self
                .forward(chunk, rows.unwrap_or(&[]))?
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
            feature_schema: FEATURE_SCHEMA_VERSION,
            config: self.config,
            feature_mean: self.feature_mean.clone(),
            feature_std: self.feature_std.clone(),
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
        if saved.feature_schema != FEATURE_SCHEMA_VERSION {
            return Err(format!(
                "the transformer was trained on feature schema {}, this build computes schema {FEATURE_SCHEMA_VERSION}",
                saved.feature_schema
            ));
        }
        if saved.feature_mean.len() != saved.config.features
            || saved.feature_std.len() != saved.config.features
            || saved
                .feature_std
                .iter()
                .any(|s| !(*s > 0.0 && s.is_finite()))
        {
            return Err(format!(
                "the saved transformer's feature standardization does not fit its {} features",
                saved.config.features
            ));
        }
        // Every parameter is checked against the config before anything is allocated, so
        // a config that claims huge sizes without the values to match is refused cheaply.
        let expected = parameter_shapes(&saved.config);
        if saved.params.len() != expected.len() {
            return Err(format!(
                "the saved transformer has {} parameters, its config needs {}",
                saved.params.len(),
                expected.len()
            ));
        }
        for ((name, shape, values), (want, want_shape, _)) in saved.params.iter().zip(&expected) {
            if name != want || shape != want_shape {
                return Err(format!(
                    "saved parameter '{name}' {shape:?} where '{want}' {want_shape:?} was expected"
                ));
            }
            let count = shape.iter().try_fold(1usize, |n, &k| n.checked_mul(k));
            if count != Some(values.len()) {
                return Err(format!(
                    "saved parameter '{name}' has the wrong number of values"
                ));
            }
        }
        let mut encoder = Encoder::new(saved.config, 0)?;
        encoder.feature_mean = saved.feature_mean;
        encoder.feature_std = saved.feature_std;
        for ((_, shape, values), (_, var)) in saved.params.iter().zip(&encoder.params) {
            let t = Tensor::from_vec(values.clone(), shape.as_slice(), &Device::Cpu)
                .map_err(located("load"))?;
            var.set(&t).map_err(located("load"))?;
        }
        Ok(encoder)
    }
}
