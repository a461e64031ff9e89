//! Training the generator: teacher-forced next-word prediction of each knob's word after
//! the prefix and the knobs before it, a softmax over that knob's choices, each decision
//! weighted. Training data are the best records: per task and target, the fastest
//! [`TrainOptions::top_fraction`] of the distinct successful decisions, each weighted by
//! its speed relative to the group's best, so the generator learns what fast schedules
//! look like rather than what the search happened to try.

use std::collections::{BTreeMap, HashMap};

use candle_core::{D, Device, Tensor};
use candle_nn::optim::{AdamW, Optimizer, ParamsAdamW};
use tb_passes::schedule::Rng;

use super::Prompt;
use super::model::{Decoder, located};
use crate::database::{Record, Status};
use crate::space::TunableTask;

/// One training decision: the sentence's ids, where its knobs start, each knob's choices
/// and the choice taken, and its weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub ids: Vec<u32>,
    /// The prefix's length: knob `j`'s word is at `prefix + j`.
    pub prefix: usize,
    pub choices: Vec<Vec<(u32, u32)>>,
    pub decision: Vec<usize>,
    pub weight: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainOptions {
    pub epochs: usize,
    pub learning_rate: f64,
    /// Decisions per optimizer step.
    pub batch: usize,
    /// The fastest fraction of each group's distinct decisions trained on (at least one).
    pub top_fraction: f64,
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 30,
            learning_rate: 3e-3,
            batch: 32,
            top_fraction: 0.25,
            seed: 1,
        }
    }
}

/// What a training run did, for its log.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainLog {
    pub steps: usize,
    /// Mean loss of each epoch.
    pub epoch_loss: Vec<f64>,
}

/// Training decisions of `records`: per (task, target), the fastest `top_fraction` of the
/// distinct successful decisions (a decision measured twice keeps its faster latency),
/// weighted by `best / latency`. Records of tasks not in `tasks`, without a decision, or
/// that the task's space does not accept are left out. In a fixed order.
pub fn examples(tasks: &[TunableTask], records: &[Record], top_fraction: f64) -> Vec<Example> {
    let by_key: HashMap<&str, &TunableTask> =
        tasks.iter().map(|t| (t.task.key.as_str(), t)).collect();
    // Per (task key, target id): the target and each decision's fastest latency.
    type Group = (crate::TargetKey, HashMap<Vec<usize>, f64>);
    let mut groups: BTreeMap<(String, String), Group> = BTreeMap::new();
    for r in records {
        let (Status::Ok, Some(latency)) = (r.status, r.latency_s) else {
            continue;
        };
        let Some(task) = by_key.get(r.task_key.as_str()) else {
            continue;
        };
        if r.decision.is_empty() || task.space.validate(&r.decision).is_err() {
            continue;
        }
        let (_, fastest) = groups
            .entry((r.task_key.clone(), r.target.id()))
            .or_insert_with(|| (r.target.clone(), HashMap::new()));
        let entry = fastest.entry(r.decision.clone()).or_insert(latency);
        *entry = entry.min(latency);
    }
    let mut out = Vec::new();
    for ((key, _), (target, fastest)) in groups {
        let task = by_key[key.as_str()];
        let prompt = Prompt::new(task, &target);
        let mut ranked: Vec<(Vec<usize>, f64)> = fastest.into_iter().collect();
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        let keep = ((ranked.len() as f64 * top_fraction).ceil() as usize).clamp(1, ranked.len());
        let best = ranked[0].1;
        for (decision, latency) in ranked.into_iter().take(keep) {
            out.push(Example {
                ids: prompt.ids(&decision),
                prefix: prompt.prefix.len(),
                choices: prompt.choices.clone(),
                decision,
                weight: best / latency,
            });
        }
    }
    out
}

/// Trains `decoder` further on `examples`.
pub fn fit(
    decoder: &Decoder,
    examples: &[Example],
    options: &TrainOptions,
) -> Result<TrainLog, String> {
    let err = located("training");
    let mut log = TrainLog {
        steps: 0,
        epoch_loss: vec![],
    };
    if examples.is_empty() {
        return Ok(log);
    }
    let mut optimizer = AdamW::new(
        decoder.vars(),
        ParamsAdamW {
            lr: options.learning_rate,
            weight_decay: 1e-4,
            ..Default::default()
        },
    )
    .map_err(&err)?;
    let mut rng = Rng::seeded(options.seed ^ 0x7e57);
    let mut order: Vec<usize> = (0..examples.len()).collect();
    for _ in 0..options.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut total = 0.0;
        let mut steps = 0;
        for chunk in order.chunks(options.batch.max(1)) {
            let batch: Vec<&Example> = chunk.iter().map(|&i| &examples[i]).collect();
            let loss = batch_loss(decoder, &batch)?;
            total += f64::from(loss.to_scalar::<f32>().map_err(&err)?);
            optimizer.backward_step(&loss).map_err(&err)?;
            steps += 1;
        }
        log.steps += steps;
        log.epoch_loss.push(total / steps.max(1) as f64);
    }
    Ok(log)
}

/// The weighted mean negative log-likelihood of the batch's knob words.
fn batch_loss(decoder: &Decoder, batch: &[&Example]) -> Result<Tensor, String> {
    let err = located("training");
    let ids: Vec<Vec<u32>> = batch.iter().map(|e| e.ids.clone()).collect();
    let len = ids.iter().map(Vec::len).max().unwrap_or(1);
    let hidden = decoder.hidden(&ids)?;
    let dim = decoder.config.dim;
    // One row per (example, knob): the hidden state before the knob's word, its choices
    // (padded to the widest knob of the batch) as columns into the batch's distinct
    // words, and the choice taken. Each distinct word's vector is computed once.
    let width = batch
        .iter()
        .flat_map(|e| e.choices.iter().map(Vec::len))
        .max()
        .unwrap_or(1);
    let mut distinct: Vec<(u32, u32)> = Vec::new();
    let mut column: HashMap<(u32, u32), u32> = HashMap::new();
    let (mut rows, mut columns, mut pad, mut taken, mut weights) =
        (vec![], vec![], vec![], vec![], vec![]);
    for (b, e) in batch.iter().enumerate() {
        for (knob, (choices, &choice)) in e.choices.iter().zip(&e.decision).enumerate() {
            rows.push((b * len + e.prefix + knob - 1) as u32);
            for c in 0..width {
                match choices.get(c) {
                    Some(&word) => {
                        let next = distinct.len() as u32;
                        columns.push(*column.entry(word).or_insert_with(|| {
                            distinct.push(word);
                            next
                        }));
                        pad.push(0f32);
                    }
                    None => {
                        columns.push(0);
                        pad.push(-1e9);
                    }
                }
            }
            taken.push(choice as u32);
            weights.push(e.weight as f32);
        }
    }
    let n = rows.len();
    let dev = &Device::Cpu;
    let vectors = decoder.word_vectors(&distinct)?;
    (|| -> candle_core::Result<Tensor> {
        let states = hidden
            .reshape((batch.len() * len, dim))?
            .index_select(&Tensor::from_vec(rows, n, dev)?, 0)?;
        let logits = states
            .matmul(&vectors.t()?)?
            .gather(&Tensor::from_vec(columns, (n, width), dev)?, 1)?
            .broadcast_add(&Tensor::from_vec(pad, (n, width), dev)?)?;
        let log_probs = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        let picked = log_probs
            .gather(&Tensor::from_vec(taken, (n, 1), dev)?, 1)?
            .squeeze(1)?;
        let total: f32 = weights.iter().sum();
        let weights = Tensor::from_vec(weights, n, dev)?;
        (picked * weights)?.sum_all()?.neg()? / f64::from(total.max(1e-9))
    })()
    .map_err(err)
}
