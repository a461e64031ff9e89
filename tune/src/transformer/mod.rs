//! The attention cost model: a transformer encoder ([`model`]) over tensor sentences
//! ([`crate::sentence`]) with the hardware descriptor in every sentence, trained with a
//! ranking loss grouped by task and target ([`train`]). Because the hardware is part of the
//! input, one model learns from records of several devices and is fine-tuned on a few
//! records of a new one.

pub(crate) mod layers;
pub mod model;
pub mod train;

use std::collections::HashMap;

use tb_passes::schedule::Target;

pub use model::{Config, Encoder, MODEL_SCHEMA_VERSION};
pub use train::{Sample, TrainLog, TrainOptions, fit, train};

use crate::cost_model::{CostModel, FeatureCache};
use crate::database::{Record, Status};
use crate::search::candidate_features;
use crate::sentence::{Hardware, sentence, token_ids};
use crate::space::TunableTask;
use crate::target::TargetKey;

/// The hardware descriptor of a target; cache sizes are the schedule target's
/// ([`Target::host`]), which the passes use too.
pub fn hardware(target: &TargetKey) -> Hardware {
    Hardware::of(target, &Target::host())
}

/// The token ids of `decision` of `task` on `target`.
pub fn sentence_ids(task: &TunableTask, target: &TargetKey, decision: &[usize]) -> Vec<u32> {
    token_ids(&sentence(&task.space, &hardware(target), decision))
}

/// The loop features of `decision` of `task` as the encoder reads them, computed once per
/// decision in `cache`; `None` where the candidate does not lower.
pub fn candidate_row(
    task: &TunableTask,
    decision: &[usize],
    cache: &mut FeatureCache,
) -> Option<Vec<f32>> {
    cache
        .entry((task.task.key.clone(), decision.to_vec()))
        .or_insert_with(|| candidate_features(task, decision))
        .as_ref()
        .map(|f| f.iter().map(|&v| v as f32).collect())
}

/// Training sentences of `records`: one group per (task, target), labelled by speed
/// relative to the group's best (failed trials 0), as the tree ranker is. Records of
/// tasks not in `tasks`, without a decision, of a group with no successful record, or
/// whose candidate does not lower are left out. `tasks` are one device's (a task's key is
/// the same on every device, its space is not), so features are cached per call.
pub fn samples(tasks: &[TunableTask], records: &[Record]) -> Vec<Sample> {
    let mut cache = FeatureCache::new();
    let by_key: HashMap<&str, &TunableTask> =
        tasks.iter().map(|t| (t.task.key.as_str(), t)).collect();
    let mut groups: HashMap<(String, String), Vec<&Record>> = HashMap::new();
    for r in records.iter().filter(|r| !r.decision.is_empty()) {
        if by_key.contains_key(r.task_key.as_str()) {
            groups
                .entry((r.task_key.clone(), r.target.id()))
                .or_default()
                .push(r);
        }
    }
    let mut keys: Vec<&(String, String)> = groups.keys().collect();
    keys.sort();
    let mut out = Vec::new();
    for (g, key) in keys.into_iter().enumerate() {
        let members = &groups[key];
        let Some(best) = crate::database::fastest_latency(members.iter().copied()) else {
            continue;
        };
        let task = by_key[key.0.as_str()];
        for r in members {
            if task.space.validate(&r.decision).is_err() {
                continue;
            }
            let Some(features) = candidate_row(task, &r.decision, &mut cache) else {
                continue;
            };
            out.push(Sample {
                ids: sentence_ids(task, &r.target, &r.decision),
                features,
                label: match (r.status, r.latency_s) {
                    (Status::Ok, Some(l)) => best / l,
                    _ => 0.0,
                },
                group: g,
            });
        }
    }
    out
}

/// Training options the search uses when it retrains after every round: fewer epochs
/// than [`TrainOptions::default`], so a round's retraining takes seconds.
pub fn search_training() -> TrainOptions {
    TrainOptions {
        epochs: 15,
        ..TrainOptions::default()
    }
}

/// The transformer as a [`CostModel`].
pub struct TransformerRanker {
    pub encoder: Encoder,
}

impl TransformerRanker {
    /// A ranker trained on `records`; `None` with fewer than 8 sentences or on a training
    /// error (the search then keeps its previous model).
    pub fn train_on(
        tasks: &[TunableTask],
        records: &[Record],
        options: &TrainOptions,
    ) -> Option<TransformerRanker> {
        let samples = samples(tasks, records);
        if samples.len() < 8 {
            return None;
        }
        let (encoder, _) = train(&samples, Config::default(), options).ok()?;
        Some(TransformerRanker { encoder })
    }
}

impl CostModel for TransformerRanker {
    fn name(&self) -> &'static str {
        "transformer"
    }

    fn scores(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        decisions: &[Vec<usize>],
        cache: &mut FeatureCache,
    ) -> Vec<f64> {
        // Candidates that do not lower have no features and rank last, as with the tree.
        let rows: Vec<Option<Vec<f32>>> = decisions
            .iter()
            .map(|d| candidate_row(task, d, cache))
            .collect();
        let scorable: Vec<usize> = (0..decisions.len())
            .filter(|&i| rows[i].is_some())
            .collect();
        let ids: Vec<Vec<u32>> = scorable
            .iter()
            .map(|&i| sentence_ids(task, target, &decisions[i]))
            .collect();
        let features: Vec<Vec<f32>> = scorable.iter().filter_map(|&i| rows[i].clone()).collect();
        let mut out = vec![f64::NEG_INFINITY; decisions.len()];
        if let Ok(scores) = self.encoder.scores(&ids, &features) {
            for (&i, s) in scorable.iter().zip(scores) {
                out[i] = s;
            }
        }
        out
    }
}
