//! The ensemble cost model: its members count alike whatever their scales (a member whose
//! scores never differ keeps its raw scale), a candidate a member cannot score ranks last
//! while a member that scores nothing is left out, its scores do not depend on what else is
//! scored in the same call, it ranks unseen decisions when its members are trained, and the
//! search ranks with it.

mod common;

use common::matmul_records::{
    cost, decisions, matmuls, record, search_matmuls, search_matmuls_with,
};
use common::target_key;
use tb_tune::cost_model::{CostModel, FeatureCache, ModelKind, train_model};
use tb_tune::ensemble::Ensemble;
use tb_tune::search::SearchOptions;
use tb_tune::space::TunableTask;
use tb_tune::{Record, TargetKey};

/// A stand-in model: `scale` times the synthetic speed of a decision (negative scales
/// rank the slowest first); decisions listed in `unscorable` get no score.
struct Scaled {
    scale: f64,
    unscorable: Vec<Vec<usize>>,
}

impl CostModel for Scaled {
    fn name(&self) -> &'static str {
        "scaled"
    }

    fn scores(
        &self,
        task: &TunableTask,
        _: &TargetKey,
        decisions: &[Vec<usize>],
        _: &mut FeatureCache,
    ) -> Vec<f64> {
        decisions
            .iter()
            .map(|d| {
                if self.unscorable.contains(d) {
                    f64::NEG_INFINITY
                } else {
                    self.scale * 1e-3 / cost(task, d)
                }
            })
            .collect()
    }
}

fn scaled(scale: f64) -> Box<dyn CostModel> {
    Box::new(Scaled {
        scale,
        unscorable: Vec::new(),
    })
}

/// Records of `count` decisions of each matmul task, measured by the synthetic cost.
fn measured(tasks: &[TunableTask], target: &TargetKey, count: usize, seed: u64) -> Vec<Record> {
    tasks
        .iter()
        .zip(decisions(tasks, count, seed))
        .flat_map(|(task, set)| {
            set.into_iter()
                .map(|(d, c)| record(task, target, &d, Some(c)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `count` distinct decisions of the first matmul task.
fn first_task_decisions(count: usize, seed: u64) -> Vec<Vec<usize>> {
    decisions(&matmuls()[..1], count, seed)[0]
        .iter()
        .map(|(d, _)| d.clone())
        .collect()
}

/// An ensemble of a plain member and one that cannot score `unscorable`, scaled on 20
/// measured decisions of each matmul task.
fn with_a_blind_member(unscorable: Vec<Vec<usize>>) -> Ensemble {
    let tasks = matmuls();
    let records = measured(&tasks, &target_key("test", 1), 20, 3);
    Ensemble::new(
        vec![
            scaled(1.0),
            Box::new(Scaled {
                scale: 1.0,
                unscorable,
            }),
        ],
        &[(&tasks, &records)],
        &mut FeatureCache::new(),
    )
}

/// The ensemble of a tree and a transformer trained on `records`, seed 1.
fn trained(tasks: &[TunableTask], records: &[Record]) -> Box<dyn CostModel> {
    train_model(
        ModelKind::Ensemble,
        tasks,
        records,
        &mut FeatureCache::new(),
        1,
    )
    .expect("enough records")
}

fn spread(values: &[f64]) -> f64 {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt()
}

#[test]
fn members_count_alike_whatever_their_scale() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let records = measured(&tasks, &target, 20, 3);
    // Two members that disagree exactly, one a million times louder: scaled to one spread
    // each, they cancel, where a plain sum would follow the loud one.
    let ensemble = Ensemble::new(
        vec![scaled(1e3), scaled(-1e-3)],
        &[(&tasks, &records)],
        &mut FeatureCache::new(),
    );
    let weights = ensemble.weights();
    assert_eq!(weights.len(), 2);
    assert!(
        (weights[0].1 * 1e6 / weights[1].1 - 1.0).abs() < 1e-9,
        "{weights:?}"
    );
    let set = first_task_decisions(10, 9);
    let scores = ensemble.scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    let loud = scaled(1e3).scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    assert!(
        spread(&scores) < 1e-9 * spread(&loud) * weights[0].1,
        "{scores:?}"
    );
}

#[test]
fn a_candidate_a_member_cannot_score_ranks_last() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let set = first_task_decisions(6, 5);
    let ensemble = with_a_blind_member(vec![set[2].clone()]);
    let scores = ensemble.scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    assert_eq!(scores[2], f64::NEG_INFINITY);
    assert!(
        scores
            .iter()
            .enumerate()
            .all(|(i, s)| i == 2 || s.is_finite())
    );
}

#[test]
fn a_decisions_score_does_not_depend_on_the_others_scored_with_it() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let records = measured(&tasks, &target, 30, 4);
    let model = trained(&tasks, &records);
    let set = first_task_decisions(8, 11);
    let together = model.scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    for (d, s) in set.iter().zip(&together) {
        let alone = model.scores(
            &tasks[0],
            &target,
            std::slice::from_ref(d),
            &mut FeatureCache::new(),
        );
        assert!(
            (alone[0] - s).abs() <= 1e-9 * s.abs().max(1.0),
            "{} against {s}",
            alone[0]
        );
    }
}

#[test]
fn a_trained_ensemble_ranks_decisions_it_never_saw() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let sets = decisions(&tasks, 100, 7);
    let records: Vec<Record> = tasks
        .iter()
        .zip(&sets)
        .flat_map(|(task, set)| {
            set[..70]
                .iter()
                .map(|(d, c)| record(task, &target, d, Some(*c)))
                .collect::<Vec<_>>()
        })
        .collect();
    let model = trained(&tasks, &records);
    for (task, set) in tasks.iter().zip(&sets) {
        let held_out = &set[70..];
        let ds: Vec<Vec<usize>> = held_out.iter().map(|(d, _)| d.clone()).collect();
        let scores = model.scores(task, &target, &ds, &mut FeatureCache::new());
        let (mut right, mut all) = (0, 0);
        for i in 0..held_out.len() {
            for j in 0..held_out.len() {
                if held_out[i].1 < held_out[j].1 {
                    all += 1;
                    right += usize::from(scores[i] > scores[j]);
                }
            }
        }
        let accuracy = right as f64 / all as f64;
        assert!(
            accuracy > 0.75,
            "{}: held-out pairwise accuracy {accuracy}",
            task.summary
        );
    }
}

#[test]
fn a_member_whose_scores_never_differ_keeps_its_raw_scale() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let records = measured(&tasks, &target, 20, 3);
    let ensemble = Ensemble::new(
        vec![scaled(0.0), scaled(1e3)],
        &[(&tasks, &records)],
        &mut FeatureCache::new(),
    );
    let weights = ensemble.weights();
    assert_eq!(weights[0].1, 1.0);
    assert!(
        weights[1].1.is_finite() && weights[1].1 < 1.0,
        "{weights:?}"
    );
    // With no training records, every member keeps its raw scale.
    let untrained = Ensemble::new(
        vec![scaled(2.0), scaled(3.0)],
        &[(&tasks, &[])],
        &mut FeatureCache::new(),
    );
    assert_eq!(
        untrained.weights().iter().map(|w| w.1).collect::<Vec<_>>(),
        vec![1.0, 1.0]
    );
}

#[test]
fn a_member_that_scores_nothing_is_left_out() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let set = first_task_decisions(6, 5);
    let ensemble = with_a_blind_member(set.clone());
    let scores = ensemble.scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    let alone = scaled(1.0).scores(&tasks[0], &target, &set, &mut FeatureCache::new());
    assert!(scores.iter().all(|s| s.is_finite()), "{scores:?}");
    for i in 0..set.len() {
        for j in 0..set.len() {
            assert_eq!(scores[i] > scores[j], alone[i] > alone[j]);
        }
    }
}

#[test]
fn the_search_ranks_with_the_ensemble() {
    assert_eq!(ModelKind::parse("ensemble"), Ok(ModelKind::Ensemble));
    let records = search_matmuls_with(ModelKind::Ensemble, 24);
    // Until a model is trained the search proposes as the random one does, from the same
    // seed: different decisions show the ensemble ranked them.
    let random = search_matmuls(&SearchOptions {
        trials: 24,
        random: true,
        ..SearchOptions::default()
    });
    let decisions = |records: &[Record]| -> Vec<Vec<usize>> {
        records.iter().map(|r| r.decision.clone()).collect()
    };
    assert_ne!(decisions(&records), decisions(&random));
    assert_eq!(trained(&matmuls(), &records).name(), "ensemble");
}
