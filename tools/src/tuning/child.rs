//! The measuring child's side (`tb-tune --measure DIR --decision D`): one candidate of the
//! task prepared in `DIR`, in two steps the parent paces.
//!
//! 1. **Compile**: read the task, rebuild its space, apply the decision, run the rest of the
//!    CPU pipeline and compile the result with the CPU backend (the JIT, as `tb-run` does),
//!    then print `{"ready": true, ...}` and wait for a line on standard input.
//! 2. **Measure**, on `go`: run the code once and compare its results with the
//!    interpreter's, then time it (one warm-up run, then the median of at least 3 runs and up
//!    to 20 or 0.3 s of runs, each after a write of twice the last-level cache, on every
//!    thread of the pool, that flushes the caches: see [`super::cache_flush`]).
//!
//! Either step ends with one JSON line: the measurement, with the seconds each phase took.
//! The parent compiles the next candidates while one is timed, so the wait between the
//! steps is not part of any phase; end of input instead of `go` ends the child quietly.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_interpreter::{Tensor, read_npy};
use tb_tune::space::Space;
use tb_tune::task::{TASK_FUNCTION, parse_module};
use tb_tune::{Measurement, Status};

use super::cache_flush::CacheFlush;
use super::reference::{SAMPLED_MARK, first_mismatch};
use super::{Device, FAULT_VAR, Phases, failed};

/// What the child prints when its candidate is compiled and it waits for `go`.
pub const READY: &str = "ready";

/// Runs the child: prints its measurement (or the ready line, then the measurement) on
/// standard output.
pub fn measure_child(dir: &Path, decision: &str, threads: usize, device: &Device) {
    let mut phases = Phases::default();
    let compiled = compile_step(dir, decision, threads, device, &mut phases);
    let outcome = match compiled {
        Err(e) => Err(e),
        Ok(candidate) => {
            println!(
                "{}",
                serde_json::json!({ READY: true, "phases": phases.to_json() })
            );
            let _ = std::io::stdout().flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(n) if n > 0 && line.trim() == "go" => {}
                // The parent gave up on this candidate (stopped, or went away).
                _ => return,
            }
            measure_step(&candidate, &mut phases)
        }
    };
    let m = outcome.unwrap_or_else(|(status, why)| failed(status, why));
    println!(
        "{}",
        serde_json::json!({
            "status": m.status.as_str(),
            "latency_s": m.latency_s,
            "runs_s": m.runs_s,
            "error": m.error,
            "phases": phases.to_json(),
        })
    );
}

/// A compiled candidate with its inputs and the interpreter's results.
struct Candidate {
    compiled: CompiledModule,
    inputs: Vec<Tensor>,
    expected: Vec<Tensor>,
    /// The reference holds a sample of the elements (the rest are NaN, not compared).
    sampled: bool,
    /// The test hook spoils its results.
    spoilt: bool,
    /// Threads its parallel loops run on.
    threads: usize,
}

type Failure = (Status, String);

/// The test hook: aborts (`crash`) or hangs (`hang`) for a matching candidate, or says
/// whether its results are to be spoilt (`wrong`: one added to every element).
fn fault_hook(description: &str) -> bool {
    let Ok(fault) = std::env::var(FAULT_VAR) else {
        return false;
    };
    let (kind, text) = fault.split_once(':').unwrap_or((fault.as_str(), ""));
    if !description.contains(text) {
        return false;
    }
    match kind {
        "crash" => std::process::abort(),
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        "wrong" => true,
        _ => false,
    }
}

fn spoil(t: &Tensor) -> Tensor {
    let values: Vec<f64> = t.to_f64_vec().into_iter().map(|v| v + 1.0).collect();
    Tensor::from_vec(t.shape().to_vec(), values)
        .expect("the shape holds the values")
        .cast(t.dtype())
}

/// Seconds since `start`, restarting it.
fn lap(start: &mut Instant) -> f64 {
    let now = Instant::now();
    let seconds = now.duration_since(*start).as_secs_f64();
    *start = now;
    seconds
}

fn compile_step(
    dir: &Path,
    decision: &str,
    threads: usize,
    device: &Device,
    phases: &mut Phases,
) -> Result<Candidate, Failure> {
    let error = |e: String| (Status::Error, e);
    let mut clock = Instant::now();
    let ir = std::fs::read_to_string(dir.join("task.mlir")).map_err(|e| error(e.to_string()))?;
    let read_all = |prefix: &str| -> Vec<Tensor> {
        let mut out = Vec::new();
        while let Ok(t) = read_npy(dir.join(format!("{prefix}{}.npy", out.len()))) {
            out.push(t);
        }
        out
    };
    let inputs = read_all("in");
    let expected = read_all("out");
    phases.load = lap(&mut clock);
    let task = tb_tune::Task {
        key: String::new(),
        ir: ir.clone(),
        weight: 1,
        origin: String::new(),
    };
    // The device's space: the decision's indices are into the knobs built for it.
    let (space, _) = Space::of(&task, &device.machine()).map_err(error)?;
    let decision: Option<Vec<usize>> = if decision == "default" {
        None
    } else {
        Some(serde_json::from_str(decision).map_err(|e| error(format!("bad --decision: {e}")))?)
    };
    let description = decision
        .as_ref()
        .map_or("heuristic".to_string(), |d| space.describe(d));
    phases.space = lap(&mut clock);
    let spoilt = fault_hook(&description);
    let (mut ctx, module) = parse_module(&ir).map_err(error)?;
    space
        .lower(&mut ctx, module, decision.as_deref())
        .map_err(|e| error(format!("does not lower: {e}")))?;
    phases.lower = lap(&mut clock);
    let options = CompileOptions {
        target: device.options.clone(),
        threads: (threads > 1).then_some(threads),
        ..CompileOptions::default()
    };
    let compiled = CompiledModule::compile(&ctx, module, &options)
        .map_err(|d| error(format!("does not compile: {}", d.message)))?;
    phases.compile = lap(&mut clock);
    Ok(Candidate {
        compiled,
        inputs,
        expected,
        sampled: dir.join(SAMPLED_MARK).exists(),
        spoilt,
        threads,
    })
}

fn measure_step(candidate: &Candidate, phases: &mut Phases) -> Result<Measurement, Failure> {
    let error = |e: String| (Status::Error, e);
    let mut clock = Instant::now();
    let mut call = candidate
        .compiled
        .prepare(TASK_FUNCTION, &candidate.inputs)
        .map_err(|e| error(e.to_string()))?;
    call.run().map_err(|e| error(e.to_string()))?;
    let mut outputs = call.outputs().map_err(|e| error(e.to_string()))?;
    if candidate.spoilt {
        outputs = outputs.iter().map(spoil).collect();
    }
    if outputs.len() != candidate.expected.len() {
        return Err((Status::Wrong, "a different number of results".into()));
    }
    for (i, (actual, reference)) in outputs.iter().zip(&candidate.expected).enumerate() {
        let mismatch = first_mismatch(actual, reference, candidate.sampled, 1e-3, 1e-4)
            .map_err(|e| (Status::Wrong, format!("result {i} {e}")))?;
        if let Some((index, a, e)) = mismatch {
            return Err((
                Status::Wrong,
                format!("result {i} differs from the interpreter's at {index}: {a} vs {e}"),
            ));
        }
    }
    phases.check = lap(&mut clock);
    call.run().map_err(|e| error(e.to_string()))?;
    let mut flush = CacheFlush::new(candidate.threads);
    let mut runs = Vec::new();
    let budget = Instant::now();
    while runs.len() < 3 || (runs.len() < 20 && budget.elapsed() < Duration::from_millis(300)) {
        flush.run();
        let start = Instant::now();
        call.run().map_err(|e| error(e.to_string()))?;
        runs.push(start.elapsed().as_secs_f64());
    }
    phases.time = lap(&mut clock);
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    Ok(Measurement {
        status: Status::Ok,
        latency_s: Some(median),
        runs_s: runs,
        error: None,
    })
}
