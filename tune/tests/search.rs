//! The search: the trial budget is kept, every trial is recorded, failures do not stop it,
//! and the model-guided search beats the heuristic on a synthetic cost.

mod common;

use common::{MODEL, model_tasks, target_key};
use tb_tune::search::{Measurement, Measurer, RecordSink, SearchOptions, tune};
use tb_tune::space::{Space, TunableTask};
use tb_tune::{Record, Status};

/// A made-up machine: latency grows away from mr=4, nr=2 vectors, kc=64; mr=1 crashes.
struct Synthetic {
    calls: usize,
}

impl Measurer for Synthetic {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        self.calls += 1;
        let Space::MicroKernel(s) = &task.space else {
            return Measurement {
                status: Status::Ok,
                latency_s: Some(1e-3),
                runs_s: vec![1e-3],
                error: None,
            };
        };
        let Some(d) = decision else {
            return Measurement {
                status: Status::Ok,
                latency_s: Some(3e-3),
                runs_s: vec![3e-3],
                error: None,
            };
        };
        let p = s.params(d).unwrap();
        if p.mr == 1 {
            return Measurement {
                status: Status::Crash,
                latency_s: None,
                runs_s: vec![],
                error: Some("signal 6".into()),
            };
        }
        let cost = 1e-3
            * (1.0
                + (p.mr as f64 / 4.0).log2().abs()
                + ((p.nr / p.vector) as f64 / 2.0).log2().abs()
                + (p.kc as f64 / 16.0).log2().abs() * 0.3
                + if p.pack_rhs { 0.0 } else { 0.5 });
        Measurement {
            status: Status::Ok,
            latency_s: Some(cost),
            runs_s: vec![cost],
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

fn run(random: bool, trials: usize, seed: u64) -> (tb_tune::search::SearchResult, Collect) {
    let tasks: Vec<TunableTask> = model_tasks(MODEL)
        .into_iter()
        .filter(|t| matches!(t.space, Space::MicroKernel(_)))
        .collect();
    let mut measurer = Synthetic { calls: 0 };
    let mut sink = Collect::default();
    let options = SearchOptions {
        trials,
        random,
        seed,
        ..SearchOptions::default()
    };
    let result = tune(
        &tasks,
        &target_key("test", 1),
        &[],
        &mut measurer,
        &mut sink,
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(measurer.calls, trials);
    (result, sink)
}

#[test]
fn keeps_the_budget_records_every_trial_and_survives_failures() {
    let (result, sink) = run(false, 40, 1);
    assert_eq!(sink.0.len(), 40);
    assert_eq!(result.curve.len(), 40);
    assert_eq!(sink.0.iter().filter(|r| r.search == "default").count(), 2);
    let crashed = sink.0.iter().filter(|r| r.status == Status::Crash).count();
    let failed: usize = result.tasks.iter().map(|t| t.failed).sum();
    assert_eq!(crashed, failed);
    for t in &result.tasks {
        assert!(t.best_latency.unwrap() <= t.default_latency.unwrap());
    }
    // Once every task has a measurement, the weighted sum of best latencies only falls.
    assert!(result.curve[2..].windows(2).all(|w| w[1] <= w[0]));
}

#[test]
fn model_guided_search_beats_random_search() {
    let total = |random: bool| -> f64 {
        (1..=3)
            .map(|seed| {
                let (result, _) = run(random, 40, seed);
                result
                    .tasks
                    .iter()
                    .map(|t| t.best_latency.unwrap())
                    .sum::<f64>()
            })
            .sum()
    };
    let (model, random) = (total(false), total(true));
    eprintln!("sum of best latencies: model {model:.6}, random {random:.6}");
    assert!(model < random, "model-guided {model} vs random {random}");
}
