//! Measuring tuning candidates with the CPU backend, each in a child process.
//!
//! The parent (`tb-tune`) prepares each task once: its module, seeded random inputs and the
//! interpreter's results, as files in a scratch directory. Each candidate is then measured
//! by re-running the tool's own executable with the hidden `--measure DIR --decision D`
//! arguments ([`measure_child`]): it compiles the candidate, checks its results against the
//! interpreter's, times it (one warm-up run, then the median of at least 3 runs and up to
//! 20 or 0.3 s of runs, each after a 16 MiB write that flushes the caches) and prints one
//! JSON line. A child that dies is a `crash`, one still running at the time limit is killed
//! and is a `timeout`, one whose results differ is `wrong`; the tuner records it and goes
//! on.
//!
//! For tests, the environment variable `TB_TUNE_FAULT=crash:TEXT` (or `hang:TEXT`) makes a
//! child abort (or never finish) when the candidate's description contains `TEXT` (an
//! empty `TEXT` matches every candidate, the heuristic included).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::Interpreter;
use tb_interpreter::{Tensor, read_npy, write_npy};
use tb_passes::schedule::Target;
use tb_tune::search::{Measurement, Measurer, RecordSink};
use tb_tune::space::{Space, TunableTask};
use tb_tune::task::{TASK_FUNCTION, parse_module};
use tb_tune::{Database, Record, Status};

use crate::compare::compare;

/// The environment variable of the test-only fault hook.
pub const FAULT_VAR: &str = "TB_TUNE_FAULT";

/// Measures candidates in child processes of `exe`.
pub struct ChildMeasurer {
    pub exe: PathBuf,
    pub threads: usize,
    pub timeout: Duration,
    scratch: tempfile::TempDir,
    prepared: HashMap<String, Result<PathBuf, String>>,
}

impl ChildMeasurer {
    pub fn new(exe: PathBuf, threads: usize, timeout: Duration) -> Result<ChildMeasurer, String> {
        Ok(ChildMeasurer {
            exe,
            threads,
            timeout,
            scratch: tempfile::tempdir()
                .map_err(|e| format!("cannot create a scratch directory: {e}"))?,
            prepared: HashMap::new(),
        })
    }

    fn prepare(&mut self, task: &TunableTask) -> Result<PathBuf, String> {
        let dir = self.scratch.path().join(&task.task.key);
        let result = self
            .prepared
            .entry(task.task.key.clone())
            .or_insert_with(|| prepare_task(&dir, &task.task.ir));
        result.clone()
    }
}

/// Writes `DIR/task.mlir`, `DIR/in<i>.npy` (seeded random inputs) and `DIR/out<i>.npy`
/// (the interpreter's results).
fn prepare_task(dir: &Path, ir: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("task.mlir"), ir).map_err(|e| e.to_string())?;
    let (ctx, module) = parse_module(ir)?;
    let mut interp = Interpreter::new(&ctx, module);
    let func = interp
        .function(TASK_FUNCTION)
        .ok_or("the task module has no @task")?;
    let inputs = random_arguments(&ctx, func, 7)?;
    let outputs = interp
        .run_function(TASK_FUNCTION, &inputs)
        .map_err(|d| format!("the interpreter fails on the task: {}", d.message))?;
    for (i, t) in inputs.iter().enumerate() {
        write_npy(dir.join(format!("in{i}.npy")), t).map_err(|e| e.to_string())?;
    }
    for (i, t) in outputs.iter().enumerate() {
        write_npy(dir.join(format!("out{i}.npy")), t).map_err(|e| e.to_string())?;
    }
    Ok(dir.to_path_buf())
}

fn failed(status: Status, error: String) -> Measurement {
    Measurement {
        status,
        latency_s: None,
        runs_s: vec![],
        error: Some(error),
    }
}

impl Measurer for ChildMeasurer {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        let dir = match self.prepare(task) {
            Ok(dir) => dir,
            Err(why) => return failed(Status::Error, why),
        };
        let decision_arg = match decision {
            Some(d) => serde_json::to_string(d).expect("indices serialize"),
            None => "default".into(),
        };
        use std::os::unix::process::CommandExt;
        let child = Command::new(&self.exe)
            // Its own process group: a Ctrl-C at the terminal stops the tuner cleanly
            // (after this measurement) instead of killing the measurement as a crash.
            .process_group(0)
            .arg("--measure")
            .arg(&dir)
            .arg("--decision")
            .arg(&decision_arg)
            .arg("--threads")
            .arg(self.threads.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                return failed(
                    Status::Error,
                    format!("cannot start the measuring process: {e}"),
                );
            }
        };
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return failed(
                        Status::Timeout,
                        format!("killed after {:.1} s", self.timeout.as_secs_f64()),
                    );
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    return failed(
                        Status::Error,
                        format!("cannot wait for the measuring process: {e}"),
                    );
                }
            }
        };
        let mut stdout = String::new();
        let mut stderr = String::new();
        if let Some(mut s) = child.stdout.take() {
            let _ = s.read_to_string(&mut stdout);
        }
        if let Some(mut s) = child.stderr.take() {
            let _ = s.read_to_string(&mut stderr);
        }
        if !status.success() {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return failed(
                    Status::Crash,
                    format!("the measuring process died of signal {signal}"),
                );
            }
            let last = stderr.lines().last().unwrap_or("").to_string();
            return failed(
                Status::Error,
                format!("the measuring process failed: {last}"),
            );
        }
        parse_child_output(&stdout)
    }
}

fn parse_child_output(stdout: &str) -> Measurement {
    let Some(line) = stdout.lines().rev().find(|l| l.starts_with('{')) else {
        return failed(
            Status::Error,
            "the measuring process printed no result".into(),
        );
    };
    let value: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return failed(Status::Error, format!("unreadable measurement: {e}")),
    };
    let status = value["status"]
        .as_str()
        .and_then(Status::parse)
        .unwrap_or(Status::Error);
    Measurement {
        status,
        latency_s: value["latency_s"].as_f64(),
        runs_s: value["runs_s"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default(),
        error: value["error"].as_str().map(str::to_owned),
    }
}

/// The child's side: measures one candidate of the task prepared in `dir` and prints
/// its measurement as one JSON line.
pub fn measure_child(dir: &Path, decision: &str, threads: usize) -> String {
    let m = match measure_here(dir, decision, threads) {
        Ok(m) => m,
        Err((status, why)) => failed(status, why),
    };
    serde_json::json!({
        "status": m.status.as_str(),
        "latency_s": m.latency_s,
        "runs_s": m.runs_s,
        "error": m.error,
    })
    .to_string()
}

fn fault_hook(description: &str) {
    let Ok(fault) = std::env::var(FAULT_VAR) else {
        return;
    };
    let (kind, text) = fault.split_once(':').unwrap_or((fault.as_str(), ""));
    if !description.contains(text) {
        return;
    }
    match kind {
        "crash" => std::process::abort(),
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        _ => {}
    }
}

fn measure_here(
    dir: &Path,
    decision: &str,
    threads: usize,
) -> Result<Measurement, (Status, String)> {
    let error = |e: String| (Status::Error, e);
    let ir = std::fs::read_to_string(dir.join("task.mlir")).map_err(|e| error(e.to_string()))?;
    let read_all = |prefix: &str| -> Result<Vec<Tensor>, (Status, String)> {
        let mut out = Vec::new();
        while let Ok(t) = read_npy(dir.join(format!("{prefix}{}.npy", out.len()))) {
            out.push(t);
        }
        Ok(out)
    };
    let inputs = read_all("in")?;
    let expected = read_all("out")?;
    let task = tb_tune::Task {
        key: String::new(),
        ir: ir.clone(),
        weight: 1,
        origin: String::new(),
    };
    let (space, _) = Space::of(&task, &Target::host()).map_err(error)?;
    let decision: Option<Vec<usize>> = if decision == "default" {
        None
    } else {
        Some(serde_json::from_str(decision).map_err(|e| error(format!("bad --decision: {e}")))?)
    };
    let description = decision
        .as_ref()
        .map_or("heuristic".to_string(), |d| space.describe(d));
    fault_hook(&description);
    let (mut ctx, module) = parse_module(&ir).map_err(error)?;
    space
        .lower(&mut ctx, module, decision.as_deref())
        .map_err(|e| error(format!("does not lower: {e}")))?;
    let options = CompileOptions {
        threads: (threads > 1).then_some(threads),
        ..CompileOptions::default()
    };
    let compiled = CompiledModule::compile(&ctx, module, &options)
        .map_err(|d| error(format!("does not compile: {}", d.message)))?;
    let mut call = compiled
        .prepare(TASK_FUNCTION, &inputs)
        .map_err(|e| error(e.to_string()))?;
    call.run().map_err(|e| error(e.to_string()))?;
    let outputs = call.outputs().map_err(|e| error(e.to_string()))?;
    if outputs.len() != expected.len() {
        return Err((Status::Wrong, "a different number of results".into()));
    }
    for (i, (actual, reference)) in outputs.iter().zip(&expected).enumerate() {
        let c = compare(actual, reference, 1e-3, 1e-4)
            .map_err(|e| (Status::Wrong, format!("result {i} {e}")))?;
        if let Some((index, a, e)) = c.first_mismatch {
            return Err((
                Status::Wrong,
                format!("result {i} differs from the interpreter's at {index}: {a} vs {e}"),
            ));
        }
    }
    call.run().map_err(|e| error(e.to_string()))?;
    let mut flush = vec![0u8; 16 << 20];
    let mut runs = Vec::new();
    let budget = Instant::now();
    while runs.len() < 3 || (runs.len() < 20 && budget.elapsed() < Duration::from_millis(300)) {
        for (i, b) in flush.iter_mut().enumerate() {
            *b = b.wrapping_add(i as u8);
        }
        std::hint::black_box(&flush);
        let start = Instant::now();
        call.run().map_err(|e| error(e.to_string()))?;
        runs.push(start.elapsed().as_secs_f64());
    }
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

/// Records go to the database, one transaction each.
pub struct DatabaseSink<'a>(pub &'a mut Database);

impl RecordSink for DatabaseSink<'_> {
    fn add(&mut self, task: &TunableTask, record: &Record) -> Result<(), String> {
        self.0.add(record, &task.summary, &task.task.ir)
    }
}

/// The target this process compiles for, with `threads`.
pub fn host_target(threads: usize) -> tb_tune::TargetKey {
    let (cpu, features) = tb_backends::cpu::TargetOptions::host().resolve();
    tb_tune::TargetKey {
        cpu,
        features,
        threads: threads.max(1),
    }
}

/// `tb-run --db`: lowers `module` with the CPU pipeline's front half and applies the best
/// record of each kernel; returns the explanation lines for `--explain`.
pub fn apply_database(
    ctx: &mut tb_ir::Context,
    module: tb_ir::OpId,
    db_path: &Path,
    threads: usize,
) -> Result<Vec<String>, String> {
    let db = Database::open(db_path)?;
    tb_tune::task::run_pipeline(ctx, module, tb_tune::FRONT_PIPELINE)?;
    let target = host_target(threads);
    let explained = tb_tune::apply::apply_records(ctx, module, &db, &target)?;
    Ok(explained
        .into_iter()
        .map(|e| {
            format!(
                "{} task {}: {}",
                e.kernel,
                e.task_key.as_deref().unwrap_or("-"),
                e.choice
            )
        })
        .collect())
}
