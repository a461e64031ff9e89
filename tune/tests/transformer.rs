//! The transformer cost model: it learns an order from records and ranks decisions it never
//! saw, training is reproducible, saved models load back (and foreign ones are refused),
//! and the search runs with it.

mod common;

use common::matmul_records::{decisions, matmuls, record, search_matmuls_with};
use common::target_key;
use tb_tune::TargetKey;
use tb_tune::cost_model::{CostModel, FeatureCache, ModelKind};
use tb_tune::features::FEATURE_SCHEMA_VERSION;
use tb_tune::space::TunableTask;
use tb_tune::transformer::{
    Config, Encoder, Sample, TrainOptions, TransformerRanker, candidate_row, samples, sentence_ids,
    train,
};

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

#[test]
fn the_search_ranks_with_the_transformer() {
    let records = search_matmuls_with(ModelKind::Transformer, 24);
    let ranker =
        TransformerRanker::train_on(&matmuls(), &records, &quick()).expect("enough records");
    assert_eq!(ranker.name(), "transformer");
    assert_eq!(ModelKind::parse("transformer"), Ok(ModelKind::Transformer));
    assert!(
        ModelKind::parse("forest")
            .unwrap_err()
            .contains("unknown cost model")
    );
}
