//! TLM-style schedule generation: a language model over tensor sentences that writes a
//! task's decision knob by knob ([`Generator`]). It reads the task's and the hardware's
//! words ([`words::prefix_words`]) and emits one word per knob; at each step only the
//! choices the space still allows after the knobs already written are offered
//! ([`Space::allowed_values`]), so every decision it completes is valid and no invalid
//! sentence is ever measured. Decisions are drawn by sampling with a temperature or by
//! beam search. It is trained on the database's records, on the fastest fraction of each
//! task's measured schedules, each weighted by its speed relative to the task's best
//! ([`train`]): the search then proposes from it, fine-tuning it as records arrive,
//! starting from a model pretrained on other tasks' records when one is given.

pub mod model;
pub mod train;
pub mod words;

use candle_core::Tensor;
use serde::{Deserialize, Serialize};
use tb_passes::schedule::Rng;

pub use model::{Config, Decoder, output_id};
pub use train::{Example, TrainLog, TrainOptions, examples};

use crate::cost_model::{CostModel, FeatureCache};
use crate::database::Record;
use crate::sentence::{TOKENIZER_VERSION, token_id};
use crate::space::{Space, TunableTask};
use crate::target::TargetKey;
use crate::transformer::hardware;
use model::located;

/// What a saved generator says it is.
const FORMAT: &str = "tb-tune schedule generator";

/// The layout of the saved parameters and the knob words; a model of another is refused.
pub const GENERATOR_SCHEMA_VERSION: u32 = 1;

/// The autoregressive schedule generator.
pub struct Generator {
    pub decoder: Decoder,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("config", &self.decoder.config)
            .finish_non_exhaustive()
    }
}

/// A saved generator: its versions, sizes and every parameter.
#[derive(Serialize, Deserialize)]
struct Saved {
    format: String,
    tokenizer_version: u32,
    generator_schema: u32,
    config: Config,
    params: Vec<model::SavedParam>,
}

/// A task on a target as the generator reads it: the prefix's ids and, per knob, the
/// `(token id, output id)` of each choice's word.
pub struct Prompt<'a> {
    pub space: &'a Space,
    pub prefix: Vec<u32>,
    pub choices: Vec<Vec<(u32, u32)>>,
}

impl<'a> Prompt<'a> {
    pub fn new(task: &'a TunableTask, target: &TargetKey) -> Prompt<'a> {
        let space = &task.space;
        let prefix = words::prefix_words(space, &hardware(target))
            .iter()
            .map(|w| token_id(w))
            .collect();
        let choices = words::knob_words(space)
            .iter()
            .map(|knob| knob.iter().map(|w| (token_id(w), output_id(w))).collect())
            .collect();
        Prompt {
            space,
            prefix,
            choices,
        }
    }

    /// The ids of the prefix followed by the words of `decision`'s knobs (all or some).
    pub fn ids(&self, decision: &[usize]) -> Vec<u32> {
        let mut ids = self.prefix.clone();
        ids.extend(decision.iter().zip(&self.choices).map(|(&c, w)| w[c].0));
        ids
    }
}

impl Generator {
    /// A fresh (untrained) generator with parameters drawn from `seed`: it offers every
    /// allowed choice with about the same probability.
    pub fn new(config: Config, seed: u64) -> Result<Generator, String> {
        Ok(Generator {
            decoder: Decoder::new(config, seed)?,
        })
    }

    /// An independent copy, for fine-tuning without changing this one.
    pub fn duplicate(&self) -> Result<Generator, String> {
        Ok(Generator {
            decoder: self.decoder.duplicate()?,
        })
    }

    /// Logits of knob `partials[i].len()`'s choices after each partial decision (all of
    /// one length) of `prompt`'s task.
    fn next_logits(
        &self,
        prompt: &Prompt,
        partials: &[Vec<usize>],
    ) -> Result<Vec<Vec<f32>>, String> {
        let Some(first) = partials.first() else {
            return Ok(vec![]);
        };
        let knob = first.len();
        let ids: Vec<Vec<u32>> = partials.iter().map(|p| prompt.ids(p)).collect();
        let len = ids[0].len();
        let err = located("generation");
        let hidden = self.decoder.hidden(&ids)?;
        let last = hidden
            .narrow(1, len - 1, 1)
            .and_then(|h| h.squeeze(1))
            .map_err(&err)?;
        let vectors = self.decoder.word_vectors(&prompt.choices[knob])?;
        last.matmul(&vectors.t().map_err(&err)?)
            .and_then(|l| l.to_vec2::<f32>())
            .map_err(&err)
    }

    /// Log-probabilities of knob `partials[i].len()`'s choices after each partial
    /// decision, over the choices the space allows there (the others `-inf`), at
    /// `temperature`.
    fn next_log_probs(
        &self,
        prompt: &Prompt,
        partials: &[Vec<usize>],
        temperature: f64,
    ) -> Result<Vec<Vec<f64>>, String> {
        let logits = self.next_logits(prompt, partials)?;
        Ok(partials
            .iter()
            .zip(logits)
            .map(|(p, l)| {
                let mut out = vec![f64::NEG_INFINITY; l.len()];
                let allowed = prompt.space.allowed_values(p);
                let scaled: Vec<f64> = allowed
                    .iter()
                    .map(|&c| f64::from(l[c]) / temperature.max(1e-6))
                    .collect();
                let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let total: f64 = scaled.iter().map(|s| (s - max).exp()).sum();
                for (&c, s) in allowed.iter().zip(&scaled) {
                    out[c] = s - max - total.ln();
                }
                out
            })
            .collect())
    }

    /// `count` decisions of `task` on `target`, each knob drawn from the model's
    /// distribution at `temperature` (1: as learned; lower: closer to the most likely)
    /// among the choices still allowed. Every decision validates. Empty for a space
    /// without knobs or without a valid decision.
    pub fn sample(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        count: usize,
        temperature: f64,
        rng: &mut Rng,
    ) -> Result<Vec<Vec<usize>>, String> {
        let prompt = Prompt::new(task, target);
        let knobs = prompt.choices.len();
        if knobs == 0 || task.space.allowed_values(&[]).is_empty() {
            return Ok(vec![]);
        }
        let mut partials = vec![Vec::with_capacity(knobs); count];
        for _ in 0..knobs {
            let log_probs = self.next_log_probs(&prompt, &partials, temperature)?;
            for (p, lp) in partials.iter_mut().zip(log_probs) {
                p.push(draw(&lp, rng));
            }
        }
        Ok(partials)
    }

    /// The `width` most likely decisions of `task` on `target` that beam search finds,
    /// most likely first, with their log-probabilities.
    pub fn beam(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        width: usize,
    ) -> Result<Vec<(Vec<usize>, f64)>, String> {
        let prompt = Prompt::new(task, target);
        let knobs = prompt.choices.len();
        if knobs == 0 || width == 0 {
            return Ok(vec![]);
        }
        let mut beams: Vec<(Vec<usize>, f64)> = vec![(vec![], 0.0)];
        for _ in 0..knobs {
            let partials: Vec<Vec<usize>> = beams.iter().map(|b| b.0.clone()).collect();
            let log_probs = self.next_log_probs(&prompt, &partials, 1.0)?;
            let mut next: Vec<(Vec<usize>, f64)> = Vec::new();
            for ((p, score), lp) in beams.iter().zip(log_probs) {
                for (c, l) in lp.iter().enumerate().filter(|(_, l)| l.is_finite()) {
                    let mut d = p.clone();
                    d.push(c);
                    next.push((d, score + l));
                }
            }
            next.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            next.truncate(width);
            beams = next;
        }
        Ok(beams)
    }

    /// The log-likelihood of each complete decision of `task` on `target`, each knob's
    /// probability taken over all of the knob's choices (as in training).
    pub fn log_likelihoods(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        decisions: &[Vec<usize>],
    ) -> Result<Vec<f64>, String> {
        let prompt = Prompt::new(task, target);
        let knobs = prompt.choices.len();
        if decisions.is_empty() {
            return Ok(vec![]);
        }
        if let Some(d) = decisions.iter().find(|d| d.len() != knobs) {
            return Err(format!(
                "a decision of {} knobs for a space of {knobs}",
                d.len()
            ));
        }
        let err = located("scoring");
        let ids: Vec<Vec<u32>> = decisions.iter().map(|d| prompt.ids(d)).collect();
        let hidden = self.decoder.hidden(&ids)?;
        let mut out = vec![0.0; decisions.len()];
        let start = prompt.prefix.len() - 1;
        for knob in 0..knobs {
            let h = hidden
                .narrow(1, start + knob, 1)
                .and_then(|h| h.squeeze(1))
                .map_err(&err)?;
            let vectors = self.decoder.word_vectors(&prompt.choices[knob])?;
            let lp = candle_nn::ops::log_softmax(
                &h.matmul(&vectors.t().map_err(&err)?).map_err(&err)?,
                candle_core::D::Minus1,
            )
            .and_then(|t: Tensor| t.to_vec2::<f32>())
            .map_err(&err)?;
            for (o, (d, row)) in out.iter_mut().zip(decisions.iter().zip(lp)) {
                *o += f64::from(row[d[knob]]);
            }
        }
        Ok(out)
    }

    /// Trains the generator further on `examples` (from [`examples`]): pretraining, then
    /// fine-tuning as a search's records arrive.
    pub fn fit(&self, examples: &[Example], options: &TrainOptions) -> Result<TrainLog, String> {
        train::fit(&self.decoder, examples, options)
    }

    /// The model as JSON, with its tokenizer and layout versions.
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string(&Saved {
            format: FORMAT.into(),
            tokenizer_version: TOKENIZER_VERSION,
            generator_schema: GENERATOR_SCHEMA_VERSION,
            config: self.decoder.config,
            params: self.decoder.values()?,
        })
        .map_err(|e| format!("schedule generator save: {e}"))
    }

    /// A saved generator, refused unless its format, tokenizer version, layout version
    /// and every parameter's shape match this build's.
    pub fn from_json(text: &str) -> Result<Generator, String> {
        let saved: Saved = serde_json::from_str(text)
            .map_err(|e| format!("not a saved schedule generator: {e}"))?;
        if saved.format != FORMAT {
            return Err(format!(
                "not a saved schedule generator (format '{}')",
                saved.format
            ));
        }
        if saved.tokenizer_version != TOKENIZER_VERSION {
            return Err(format!(
                "the generator was trained on tokenizer version {}, this build writes version {TOKENIZER_VERSION}",
                saved.tokenizer_version
            ));
        }
        if saved.generator_schema != GENERATOR_SCHEMA_VERSION {
            return Err(format!(
                "the generator has layout {}, this build reads layout {GENERATOR_SCHEMA_VERSION}",
                saved.generator_schema
            ));
        }
        Ok(Generator {
            decoder: Decoder::with_values(saved.config, &saved.params)?,
        })
    }
}

/// A choice drawn from log-probabilities (`-inf`: never).
fn draw(log_probs: &[f64], rng: &mut Rng) -> usize {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut left = u;
    let mut last = 0;
    for (c, lp) in log_probs.iter().enumerate().filter(|(_, l)| l.is_finite()) {
        last = c;
        left -= lp.exp();
        if left <= 0.0 {
            return c;
        }
    }
    // Rounding left a sliver: the last allowed choice.
    last
}

impl Generator {
    /// A fresh generator (seeded by `options.seed`) trained on the best of `records`;
    /// `None` without a successful decision to learn from or on a training error.
    pub fn train_on(
        tasks: &[TunableTask],
        records: &[Record],
        options: &TrainOptions,
    ) -> Option<Generator> {
        let examples = examples(tasks, records, options.top_fraction);
        if examples.is_empty() {
            return None;
        }
        let generator = Generator::new(Config::default(), options.seed).ok()?;
        generator.fit(&examples, options).ok()?;
        Some(generator)
    }
}

/// Training options of the search's fine-tuning after every round: a few epochs over the
/// best records so far, so a round's update takes a fraction of a second.
pub fn search_training(seed: u64) -> TrainOptions {
    TrainOptions {
        epochs: 8,
        seed,
        ..TrainOptions::default()
    }
}

/// The generator as a [`CostModel`]: a decision's score is its log-likelihood.
impl CostModel for Generator {
    fn name(&self) -> &'static str {
        "tlm"
    }

    fn scores(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        decisions: &[Vec<usize>],
        _cache: &mut FeatureCache,
    ) -> Vec<f64> {
        self.log_likelihoods(task, target, decisions)
            .unwrap_or_else(|_| vec![f64::NEG_INFINITY; decisions.len()])
    }
}
