//! The cost-model interface the search ranks candidates with, and the models behind it:
//! the gradient-boosted-tree ranker over loop features ([`crate::gbdt`]) and the
//! transformer over tensor sentences ([`crate::transformer`]), and both at once
//! ([`crate::ensemble`]). Each is trained on the records of a search, grouped by task, and
//! only its order within a task is used.

use std::collections::HashMap;

use crate::database::Record;
use crate::gbdt::Ranker;
use crate::search::{candidate_features, train_ranker};
use crate::space::TunableTask;
use crate::target::TargetKey;

/// Loop features of candidates, computed once per (task key, decision).
pub type FeatureCache = HashMap<(String, Vec<usize>), Option<Vec<f64>>>;

/// A trained model that ranks the candidates of one task: higher scores rank first.
pub trait CostModel {
    /// `tree`, `transformer`, `ensemble` or `tlm`, for logs.
    fn name(&self) -> &'static str;

    /// Scores of `decisions` of `task` on `target`; `f64::NEG_INFINITY` for a candidate
    /// the model cannot score (it then ranks last).
    fn scores(
        &self,
        task: &TunableTask,
        target: &TargetKey,
        decisions: &[Vec<usize>],
        cache: &mut FeatureCache,
    ) -> Vec<f64>;
}

impl CostModel for Ranker {
    fn name(&self) -> &'static str {
        "tree"
    }

    fn scores(
        &self,
        task: &TunableTask,
        _target: &TargetKey,
        decisions: &[Vec<usize>],
        cache: &mut FeatureCache,
    ) -> Vec<f64> {
        decisions
            .iter()
            .map(|d| {
                cache
                    .entry((task.task.key.clone(), d.clone()))
                    .or_insert_with(|| candidate_features(task, d))
                    .as_ref()
                    .map_or(f64::NEG_INFINITY, |f| self.predict(f))
            })
            .collect()
    }
}

/// Which cost model a search trains (`tb-tune --model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ModelKind {
    #[default]
    Tree,
    Transformer,
    /// The tree and the transformer together ([`crate::ensemble`]).
    Ensemble,
    /// The schedule generator ([`crate::tlm`]): not a ranker but the search's proposal
    /// distribution, fine-tuned as records arrive.
    Tlm,
}

impl ModelKind {
    pub fn parse(text: &str) -> Result<ModelKind, String> {
        match text {
            "tree" => Ok(ModelKind::Tree),
            "transformer" => Ok(ModelKind::Transformer),
            "ensemble" => Ok(ModelKind::Ensemble),
            "tlm" => Ok(ModelKind::Tlm),
            other => Err(format!(
                "unknown cost model '{other}' (expected tree, transformer, ensemble or tlm)"
            )),
        }
    }
}

/// A model of `kind` trained on `records` of `tasks`; `None` while there are too few
/// records to learn an order from. The generator ranks a task's decisions by their
/// likelihood under it.
pub fn train_model(
    kind: ModelKind,
    tasks: &[TunableTask],
    records: &[Record],
    cache: &mut FeatureCache,
    seed: u64,
) -> Option<Box<dyn CostModel>> {
    match kind {
        ModelKind::Tree => {
            train_ranker(tasks, records, cache).map(|r| Box::new(r) as Box<dyn CostModel>)
        }
        ModelKind::Transformer => crate::transformer::TransformerRanker::train_on(
            tasks,
            records,
            &crate::transformer::TrainOptions {
                seed,
                ..crate::transformer::search_training()
            },
        )
        .map(|r| Box::new(r) as Box<dyn CostModel>),
        ModelKind::Ensemble => {
            // Whichever members train: early in a search the transformer may still lack
            // the records the tree can already learn from.
            let members: Vec<Box<dyn CostModel>> = [ModelKind::Tree, ModelKind::Transformer]
                .into_iter()
                .filter_map(|kind| train_model(kind, tasks, records, cache, seed))
                .collect();
            match members.len() {
                0 => None,
                1 => members.into_iter().next(),
                _ => Some(Box::new(crate::ensemble::Ensemble::new(
                    members,
                    &[(tasks, records)],
                    cache,
                ))),
            }
        }
        ModelKind::Tlm => crate::tlm::Generator::train_on(
            tasks,
            records,
            &crate::tlm::TrainOptions {
                seed,
                ..Default::default()
            },
        )
        .map(|g| Box::new(g) as Box<dyn CostModel>),
    }
}
