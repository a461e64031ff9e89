//! Synthetic micro-kernel records: the matmul tasks of [`super::MODEL`], a made-up latency
//! per decision, and a measurer and record sink for searches over them.

use tb_passes::schedule::Rng;
use tb_tune::cost_model::ModelKind;
use tb_tune::search::{Measurement, Measurer, RecordSink, SearchOptions, tune};
use tb_tune::space::{Space, TunableTask};
use tb_tune::{Record, Status, TargetKey};

use super::{MODEL, model_tasks, target_key};

/// A made-up latency of a micro-kernel decision: best near mr=4, nr=2 vectors, kc=64,
/// packed B.
pub fn cost(task: &TunableTask, d: &[usize]) -> f64 {
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

pub fn matmuls() -> Vec<TunableTask> {
    model_tasks(MODEL)
        .into_iter()
        .filter(|t| matches!(t.space, Space::MicroKernel(_)))
        .collect()
}

/// `count` distinct decisions of each task with their synthetic latencies.
pub fn decisions(tasks: &[TunableTask], count: usize, seed: u64) -> Vec<Vec<(Vec<usize>, f64)>> {
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

pub fn record(task: &TunableTask, target: &TargetKey, d: &[usize], latency: Option<f64>) -> Record {
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

pub struct Synthetic;

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
pub struct Collect(pub Vec<Record>);

impl RecordSink for Collect {
    fn add(&mut self, _: &TunableTask, record: &Record) -> Result<(), String> {
        self.0.push(record.clone());
        Ok(())
    }
}

/// The records of a search of the matmul tasks with `options`, after checking that it
/// measured every trial and beat the heuristic on every task.
pub fn search_matmuls(options: &SearchOptions) -> Vec<Record> {
    let tasks = matmuls();
    let mut sink = Collect::default();
    let result = tune(
        &tasks,
        &target_key("test", 1),
        &[],
        &mut Synthetic,
        &mut sink,
        options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(sink.0.len(), options.trials);
    for t in &result.tasks {
        assert!(t.best_latency.unwrap() < t.default_latency.unwrap());
    }
    sink.0
}

/// [`search_matmuls`] of `trials` trials ranked by `model`.
pub fn search_matmuls_with(model: ModelKind, trials: usize) -> Vec<Record> {
    search_matmuls(&SearchOptions {
        trials,
        model,
        ..SearchOptions::default()
    })
}
