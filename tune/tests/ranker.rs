//! The gradient-boosted-tree ranker learns rankings within groups and saves its schema.

use tb_tune::gbdt::{Dataset, Ranker, TrainOptions};

fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// A nonlinear "speed" of a candidate, plus a per-group scale the ranker must ignore.
fn truth(x: &[f64]) -> f64 {
    (3.0 * x[0]).sin() + x[1] * x[2] - (x[3] - 0.5).powi(2) * 2.0
}

fn groups(count: usize, size: usize, seed: &mut u64) -> (Vec<Vec<f64>>, Vec<f64>, Vec<usize>) {
    let (mut rows, mut labels, mut ids) = (vec![], vec![], vec![]);
    for g in 0..count {
        let scale = 1.0 + 10.0 * lcg(seed);
        for _ in 0..size {
            let x: Vec<f64> = (0..6).map(|_| lcg(seed)).collect();
            labels.push(scale * (truth(&x) + 3.0));
            rows.push(x);
            ids.push(g);
        }
    }
    (rows, labels, ids)
}

#[test]
fn learns_a_ranking_and_finds_the_best_of_held_out_groups() {
    let mut seed = 42;
    let (rows, labels, ids) = groups(30, 40, &mut seed);
    let ranker = Ranker::train(
        &Dataset {
            rows: &rows,
            labels: &labels,
            groups: &ids,
        },
        6,
        1,
        &TrainOptions::default(),
    );
    let (test_rows, test_labels, test_ids) = groups(20, 40, &mut seed);
    let (mut right, mut pairs, mut top5) = (0, 0, 0);
    for g in 0..20 {
        let members: Vec<usize> = (0..test_rows.len()).filter(|&i| test_ids[i] == g).collect();
        for &i in &members {
            for &j in &members {
                if test_labels[i] > test_labels[j] {
                    pairs += 1;
                    if ranker.predict(&test_rows[i]) > ranker.predict(&test_rows[j]) {
                        right += 1;
                    }
                }
            }
        }
        let best = *members
            .iter()
            .max_by(|&&a, &&b| test_labels[a].total_cmp(&test_labels[b]))
            .unwrap();
        let mut by_model = members.clone();
        by_model.sort_by(|&a, &b| {
            ranker
                .predict(&test_rows[b])
                .total_cmp(&ranker.predict(&test_rows[a]))
        });
        if by_model[..5].contains(&best) {
            top5 += 1;
        }
    }
    let accuracy = right as f64 / pairs as f64;
    assert!(accuracy > 0.85, "pairwise accuracy {accuracy}");
    assert!(
        top5 >= 16,
        "the best was in the model's top 5 in {top5} of 20 groups"
    );
}

#[test]
fn saves_and_loads_with_its_feature_schema() {
    let mut seed = 7;
    let (rows, labels, ids) = groups(4, 20, &mut seed);
    let data = Dataset {
        rows: &rows,
        labels: &labels,
        groups: &ids,
    };
    let ranker = Ranker::train(&data, 6, 3, &TrainOptions::default());
    let text = ranker.to_json();
    let loaded = Ranker::from_json(&text, 3).unwrap();
    assert!(loaded == ranker, "the ranker changed through JSON");
    assert_eq!(loaded.predict(&rows[0]), ranker.predict(&rows[0]));
    let err = Ranker::from_json(&text, 4).unwrap_err();
    assert!(err.contains("feature schema 3"), "{err}");
    assert!(Ranker::from_json("{}", 3).is_err());
}
