//! TLM-style schedule generation: the validity mask of a knob space, the autoregressive
//! generator (sampling and beam search, training, saving), and the search proposing with it.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};

use common::{CONV, KINDS, MODEL, avx2, model_tasks};
use tb_passes::schedule::{KnobSpace, Nest, Target};
use tb_tune::space::Space;

/// For every beginning of a valid decision of `space`, the choices of the next knob that
/// some valid decision takes there: by brute force over the whole product.
fn valid_continuations(space: &Space) -> HashMap<Vec<usize>, BTreeSet<usize>> {
    let sizes = space.knob_sizes();
    let mut out: HashMap<Vec<usize>, BTreeSet<usize>> = HashMap::new();
    let mut d = vec![0; sizes.len()];
    loop {
        if space.validate(&d).is_ok() {
            for n in 0..d.len() {
                out.entry(d[..n].to_vec()).or_default().insert(d[n]);
            }
        }
        let mut i = sizes.len();
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            d[i] += 1;
            if d[i] < sizes[i] {
                break;
            }
            d[i] = 0;
        }
    }
}

/// The mask offers exactly the choices some valid decision takes after each prefix.
fn assert_mask_is_exact(space: &Space) {
    let continuations = valid_continuations(space);
    assert!(
        continuations.contains_key(&vec![]),
        "the space has a valid decision"
    );
    for (prefix, expected) in &continuations {
        let offered: BTreeSet<usize> = space.allowed_values(prefix).into_iter().collect();
        assert_eq!(&offered, expected, "after {prefix:?}");
    }
}

/// A target with few vector registers, so the register budget rules out many blocks.
fn narrow() -> Target {
    Target {
        vector_registers: 6,
        ..avx2()
    }
}

#[test]
fn the_mask_of_a_micro_kernel_space_is_exact() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    assert_mask_is_exact(&t.space);
}

#[test]
fn the_mask_of_a_convolution_space_is_exact() {
    let t = model_tasks(CONV)
        .into_iter()
        .find(|t| matches!(t.space, Space::Conv(_)))
        .unwrap();
    assert_mask_is_exact(&t.space);
}

#[test]
fn the_mask_of_a_contraction_schedule_space_is_exact_under_a_register_budget() {
    let nest = Nest {
        extents: vec![4, 6, 2],
        reduction: vec![false, false, true],
        element_bytes: 4,
    };
    assert_mask_is_exact(&Space::Schedule(KnobSpace::new(nest, narrow(), 2)));
}

#[test]
fn the_mask_of_reduction_and_elementwise_schedule_spaces_is_exact() {
    for (extents, reduction) in [
        (vec![6, 8], vec![false, true]),
        (vec![4, 12], vec![false, false]),
        (vec![3, 4, 4], vec![false, true, true]),
    ] {
        let nest = Nest {
            extents,
            reduction,
            element_bytes: 4,
        };
        assert_mask_is_exact(&Space::Schedule(KnobSpace::new(nest, avx2(), 2)));
    }
}

#[test]
fn following_the_mask_never_reaches_a_dead_end_on_model_tasks() {
    let mut rng = tb_passes::schedule::Rng::seeded(7);
    for t in model_tasks(KINDS).iter().chain(&model_tasks(CONV)) {
        if !t.space.is_tunable() {
            continue;
        }
        for _ in 0..30 {
            let mut d = vec![];
            while d.len() < t.space.knob_sizes().len() {
                let allowed = t.space.allowed_values(&d);
                assert!(!allowed.is_empty(), "{}: dead end after {d:?}", t.summary);
                d.push(allowed[rng.below(allowed.len())]);
            }
            assert_eq!(t.space.validate(&d), Ok(()), "{}", t.summary);
        }
    }
}

#[test]
fn the_mask_offers_nothing_after_an_invalid_prefix_or_a_whole_decision() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    let Space::MicroKernel(s) = &t.space else {
        unreachable!()
    };
    // mr=8 with 4 B vectors needs 37 registers: no vector width or later knob saves it.
    let mr8 = s.mr.iter().position(|&m| m == 8).unwrap();
    let mult4 = s.mult.iter().position(|&m| m == 4).unwrap();
    assert!(t.space.allowed_values(&[mr8, mult4]).is_empty());
    assert!(!t.space.allowed_values(&[mr8]).contains(&mult4));
    let whole = vec![0; t.space.knob_sizes().len()];
    assert!(t.space.allowed_values(&whole).is_empty());
}

// ---- The generator ----

use common::matmul_records::{Collect, record};
use common::target_key;
use tb_passes::schedule::Rng;
use tb_tune::cost_model::{CostModel, ModelKind};
use tb_tune::search::{Measurement, Measurer, SearchOptions, tune};
use tb_tune::space::TunableTask;
use tb_tune::tlm::{Config, Generator, TrainOptions, examples};
use tb_tune::{Record, Status, TargetKey};

/// A made-up latency of a micro-kernel decision: best near mr=4, nr=2 vectors of the
/// widest width, kc=64, packed B.
fn cost(task: &TunableTask, d: &[usize]) -> f64 {
    let Space::MicroKernel(s) = &task.space else {
        unreachable!("matmul tasks only")
    };
    let p = s.params(d).unwrap();
    1e-3 * (1.0
        + (p.mr as f64 / 4.0).log2().abs()
        + ((p.nr / p.vector) as f64 / 2.0).log2().abs()
        + (8.0 / p.vector as f64).log2()
        + (p.kc as f64 / 64.0).log2().abs() * 0.3
        + if p.pack_rhs { 0.0 } else { 0.5 })
}

fn matmuls() -> Vec<TunableTask> {
    model_tasks(MODEL)
        .into_iter()
        .filter(|t| matches!(t.space, Space::MicroKernel(_)))
        .collect()
}

/// `count` random decisions of `task` measured by the synthetic cost.
fn measured(task: &TunableTask, target: &TargetKey, count: usize, seed: u64) -> Vec<Record> {
    let mut rng = Rng::seeded(seed);
    (0..count)
        .map(|_| {
            let d = task.space.sample(&mut rng).unwrap();
            record(task, target, &d, Some(cost(task, &d)))
        })
        .collect()
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn every_sampled_and_beam_decision_validates() {
    let target = target_key("test", 1);
    let generator = Generator::new(Config::default(), 3).unwrap();
    let mut rng = Rng::seeded(4);
    let tasks: Vec<TunableTask> = model_tasks(KINDS)
        .into_iter()
        .chain(model_tasks(CONV))
        .filter(|t| t.space.is_tunable())
        .collect();
    assert!(tasks.len() >= 4);
    for t in &tasks {
        for temperature in [0.3, 1.0, 3.0] {
            let samples = generator
                .sample(t, &target, 16, temperature, &mut rng)
                .unwrap();
            assert_eq!(samples.len(), 16);
            for d in &samples {
                assert_eq!(t.space.validate(d), Ok(()), "{}: {d:?}", t.summary);
            }
        }
        let beams = generator.beam(t, &target, 6).unwrap();
        assert!(!beams.is_empty());
        for w in beams.windows(2) {
            assert!(w[0].1 >= w[1].1, "beams are most likely first");
            assert_ne!(w[0].0, w[1].0);
        }
        for (d, _) in &beams {
            assert_eq!(t.space.validate(d), Ok(()), "{}: {d:?}", t.summary);
        }
    }
}

#[test]
fn sampling_is_reproducible_from_its_seeds() {
    let t = &matmuls()[0];
    let target = target_key("test", 1);
    let draw = |model_seed: u64, seed: u64| {
        Generator::new(Config::default(), model_seed)
            .unwrap()
            .sample(t, &target, 12, 1.0, &mut Rng::seeded(seed))
            .unwrap()
    };
    assert_eq!(draw(1, 2), draw(1, 2));
    assert_ne!(draw(1, 2), draw(1, 3));
}

#[test]
fn training_takes_the_fastest_fraction_of_each_task_weighted_by_speed() {
    let tasks = matmuls();
    let (a, b) = (target_key("a", 1), target_key("a", 2));
    let mut rng = Rng::seeded(9);
    let mut ds: Vec<Vec<usize>> = Vec::new();
    while ds.len() < 4 {
        let d = tasks[0].space.sample(&mut rng).unwrap();
        if !ds.contains(&d) {
            ds.push(d);
        }
    }
    let records = vec![
        record(&tasks[0], &a, &ds[0], Some(4e-3)),
        record(&tasks[0], &a, &ds[1], Some(1e-3)),
        record(&tasks[0], &a, &ds[2], Some(2e-3)),
        record(&tasks[0], &a, &ds[3], None),
        record(&tasks[0], &a, &ds[0], Some(3e-3)),
        record(&tasks[0], &b, &ds[2], Some(5e-3)),
    ];
    let e = examples(&tasks, &records, 0.5);
    let view: Vec<(Vec<usize>, f64)> = e.iter().map(|e| (e.decision.clone(), e.weight)).collect();
    // Target a: three distinct successful decisions (the crash is not one; ds[0] keeps its
    // faster 3 ms), the fastest half rounded up is two. Target b: its only one.
    assert_eq!(
        view,
        vec![
            (ds[1].clone(), 1.0),
            (ds[2].clone(), 0.5),
            (ds[2].clone(), 1.0)
        ]
    );
    // The thread count is in the prefix: the same decision reads differently.
    assert_ne!(e[1].ids, e[2].ids);
}

#[test]
fn a_generator_trained_on_other_tasks_proposes_faster_schedules_for_a_new_one() {
    let tasks = matmuls();
    assert!(tasks.len() >= 2);
    let target = target_key("test", 1);
    let (seen, new) = (&tasks[0], &tasks[1]);
    let generator = Generator::train_on(
        &tasks,
        &measured(seen, &target, 200, 1),
        &TrainOptions::default(),
    )
    .expect("trained");
    let mut rng = Rng::seeded(5);
    let generated = generator.sample(new, &target, 64, 1.0, &mut rng).unwrap();
    let random: Vec<Vec<usize>> = (0..64)
        .map(|_| new.space.sample(&mut rng).unwrap())
        .collect();
    let (g, r) = (
        mean(generated.iter().map(|d| cost(new, d))),
        mean(random.iter().map(|d| cost(new, d))),
    );
    assert!(g < 0.75 * r, "generated mean {g}, random mean {r}");
    let best = generator.beam(new, &target, 1).unwrap();
    let mut random_costs: Vec<f64> = random.iter().map(|d| cost(new, d)).collect();
    random_costs.sort_by(f64::total_cmp);
    assert!(
        cost(new, &best[0].0) <= random_costs[6],
        "the most likely decision is in the fastest tenth of random ones"
    );
}

#[test]
fn training_is_reproducible_from_its_seed() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let records = measured(&tasks[0], &target, 60, 2);
    let options = TrainOptions {
        epochs: 5,
        ..TrainOptions::default()
    };
    let beam = || {
        Generator::train_on(&tasks, &records, &options)
            .unwrap()
            .beam(&tasks[1], &target, 4)
            .unwrap()
    };
    assert_eq!(beam(), beam());
}

#[test]
fn a_saved_generator_generates_the_same_after_loading() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let options = TrainOptions {
        epochs: 3,
        ..TrainOptions::default()
    };
    let g = Generator::train_on(&tasks, &measured(&tasks[0], &target, 40, 3), &options).unwrap();
    let json = g.to_json().unwrap();
    let loaded = Generator::from_json(&json).unwrap();
    assert_eq!(
        g.beam(&tasks[1], &target, 5).unwrap(),
        loaded.beam(&tasks[1], &target, 5).unwrap()
    );
    let text = json.replacen("\"tokenizer_version\":1", "\"tokenizer_version\":99", 1);
    let err = Generator::from_json(&text).unwrap_err();
    assert!(err.contains("tokenizer version 99"), "{err}");
    let text = json.replacen("\"generator_schema\":1", "\"generator_schema\":7", 1);
    assert!(
        Generator::from_json(&text)
            .unwrap_err()
            .contains("layout 7")
    );
    let err = Generator::from_json("{\"format\":\"x\"}").unwrap_err();
    assert!(err.contains("not a saved schedule generator"), "{err}");
}

struct Synthetic;

impl Measurer for Synthetic {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        let latency = decision.map_or(6e-3, |d| cost(task, d));
        Measurement {
            status: Status::Ok,
            latency_s: Some(latency),
            runs_s: vec![latency],
            error: None,
        }
    }
}

fn search(
    tasks: &[TunableTask],
    options: &SearchOptions,
) -> (Collect, tb_tune::search::SearchResult) {
    let mut sink = Collect::default();
    let result = tune(
        tasks,
        &target_key("test", 1),
        &[],
        &mut Synthetic,
        &mut sink,
        options,
        &mut |_| {},
    )
    .unwrap();
    (sink, result)
}

#[test]
fn the_search_measures_generated_decisions_each_once() {
    let tasks = matmuls();
    let options = SearchOptions {
        trials: 30,
        model: ModelKind::Tlm,
        ..SearchOptions::default()
    };
    let (sink, result) = search(&tasks, &options);
    assert_eq!(sink.0.len(), 30);
    let mut seen = HashSet::new();
    for r in sink.0.iter().filter(|r| !r.decision.is_empty()) {
        let t = tasks.iter().find(|t| t.task.key == r.task_key).unwrap();
        assert_eq!(t.space.validate(&r.decision), Ok(()));
        assert!(
            seen.insert((r.task_key.clone(), r.description.clone())),
            "measured twice"
        );
    }
    for t in &result.tasks {
        assert!(t.best_latency.unwrap() < t.default_latency.unwrap());
    }
    assert_eq!(ModelKind::parse("tlm"), Ok(ModelKind::Tlm));
}

#[test]
fn a_pretrained_generator_finds_a_new_tasks_best_in_fewer_trials() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let (seen, new) = (&tasks[0], &tasks[1]);
    let pretrained = Generator::train_on(
        &tasks,
        &measured(seen, &target, 200, 1),
        &TrainOptions::default(),
    )
    .unwrap();
    // The trial (heuristic included) at which a search first came within 5% of the task's
    // best decision (over the whole space).
    let optimum = all_decisions(&new.space)
        .iter()
        .map(|d| cost(new, d))
        .fold(f64::INFINITY, f64::min);
    let trials_to_goal = |options: SearchOptions| {
        let (sink, _) = search(std::slice::from_ref(new), &options);
        sink.0
            .iter()
            .position(|r| r.latency_s.unwrap() <= optimum / 0.95)
            .map_or(usize::MAX, |p| p + 1)
    };
    let base = SearchOptions {
        trials: 40,
        ..SearchOptions::default()
    };
    let tlm = trials_to_goal(SearchOptions {
        model: ModelKind::Tlm,
        pretrained: Some(std::sync::Arc::new(pretrained)),
        ..base.clone()
    });
    let random = trials_to_goal(SearchOptions {
        random: true,
        ..base.clone()
    });
    assert!(tlm <= 8, "pretrained generator: {tlm} trials");
    assert!(tlm < random, "pretrained generator {tlm}, random {random}");
}

/// Every valid decision of a small space.
fn all_decisions(space: &Space) -> Vec<Vec<usize>> {
    let sizes = space.knob_sizes();
    let mut out = vec![vec![]];
    for &n in &sizes {
        out = out
            .into_iter()
            .flat_map(|p: Vec<usize>| {
                (0..n).map(move |c| {
                    let mut d = p.clone();
                    d.push(c);
                    d
                })
            })
            .collect();
    }
    out.retain(|d| space.validate(d).is_ok());
    out
}

#[test]
fn the_generator_scores_decisions_by_likelihood() {
    let tasks = matmuls();
    let target = target_key("test", 1);
    let g = Generator::train_on(
        &tasks,
        &measured(&tasks[0], &target, 200, 1),
        &TrainOptions::default(),
    )
    .unwrap();
    let ranker: &dyn CostModel = &g;
    assert_eq!(ranker.name(), "tlm");
    let t = &tasks[1];
    let all = all_decisions(&t.space);
    let scores = ranker.scores(t, &target, &all, &mut Default::default());
    let top = (0..all.len())
        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
        .unwrap();
    let worst = (0..all.len())
        .min_by(|&a, &b| scores[a].total_cmp(&scores[b]))
        .unwrap();
    assert!(cost(t, &all[top]) < cost(t, &all[worst]));
}
