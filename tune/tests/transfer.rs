//! Held-out scoring of any cost model, the seeded fine-tuning selection, training sets of
//! several devices, transfer to a new device, and record translation between devices.

mod common;

use common::MODEL;
use tb_passes::schedule::Rng;
use tb_tune::cost_model::{CostModel, FeatureCache};
use tb_tune::dataset::DeviceRecords;
use tb_tune::space::{Space, TunableTask};
use tb_tune::task::{FRONT_PIPELINE, parse_module, run_pipeline, tasks};
use tb_tune::transfer::{
    TransferOptions, device_samples, fraction_of, held_out, medians, transfer,
};
use tb_tune::translate::{TranslateOptions, propose, translate_record};
use tb_tune::{Record, Status, TargetKey};

fn key(features: &str) -> TargetKey {
    TargetKey {
        cpu: "znver4".into(),
        features: features.into(),
        threads: 1,
    }
}

fn avx512() -> TargetKey {
    key("+sse4.2,+avx,+avx2,+fma,+avx512f")
}

fn avx2() -> TargetKey {
    key("+sse4.2,+avx,+avx2,+fma,-avx512f")
}

fn sse() -> TargetKey {
    key("+sse4.2,-avx,-avx2,-fma,-avx512f")
}

/// The model's matmul tasks with their spaces on `target`.
fn matmuls_on(target: &TargetKey) -> Vec<TunableTask> {
    let (mut ctx, module) = parse_module(MODEL).unwrap();
    run_pipeline(&mut ctx, module, FRONT_PIPELINE).unwrap();
    let machine = target.machine().schedule_target();
    tasks(&mut ctx, module)
        .into_iter()
        .map(|task| {
            let (space, summary) = Space::of(&task, &machine).unwrap();
            TunableTask {
                task,
                space,
                summary,
            }
        })
        .filter(|t| matches!(t.space, Space::MicroKernel(_)))
        .collect()
}

/// A made-up latency: best near mr=4, two vectors per row, packed B.
fn cost(task: &TunableTask, d: &[usize]) -> f64 {
    let Space::MicroKernel(s) = &task.space else {
        unreachable!("matmul tasks only")
    };
    let p = s.params(d).unwrap();
    1e-3 * (1.0
        + (p.mr as f64 / 4.0).log2().abs()
        + ((p.nr / p.vector) as f64 / 2.0).log2().abs()
        + if p.pack_rhs { 0.0 } else { 0.5 })
}

/// Up to `count` distinct decisions of each task with their made-up latencies.
fn records(target: &TargetKey, tasks: &[TunableTask], count: usize, seed: u64) -> Vec<Record> {
    let mut rng = Rng::seeded(seed);
    let mut out = Vec::new();
    for t in tasks {
        let mut seen: Vec<Vec<usize>> = Vec::new();
        for _ in 0..count * 20 {
            if seen.len() == count {
                break;
            }
            let d = t.space.sample(&mut rng).unwrap();
            if seen.contains(&d) {
                continue;
            }
            seen.push(d.clone());
            out.push(Record {
                target: target.clone(),
                task_key: t.task.key.clone(),
                space: t.space.kind().into(),
                description: t.space.describe(&d),
                latency_s: Some(cost(t, &d)),
                decision: d,
                status: Status::Ok,
                runs_s: vec![],
                error: None,
                search: "random".into(),
            });
        }
    }
    out
}

/// Ranks by the made-up latency (`sign` 1: the truth; -1: the reverse; 0: no opinion).
struct Oracle(f64);

impl CostModel for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }

    fn scores(
        &self,
        task: &TunableTask,
        _: &TargetKey,
        decisions: &[Vec<usize>],
        _: &mut FeatureCache,
    ) -> Vec<f64> {
        decisions.iter().map(|d| -self.0 * cost(task, d)).collect()
    }
}

#[test]
fn held_out_scores_follow_the_models_order() {
    let tasks = matmuls_on(&avx2());
    let recs = records(&avx2(), &tasks, 12, 1);
    let perfect = held_out(&Oracle(1.0), &avx2(), &tasks, &recs);
    assert_eq!(perfect.len(), tasks.len());
    assert_eq!(medians(&perfect), (1.0, 1.0));
    let reversed = held_out(&Oracle(-1.0), &avx2(), &tasks, &recs);
    assert!(medians(&reversed).0 < 0.8, "{reversed:?}");
    // No opinion: ties rank the slower candidate first, so nothing is earned.
    let blind = held_out(&Oracle(0.0), &avx2(), &tasks, &recs);
    assert_eq!(medians(&blind).0, medians(&reversed).0);
}

#[test]
fn held_out_scores_only_read_records_of_their_target() {
    let tasks = matmuls_on(&avx2());
    let others = records(&sse(), &matmuls_on(&sse()), 12, 1);
    assert!(held_out(&Oracle(1.0), &avx2(), &tasks, &others).is_empty());
}

#[test]
fn the_fine_tuning_selection_is_a_seeded_fraction() {
    let tasks = matmuls_on(&avx2());
    let mut recs = records(&avx2(), &tasks, 40, 2);
    // Heuristic records (no decision) are never chosen.
    recs.push(Record {
        decision: vec![],
        ..recs[0].clone()
    });
    let with_decision = recs.len() - 1;
    let a = fraction_of(&recs, 0.1, 7);
    assert_eq!(a.len(), with_decision / 10);
    assert!(a.iter().all(|r| !r.decision.is_empty() && recs.contains(r)));
    assert_eq!(a, fraction_of(&recs, 0.1, 7));
    assert_ne!(a, fraction_of(&recs, 0.1, 8));
    assert!(fraction_of(&recs, 0.0, 7).is_empty());
    assert_eq!(fraction_of(&recs, 1.0, 7).len(), with_decision);
}

#[test]
fn training_sets_of_several_devices_keep_their_groups_apart() {
    let (t1, t2) = (matmuls_on(&avx512()), matmuls_on(&sse()));
    let (r1, r2) = (records(&avx512(), &t1, 8, 1), records(&sse(), &t2, 8, 1));
    let one = device_samples(&[(&t1, &r1)]);
    let both = device_samples(&[(&t1, &r1), (&t2, &r2)]);
    assert_eq!(both.len(), one.len() + device_samples(&[(&t2, &r2)]).len());
    let groups = |s: &[tb_tune::transformer::Sample]| {
        let mut g: Vec<usize> = s.iter().map(|s| s.group).collect();
        g.sort_unstable();
        g.dedup();
        g
    };
    assert_eq!(groups(&both).len(), 2 * groups(&one).len());
    // The hardware words differ, so the same decision reads differently per device.
    assert_ne!(one[0].ids, both[one.len()].ids);
}

#[test]
fn transfer_reports_all_four_runs_with_their_sizes() {
    let devices: Vec<DeviceRecords> = [avx512(), sse()]
        .into_iter()
        .map(|target| {
            let tasks = matmuls_on(&target);
            let records = records(&target, &tasks, 24, 3);
            DeviceRecords {
                target,
                tasks,
                records,
            }
        })
        .collect();
    let new_tasks = matmuls_on(&avx2());
    let (train_tasks, test_tasks) = new_tasks.split_at(1);
    let new = DeviceRecords {
        target: avx2(),
        tasks: train_tasks.to_vec(),
        records: records(&avx2(), train_tasks, 40, 4),
    };
    let test = DeviceRecords {
        target: avx2(),
        tasks: test_tasks.to_vec(),
        records: records(&avx2(), test_tasks, 16, 5),
    };
    let mut options = TransferOptions::new(0.1, 1);
    options.train.epochs = 3;
    options.fine_tune.epochs = 3;
    options.replay.epochs = 2;
    let t = transfer(&devices, &new, &test, &options).unwrap();
    assert_eq!(t.all.records, 40);
    assert_eq!((t.scratch.records, t.fine_tuned.records), (4, 4));
    // Fine-tuning sees the fraction with the pretraining records replayed beside it.
    assert_eq!(
        t.fine_tuned.sentences,
        t.scratch.sentences + t.pretrained.sentences
    );
    assert_eq!(t.fine_tuned.epochs, 2);
    assert_eq!(t.pretrained.records, 48 * devices[0].tasks.len());
    for run in [&t.all, &t.scratch, &t.pretrained, &t.fine_tuned] {
        assert_eq!(run.held_out_tasks, test_tasks.len());
        assert!(run.top1 > 0.0 && run.top1 <= 1.0, "{run:?}");
        assert_eq!(run.seed, 1);
    }
}

#[test]
fn a_record_decodes_exactly_where_the_other_space_offers_its_values() {
    let a = matmuls_on(&avx2());
    let b = matmuls_on(&avx2());
    let mut rng = Rng::seeded(5);
    let d = a[0].space.sample(&mut rng).unwrap();
    assert_eq!(
        translate_record(&a[0].space, &b[0].space, &d, &[]),
        Some((d.clone(), true))
    );
}

#[test]
fn a_record_the_other_space_cannot_spell_becomes_its_nearest_candidate() {
    let a = matmuls_on(&avx512());
    let b = matmuls_on(&sse());
    let mut rng = Rng::seeded(6);
    // A decision with 16-lane vectors, which SSE's space does not offer.
    let wide = (0..1000)
        .filter_map(|_| a[0].space.sample(&mut rng))
        .find(|d| a[0].space.tokens(d).contains(&"vector=16".to_string()))
        .unwrap();
    let pool: Vec<Vec<usize>> = (0..64)
        .filter_map(|_| b[0].space.sample(&mut rng))
        .collect();
    let (d, exact) = translate_record(&a[0].space, &b[0].space, &wide, &pool).unwrap();
    assert!(!exact);
    assert!(pool.contains(&d));
    let shared = |x: &[usize]| {
        a[0].space
            .tokens(&wide)
            .iter()
            .zip(b[0].space.tokens(x))
            .filter(|(p, q)| **p == *q)
            .count()
    };
    assert!(pool.iter().all(|p| shared(p) <= shared(&d)));
    assert_eq!(translate_record(&a[0].space, &b[0].space, &wide, &[]), None);
}

#[test]
fn proposals_are_distinct_lowering_decisions_ranked_by_the_model() {
    let a = matmuls_on(&avx512());
    let b = matmuls_on(&avx2());
    let recs = records(&avx512(), &a, 16, 8);
    let p = propose(
        &b[0],
        &avx2(),
        &a[0].space,
        &recs,
        &Oracle(1.0),
        8,
        &TranslateOptions::default(),
    );
    assert_eq!(p.ranked.len(), 8);
    assert_eq!(p.exact + p.nearest, 16);
    let mut descriptions: Vec<String> = p.ranked.iter().map(|d| b[0].space.describe(d)).collect();
    descriptions.sort();
    descriptions.dedup();
    assert_eq!(descriptions.len(), 8);
    for d in &p.ranked {
        b[0].lowers(d).unwrap();
    }
    // Translated records and the model's other favourites alternate, each list ranked by
    // the model: made-up latencies never decrease down either.
    let costs: Vec<f64> = p.ranked.iter().map(|d| cost(&b[0], d)).collect();
    for start in [0, 1] {
        let list: Vec<f64> = costs.iter().skip(start).step_by(2).copied().collect();
        assert!(list.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
    }
}

#[test]
fn the_zero_shot_proposal_is_the_translated_record_the_model_ranks_first() {
    let a = matmuls_on(&avx2());
    let b = matmuls_on(&avx2());
    // A's records: every one decodes exactly into B's (identical) space.
    let recs = records(&avx2(), &a, 16, 9);
    let best_translated = recs
        .iter()
        .filter(|r| r.task_key == a[0].task.key)
        .map(|r| r.decision.clone())
        .filter(|d| b[0].lowers(d).is_ok())
        .min_by(|x, y| cost(&b[0], x).total_cmp(&cost(&b[0], y)))
        .unwrap();
    let p = propose(
        &b[0],
        &avx2(),
        &a[0].space,
        &recs,
        &Oracle(1.0),
        1,
        &TranslateOptions::default(),
    );
    assert_eq!(p.exact, 16);
    assert_eq!(cost(&b[0], &p.ranked[0]), cost(&b[0], &best_translated));
}

#[test]
fn a_tree_trained_on_two_devices_ranks_a_third_devices_candidates() {
    let (wide, narrow, other) = (
        matmuls_on(&avx512()),
        matmuls_on(&sse()),
        matmuls_on(&avx2()),
    );
    let (wide_records, narrow_records) = (
        records(&avx512(), &wide, 24, 3),
        records(&sse(), &narrow, 24, 4),
    );
    let ranker = tb_tune::search::train_ranker_on_devices(
        &[(&wide, &wide_records), (&narrow, &narrow_records)],
        &tb_tune::gbdt::TrainOptions::default(),
    )
    .expect("enough records");
    // The made-up cost depends on the decision's numbers alone, which the tree reads from
    // each device's own code: its first choice among the third device's candidates beats
    // the typical one.
    let task = &other[0];
    let candidates: Vec<Vec<usize>> = records(&avx2(), &other, 24, 5)
        .into_iter()
        .filter(|r| r.task_key == task.task.key)
        .map(|r| r.decision)
        .collect();
    let scores = ranker.scores(task, &avx2(), &candidates, &mut FeatureCache::new());
    let first = (0..candidates.len())
        .max_by(|&i, &j| scores[i].total_cmp(&scores[j]))
        .unwrap();
    let mut costs: Vec<f64> = candidates.iter().map(|d| cost(task, d)).collect();
    let chosen = cost(task, &candidates[first]);
    costs.sort_by(f64::total_cmp);
    assert!(
        chosen < costs[costs.len() / 2],
        "first choice {chosen} vs median {}",
        costs[costs.len() / 2]
    );
    // Too few records train nothing.
    assert!(
        tb_tune::search::train_ranker_on_devices(
            &[(&wide, &wide_records[..3])],
            &Default::default()
        )
        .is_none()
    );
}
