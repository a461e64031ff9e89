//! The transformer cost model: it learns an order from records and ranks decisions it never
//! saw, training is reproducible, saved models load back (and foreign ones are refused),
//! and the search runs with it.

mod common;

use common::{MODEL, model_tasks, target_key};
use tb_passes::schedule::Rng;
use tb_tune::cost_model::{CostModel, FeatureCache, ModelKind};
use tb_tune::features::FEATURE_SCHEMA_VERSION;
use tb_tune::search::{Measurement, Measurer, RecordSink, SearchOptions, tune};
use tb_tune::space::{Space, TunableTask};
use tb_tune::transformer::{
    Config, Encoder, Sample, TrainOptions, TransformerRanker, candidate_row, samples, sentence_ids,
    train,
};
use tb_tune::{Record, Status, TargetKey};

/// A made-up latency of a micro-kernel decision: best near mr=4, nr=2 vectors, kc=64,
/// packed B.
fn cost(task: &TunableTask, d: &[usize]) -> f64 {
    let Space::MicroKernel(s) = &task.space else {
        unreachable!("matmul tasks only")
    };
    let p = s.params(d).unwrap();
    1e-3 * (1.0
        + (p.mr as f64 / 4.0).log2().abs()
        + ((p.nr / p.vector) as f64 / 2.0).log2().abs()
        + (p.kc as f64 / 64.0).log2().abs() * 0.3
        + if p.pack_rhs { 0.0 } else { 0.5 })
}

fn matmuls() -> Vec<TunableTask> {
    model_tasks(MODEL)
        .into_iter()
        .filter(|t| matches!(t.space, Space::MicroKernel(_)))
        .collect()
}

/// `count` distinct decisions of each task with their synthetic latencies.
fn decisions(tasks: &[TunableTask], count: usize, seed: u64) -> Vec<Vec<(Vec<usize>, f64)>> {
    let mut rng = Rng::seeded(seed);
    tasks
        .iter()
        .map(|t| {
            let mut out: Vec<(Vec<usize>, f64)> = Vec::new();
            for _ in 0..count * 20 {
                if out.len() == count {
                    break;
                }
                let d = t.space.sample(&mut rng).unwrap();
                if !out.iter().any(|(e, _)| *e == d) {
                    let c = cost(t, &d);
                    out.push((d, c));
                }
            }
            out
        })
        .collect()
}

fn to_samples(
    tasks: &[TunableTask],
    target: &TargetKey,
    sets: &[&[(Vec<usize>, f64)]],
) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut cache = FeatureCache::new();
    for (g, (task, set)) in tasks.iter().zip(sets).enumerate() {
        let best = set.iter().map(|(_, c)| *c).fold(f64::INFINITY, f64::min);
        for (d, c) in set.iter() {
            out.push(Sample {
                ids: sentence_ids(task, target, d),
                features: candidate_row(task, d, &mut cache).expect("the candidate lowers"),
                label: best / c,
                group: g,
            });
        }
    }
    out
}

/// Sentence ids and feature rows of `set`'s decisions of `task`, as the encoder reads them.
fn inputs(
    task: &TunableTask,
    target: &TargetKey,
    set: &[(Vec<usize>, f64)],
) -> (Vec<Vec<u32>>, Vec<Vec<f32>>) {
    let mut cache = FeatureCache::new();
    set.iter()
        .map(|(d, _)| {
            (
                sentence_ids(task, target, d),
                candidate_row(task, d, &mut cache).expect("the candidate lowers"),
            )
        })
        .unzip()
}

fn quick() -> TrainOptions {
    TrainOptions {
        epochs: 40,
        ..TrainOptions::default()
    }
}

/// The fraction of pairs of different latency that `scores` order correctly.
fn pairwise_accuracy(set: &[(Vec<usize>, f64)], scores: &[f64]) -> f64 {
    let (mut right, mut all) = (0, 0);
    for i in 0..set.len() {
        for j in 0..set.len() {
            if set[i].1 < set[j].1 {
                all += 1;
                if scores[i] > scores[j] {
                    right += 1;
                }
            }
        }
    }
    right as f64 / all as f64
}

#[test]
fn ranks_decisions_it_never_saw() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let sets = decisions(&tasks, 100, 7);
    let train_sets: Vec<&[(Vec<usize>, f64)]> = sets.iter().map(|s| &s[..70]).collect();
    let (encoder, log) = train(
        &to_samples(&tasks, &target, &train_sets),
        Config::default(),
        &quick(),
    )
    .unwrap();
    assert!(
        log.epoch_loss.last().unwrap() < &log.epoch_loss[0],
        "the loss falls: {:?}",
        log.epoch_loss
    );
    for (task, set) in tasks.iter().zip(&sets) {
        let held_out = &set[70..];
        let (ids, features) = inputs(task, &target, held_out);
        let accuracy = pairwise_accuracy(held_out, &encoder.scores(&ids, &features).unwrap());
        assert!(
            accuracy > 0.75,
            "{}: held-out pairwise accuracy {accuracy}",
            task.summary
        );
    }
}

#[test]
fn training_is_reproducible_from_its_seed() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let sets = decisions(&tasks, 30, 3);
    let views: Vec<&[(Vec<usize>, f64)]> = sets.iter().map(|s| &s[..]).collect();
    let data = to_samples(&tasks, &target, &views);
    let options = TrainOptions {
        epochs: 3,
        ..TrainOptions::default()
    };
    let ids: Vec<Vec<u32>> = data.iter().map(|s| s.ids.clone()).collect();
    let features: Vec<Vec<f32>> = data.iter().map(|s| s.features.clone()).collect();
    let score = |seed| {
        let (e, _) = train(
            &data,
            Config::default(),
            &TrainOptions {
                seed,
                ..options.clone()
            },
        )
        .unwrap();
        e.scores(&ids, &features).unwrap()
    };
    assert_eq!(score(5), score(5));
    assert_ne!(score(5), score(6));
}

#[test]
fn a_saved_model_scores_the_same_after_loading() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let sets = decisions(&tasks, 20, 4);
    let (ids, features) = inputs(&tasks[0], &target, &sets[0]);
    let mut encoder = Encoder::new(Config::default(), 9).unwrap();
    // The standardization is part of the model.
    encoder.standardize_on(features.iter().map(|f| f.as_slice()));
    let text = encoder.to_json().unwrap();
    let loaded = Encoder::from_json(&text).unwrap();
    assert_eq!(loaded.config, encoder.config);
    assert_eq!(
        loaded.scores(&ids, &features).unwrap(),
        encoder.scores(&ids, &features).unwrap()
    );
}

#[test]
fn the_encoder_reads_the_candidates_loop_features() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let sets = decisions(&tasks, 2, 5);
    let (ids, features) = inputs(&tasks[0], &target, &sets[0]);
    assert_ne!(features[0], features[1], "two decisions, two programs");
    let encoder = Encoder::new(Config::default(), 3).unwrap();
    // The same words with the other candidate's features score differently.
    let same_words = vec![ids[0].clone(), ids[0].clone()];
    let scores = encoder.scores(&same_words, &features).unwrap();
    assert_ne!(scores[0], scores[1]);
    let err = encoder.scores(&same_words, &features[..1]).unwrap_err();
    assert!(err.contains("2 sentences but 1 feature rows"), "{err}");
}

#[test]
fn a_model_of_another_tokenizer_or_layout_is_refused() {
    let text = Encoder::new(
        Config {
            layers: 1,
            ..Config::default()
        },
        1,
    )
    .unwrap()
    .to_json()
    .unwrap();
    let cases = [
        (
            text.replace("\"tokenizer_version\":1", "\"tokenizer_version\":99"),
            "tokenizer version 99",
        ),
        (
            text.replace("\"model_schema\":2", "\"model_schema\":7"),
            "parameter layout 7",
        ),
        (
            text.replace(
                &format!("\"feature_schema\":{FEATURE_SCHEMA_VERSION}"),
                "\"feature_schema\":0",
            ),
            "feature schema 0",
        ),
        (
            // Refused before anything of that size is allocated.
            text.replace("\"dim\":64", "\"dim\":1099511627776"),
            "was expected",
        ),
        (
            text.replacen("\"feature_std\":[1.0", "\"feature_std\":[0.0", 1),
            "feature standardization",
        ),
        (
            text.replace("\"layers\":1", "\"layers\":2"),
            "parameters, its config needs",
        ),
        (
            text.replace("tb-tune transformer ranker", "something else"),
            "format 'something else'",
        ),
        (
            "{\"trees\": []}".to_string(),
            "not a saved transformer ranker",
        ),
    ];
    for (bad, expected) in cases {
        let err = Encoder::from_json(&bad).err().expect("refused");
        assert!(err.contains(expected), "{expected}: {err}");
    }
}

#[test]
fn an_encoder_whose_width_does_not_split_into_heads_is_refused() {
    let err = Encoder::new(
        Config {
            dim: 30,
            heads: 4,
            ..Config::default()
        },
        1,
    )
    .err()
    .unwrap();
    assert!(err.contains("dim 30"), "{err}");
}

fn record(task: &TunableTask, target: &TargetKey, d: &[usize], latency: Option<f64>) -> Record {
    Record {
        target: target.clone(),
        task_key: task.task.key.clone(),
        space: task.space.kind().into(),
        decision: d.to_vec(),
        description: task.space.describe(d),
        status: if latency.is_some() {
            Status::Ok
        } else {
            Status::Crash
        },
        latency_s: latency,
        runs_s: latency.into_iter().collect(),
        error: None,
        search: "model".into(),
    }
}

#[test]
fn records_are_grouped_by_task_and_target_and_labelled_by_speed() {
    let tasks = matmuls();
    let (a, b) = (target_key("a", 1), target_key("a", 2));
    let sets = decisions(&tasks[..1], 3, 2);
    let d = &sets[0];
    let records = vec![
        record(&tasks[0], &a, &d[0].0, Some(2e-3)),
        record(&tasks[0], &a, &d[1].0, Some(1e-3)),
        record(&tasks[0], &a, &d[2].0, None),
        record(&tasks[0], &b, &d[0].0, Some(4e-3)),
        record(&tasks[0], &b, &d[1].0, Some(8e-3)),
    ];
    let s = samples(&tasks, &records);
    let view: Vec<(usize, f64)> = s.iter().map(|s| (s.group, s.label)).collect();
    assert_eq!(view, vec![(0, 0.5), (0, 1.0), (0, 0.0), (1, 1.0), (1, 0.5)]);
    // The thread count is in the sentence: the same decision reads differently.
    assert_ne!(s[0].ids, s[3].ids);
}

struct Synthetic;

impl Measurer for Synthetic {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        let latency = decision.map_or(3e-3, |d| cost(task, d));
        Measurement {
            status: Status::Ok,
            latency_s: Some(latency),
            runs_s: vec![latency],
            error: None,
        }
    }
}

#[derive(Default)]
struct Collect(Vec<Record>);

impl RecordSink for Collect {
    fn add(&mut self, _: &TunableTask, record: &Record) -> Result<(), String> {
        self.0.push(record.clone());
        Ok(())
    }
}

#[test]
fn the_search_ranks_with_the_transformer() {
    let tasks = matmuls();
    let mut sink = Collect::default();
    let options = SearchOptions {
        trials: 24,
        model: ModelKind::Transformer,
        ..SearchOptions::default()
    };
    let result = tune(
        &tasks,
        &target_key("test", 1),
        &[],
        &mut Synthetic,
        &mut sink,
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(sink.0.len(), 24);
    for t in &result.tasks {
        assert!(t.best_latency.unwrap() < t.default_latency.unwrap());
    }
    let ranker = TransformerRanker::train_on(&tasks, &sink.0, &quick()).expect("enough records");
    assert_eq!(ranker.name(), "transformer");
    assert_eq!(ModelKind::parse("transformer"), Ok(ModelKind::Transformer));
    assert!(
        ModelKind::parse("forest")
            .unwrap_err()
            .contains("unknown cost model")
    );
}
