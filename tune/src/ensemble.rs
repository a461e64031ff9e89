//! A cost model that ranks by several trained models at once (`--model ensemble`: the tree
//! over loop features and the transformer over tensor sentences).
//!
//! The members' scores live on unrelated scales (a tree's relevance, an encoder's logit),
//! and only their order within a task means anything. Each member's score is therefore
//! divided by its typical spread within a training task (the median standard deviation of
//! its scores over a task's measured candidates), and the ensemble's score is the sum. The
//! scale is fixed at training time, so scores from different calls for one task stay
//! comparable, which the evolutionary search relies on when it pools them.

use std::collections::{BTreeMap, HashMap};

use crate::cost_model::{CostModel, FeatureCache};
use crate::database::{Record, Status};
use crate::space::TunableTask;
use crate::target::TargetKey;

/// At most this many training tasks, and candidates per task, set a member's scale: enough
/// for a stable median, cheap next to training.
const SCALE_TASKS: usize = 64;
const SCALE_CANDIDATES: usize = 64;

/// Members whose scores are summed after each is divided by its spread.
pub struct Ensemble {
    members: Vec<(Box<dyn CostModel>, f64)>,
}

impl Ensemble {
    /// An ensemble of `members`, each scaled by its spread on the measured candidates of
    /// the training devices `devices` (each device's tasks with their spaces there, and its
    /// records). The spread is the median over the training tasks on which the member's
    /// scores differ at all; a member whose scores never differ on a training task counts
    /// with weight 1 on its raw scores. `cache` holds the loop features of the first
    /// device's candidates (a feature depends on the device's space), each further device
    /// gets a fresh one.
    pub fn new(
        members: Vec<Box<dyn CostModel>>,
        devices: &[(&[TunableTask], &[Record])],
        cache: &mut FeatureCache,
    ) -> Ensemble {
        let groups: Vec<Vec<Group>> = devices
            .iter()
            .map(|(tasks, records)| measured_groups(tasks, records))
            .collect();
        let members = members
            .into_iter()
            .map(|m| {
                let mut spreads = Vec::new();
                for (d, device_groups) in groups.iter().enumerate() {
                    let mut fresh = FeatureCache::new();
                    let cache = if d == 0 { &mut *cache } else { &mut fresh };
                    for (task, target, decisions) in device_groups {
                        let scores: Vec<f64> = m
                            .scores(task, target, decisions, cache)
                            .into_iter()
                            .filter(|s| s.is_finite())
                            .collect();
                        spreads.extend(deviation(&scores).filter(|s| *s > 0.0));
                    }
                }
                let weight = 1.0 / crate::transfer::median(spreads);
                (m, if weight.is_finite() { weight } else { 1.0 })
            })
            .collect();
        Ensemble { members }
    }

    /// Each member's name and the weight its scores are multiplied by.
    pub fn weights(&self) -> Vec<(&'static str, f64)> {
        self.members.iter().map(|(m, w)| (m.name(), *w)).collect()
    }
}

impl CostModel for Ensemble {
    fn name(&self) -> &'static str {
        "ensemble"
    }

    /// The weighted sum of the members' scores; a candidate a member cannot score ranks
    /// last. A member that scores none of `decisions` (an encoder that failed on this
    /// batch) is left out of the sum rather than sinking every candidate.
    fn scores(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        decisions: &[Vec<usize>],
        cache: &mut FeatureCache,
    ) -> Vec<f64> {
        let mut total = vec![0.0; decisions.len()];
        let mut voted = false;
        for (member, weight) in &self.members {
            let scores = member.scores(task, target, decisions, cache);
            if !scores.iter().any(|s| s.is_finite()) {
                continue;
            }
            voted = true;
            for (t, s) in total.iter_mut().zip(scores) {
                *t += weight * s;
            }
        }
        if !voted {
            return vec![f64::NEG_INFINITY; decisions.len()];
        }
        total
            .into_iter()
            .map(|t| if t.is_nan() { f64::NEG_INFINITY } else { t })
            .collect()
    }
}

/// A task on a target with the distinct decisions measured there.
type Group<'a> = (&'a TunableTask, TargetKey, Vec<Vec<usize>>);

/// Up to [`SCALE_TASKS`] groups of `records`, each with at least two decisions, in a fixed
/// order.
fn measured_groups<'a>(tasks: &'a [TunableTask], records: &[Record]) -> Vec<Group<'a>> {
    let by_key: HashMap<&str, &TunableTask> =
        tasks.iter().map(|t| (t.task.key.as_str(), t)).collect();
    // Sorted by (task key, target id), so the first SCALE_TASKS do not depend on hashing.
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut groups: Vec<Group<'a>> = Vec::new();
    for r in records
        .iter()
        .filter(|r| r.status == Status::Ok && !r.decision.is_empty())
    {
        let Some(task) = by_key.get(r.task_key.as_str()) else {
            continue;
        };
        let i = *index
            .entry((r.task_key.clone(), r.target.id()))
            .or_insert_with(|| {
                groups.push((task, r.target.clone(), Vec::new()));
                groups.len() - 1
            });
        let decisions = &mut groups[i].2;
        if !decisions.contains(&r.decision) && decisions.len() < SCALE_CANDIDATES {
            decisions.push(r.decision.clone());
        }
    }
    index
        .into_values()
        .filter(|&i| groups[i].2.len() >= 2)
        .take(SCALE_TASKS)
        .map(|i| {
            let (task, target, mut decisions) = groups[i].clone();
            decisions.sort();
            (task, target, decisions)
        })
        .collect()
}

/// The standard deviation of `values`; `None` for fewer than two.
fn deviation(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
    Some(variance.sqrt())
}
