//! Training the encoder with a pairwise ranking loss within groups (a group: one task on
//! one target). For every sampled pair of a group whose labels differ, the loss is
//! `softplus(score_worse - score_better)` weighted by the label gap (RankNet with
//! LambdaRank-style gap weights), so only the order within a group is learned: latencies of
//! different tasks or devices are never compared.

use candle_core::{Device, Tensor};
use candle_nn::optim::{AdamW, Optimizer, ParamsAdamW};
use tb_passes::schedule::Rng;

use super::model::{Config, Encoder};

/// One training sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub ids: Vec<u32>,
    /// The candidate's loop features ([`crate::features::features`]).
    pub features: Vec<f32>,
    /// Higher is better (the tuner uses best latency / latency; 0 for a failed trial).
    pub label: f64,
    pub group: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainOptions {
    pub epochs: usize,
    pub learning_rate: f64,
    /// Groups per optimizer step.
    pub groups_per_step: usize,
    /// At most this many sentences of a group go into one step (sampled).
    pub group_size: usize,
    /// Pairs sampled per sentence of a step.
    pub pairs_per_sample: usize,
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 30,
            learning_rate: 3e-3,
            groups_per_step: 4,
            group_size: 48,
            pairs_per_sample: 4,
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

/// A fresh encoder trained on `samples`.
pub fn train(
    samples: &[Sample],
    config: Config,
    options: &TrainOptions,
) -> Result<(Encoder, TrainLog), String> {
    let mut encoder = Encoder::new(config, options.seed)?;
    encoder.standardize_on(samples.iter().map(|s| s.features.as_slice()));
    let log = fit(&encoder, samples, options)?;
    Ok((encoder, log))
}

/// Trains `encoder` further on `samples` (pretraining, then fine-tuning on a new device).
pub fn fit(
    encoder: &Encoder,
    samples: &[Sample],
    options: &TrainOptions,
) -> Result<TrainLog, String> {
    let err = |e: candle_core::Error| format!("transformer training: {e}");
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, s) in samples.iter().enumerate() {
        groups.entry(s.group).or_default().push(i);
    }
    // Only groups with two different labels teach an order.
    let groups: Vec<Vec<usize>> = groups
        .into_values()
        .filter(|g| g.iter().any(|&i| samples[i].label != samples[g[0]].label))
        .collect();
    let mut log = TrainLog {
        steps: 0,
        epoch_loss: vec![],
    };
    if groups.is_empty() {
        return Ok(log);
    }
    let mut optimizer = AdamW::new(
        encoder.vars(),
        ParamsAdamW {
            lr: options.learning_rate,
            weight_decay: 1e-4,
            ..Default::default()
        },
    )
    .map_err(err)?;
    let mut rng = Rng::seeded(options.seed ^ 0x5eed);
    let mut order: Vec<usize> = (0..groups.len()).collect();
    for _ in 0..options.epochs {
        shuffle(&mut order, &mut rng);
        let mut total = 0.0;
        let mut steps = 0;
        for chunk in order.chunks(options.groups_per_step.max(1)) {
            let mut batch: Vec<usize> = Vec::new();
            let mut better = Vec::new();
            let mut worse = Vec::new();
            let mut gaps = Vec::new();
            for &g in chunk {
                let mut members = groups[g].clone();
                shuffle(&mut members, &mut rng);
                members.truncate(options.group_size.max(2));
                let base = batch.len();
                batch.extend(&members);
                for a in 0..members.len() {
                    for _ in 0..options.pairs_per_sample {
                        let b = rng.below(members.len());
                        let (la, lb) = (samples[members[a]].label, samples[members[b]].label);
                        if la == lb {
                            continue;
                        }
                        let (hi, lo) = if la > lb { (a, b) } else { (b, a) };
                        better.push((base + hi) as u32);
                        worse.push((base + lo) as u32);
                        gaps.push((la - lb).abs() as f32);
                    }
                }
            }
            if better.is_empty() {
                continue;
            }
            let ids: Vec<Vec<u32>> = batch.iter().map(|&i| samples[i].ids.clone()).collect();
            let features: Vec<Vec<f32>> =
                batch.iter().map(|&i| samples[i].features.clone()).collect();
            let scores = encoder.forward(&ids, &features)?;
            let dev = &Device::Cpu;
            let pairs = better.len();
            let loss = (|| -> candle_core::Result<Tensor> {
                let hi = scores.index_select(&Tensor::from_vec(better, pairs, dev)?, 0)?;
                let lo = scores.index_select(&Tensor::from_vec(worse, pairs, dev)?, 0)?;
                let gap = Tensor::from_vec(gaps, pairs, dev)?;
                let margin = (lo - hi)?;
                // softplus(x) = max(x, 0) + log(1 + exp(-|x|)), stable for large |x|.
                let softplus = (margin.relu()? + (margin.abs()?.neg()?.exp()? + 1.0)?.log()?)?;
                let total = gap_sum(&gap)?;
                (softplus * gap)?.sum_all()? / total
            })()
            .map_err(err)?;
            total += f64::from(loss.to_scalar::<f32>().map_err(err)?);
            optimizer.backward_step(&loss).map_err(err)?;
            steps += 1;
        }
        log.steps += steps;
        log.epoch_loss.push(total / steps.max(1) as f64);
    }
    Ok(log)
}

fn gap_sum(gap: &Tensor) -> candle_core::Result<f64> {
    Ok(f64::from(gap.sum_all()?.to_scalar::<f32>()?).max(1e-9))
}

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}
