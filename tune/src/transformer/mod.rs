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

/// Training sentences of `records`: one group per (task, target), labelled by speed
/// relative to the group's best (failed trials 0), as the tree ranker is. Records of
/// tasks not in `tasks`, without a decision, or of a group with no successful record are
/// left out.
pub fn samples(tasks: &[TunableTask], records: &[Record]) -> Vec<Sample> {
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
            out.push(Sample {
                ids: sentence_ids(task, &r.target, &r.decision),
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
        _cache: &mut FeatureCache,
    ) -> Vec<f64> {
        let ids: Vec<Vec<u32>> = decisions
            .iter()
            .map(|d| sentence_ids(task, target, d))
            .collect();
        self.encoder
            .scores(&ids)
            .unwrap_or_else(|_| vec![f64::NEG_INFINITY; decisions.len()])
    }
}
