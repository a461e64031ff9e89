//! Measuring tuning candidates with the CPU backend, each in a child process.
//!
//! The parent (`tb-tune`) prepares each task once: its module, seeded random inputs and the
//! interpreter's results, as files in a scratch directory (the tasks of a round are prepared
//! side by side, one per core). Each candidate is then measured by re-running the tool's
//! own executable with the hidden `--measure DIR --decision D` arguments ([`child`]): it
//! compiles the candidate, waits for its turn, checks its results against the
//! interpreter's, times it and prints one JSON line. While one candidate is timed the next
//! ones compile on the cores the timing leaves free ([`pipeline`]). A child that dies is a
//! `crash`, one still running at the time limit is killed and is a `timeout`, one whose
//! results differ is `wrong`; the tuner records it and goes on.
//!
//! For tests, the environment variable `TB_TUNE_FAULT=crash:TEXT` (or `hang:TEXT`) makes a
//! child abort (or never finish) when the candidate's description contains `TEXT` (an
//! empty `TEXT` matches every candidate, the heuristic included).

pub mod cache_flush;
pub mod child;
pub mod device;
pub mod phases;
pub mod pipeline;
pub mod reference;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::Interpreter;
use tb_interpreter::{Tensor, write_npy};
use tb_tune::search::{Measurement, Measurer, RecordSink};
use tb_tune::space::TunableTask;
use tb_tune::task::{TASK_FUNCTION, parse_module};
use tb_tune::{Database, Record, Status};

pub use child::measure_child;
pub use device::Device;
use phases::Phases;
use pipeline::{Job, Pacing, run_round};

/// The environment variable of the test-only fault hook.
pub const FAULT_VAR: &str = "TB_TUNE_FAULT";

/// Measures candidates in child processes of `exe`.
pub struct ChildMeasurer {
    pub exe: PathBuf,
    pub threads: usize,
    pub timeout: Duration,
    /// Cores the measurement may use: the timed candidate's threads and the compiling
    /// children together stay within them (default: this machine's).
    pub cores: usize,
    /// The phases of every candidate measured so far, in the order they finished (shared,
    /// so the tool can report them after the measurer is handed to the search).
    pub profile: Rc<RefCell<Vec<Phases>>>,
    /// The device's `--mcpu`/`--mattr` arguments, passed on to every child (empty: this
    /// machine as it is).
    pub device_args: Vec<String>,
    scratch: tempfile::TempDir,
    prepared: HashMap<String, Result<PathBuf, String>>,
}

/// The cores this process may run on.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl ChildMeasurer {
    pub fn new(exe: PathBuf, threads: usize, timeout: Duration) -> Result<ChildMeasurer, String> {
        Ok(ChildMeasurer {
            exe,
            threads,
            timeout,
            cores: available_cores(),
            profile: Rc::default(),
            device_args: Vec::new(),
            scratch: tempfile::tempdir()
                .map_err(|e| format!("cannot create a scratch directory: {e}"))?,
            prepared: HashMap::new(),
        })
    }

    /// Prepares the tasks of `wanted` not prepared yet, side by side on up to `cores`
    /// threads (the interpreter's reference run is the slow part).
    fn prepare(&mut self, wanted: &[&TunableTask]) {
        let mut todo: Vec<(&TunableTask, PathBuf)> = Vec::new();
        for task in wanted {
            let key = &task.task.key;
            if !self.prepared.contains_key(key) && !todo.iter().any(|(t, _)| &t.task.key == key) {
                todo.push((task, self.scratch.path().join(key)));
            }
        }
        let workers = self.cores.max(1).min(todo.len().max(1));
        let results: Vec<(String, Result<PathBuf, String>)> = std::thread::scope(|scope| {
            let chunks: Vec<Vec<(&TunableTask, PathBuf)>> = (0..workers)
                .map(|w| todo.iter().skip(w).step_by(workers).cloned().collect())
                .collect();
            let handles: Vec<_> = chunks
                .into_iter()
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .into_iter()
                            .map(|(t, dir)| (t.task.key.clone(), prepare_task(&dir, &t.task.ir)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("preparing a task does not panic"))
                .collect()
        });
        self.prepared.extend(results);
    }
}

/// Writes `DIR/task.mlir`, `DIR/in<i>.npy` (seeded random inputs) and `DIR/out<i>.npy`
/// (the interpreter's results; on a sample of the elements for a large task, which
/// `DIR/sampled` then marks: see [`reference`]).
fn prepare_task(dir: &Path, ir: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("task.mlir"), ir).map_err(|e| e.to_string())?;
    let run = |sample: bool| -> Result<(Vec<Tensor>, Vec<Tensor>, bool), String> {
        let (mut ctx, module) = parse_module(ir)?;
        let sampled =
            sample && reference::sample_iterations(&mut ctx, module, reference::SAMPLE_BUDGET);
        let mut interp = Interpreter::new(&ctx, module);
        let func = interp
            .function(TASK_FUNCTION)
            .ok_or("the task module has no @task")?;
        let inputs = random_arguments(&ctx, func, 7)?;
        let outputs = interp
            .run_function(TASK_FUNCTION, &inputs)
            .map_err(|d| format!("the interpreter fails on the task: {}", d.message))?;
        Ok((inputs, outputs, sampled))
    };
    let (mut inputs, mut outputs, mut sampled) = run(true)?;
    // Unwritten elements of a sampled result are told apart by their NaN poison only.
    if sampled && outputs.iter().any(|t| !t.dtype().is_float()) {
        (inputs, outputs, sampled) = run(false)?;
    }
    if sampled {
        std::fs::write(dir.join(reference::SAMPLED_MARK), "").map_err(|e| e.to_string())?;
    }
    for (i, t) in inputs.iter().enumerate() {
        write_npy(dir.join(format!("in{i}.npy")), t).map_err(|e| e.to_string())?;
    }
    for (i, t) in outputs.iter().enumerate() {
        write_npy(dir.join(format!("out{i}.npy")), t).map_err(|e| e.to_string())?;
    }
    Ok(dir.to_path_buf())
}

pub(crate) fn failed(status: Status, error: String) -> Measurement {
    Measurement {
        status,
        latency_s: None,
        runs_s: vec![],
        error: Some(error),
    }
}

impl Measurer for ChildMeasurer {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        // One candidate in hand (a worker's job) is measured even when a stop is requested.
        let batch = [(0, decision.map(<[usize]>::to_vec))];
        let mut out = None;
        let result = self.run(std::slice::from_ref(task), &batch, false, &mut |_, m| {
            out = Some(m);
            Ok(())
        });
        match (result, out) {
            (_, Some(m)) => m,
            (Err(why), None) => failed(Status::Error, why),
            (Ok(()), None) => failed(Status::Error, "the candidate was not measured".into()),
        }
    }

    fn measure_batch(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
    ) -> Result<Vec<Option<Measurement>>, String> {
        let mut out = vec![None; batch.len()];
        self.measure_each(tasks, batch, &mut |i, m| {
            out[i] = Some(m);
            Ok(())
        })?;
        Ok(out)
    }

    fn measure_each(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
        done: &mut dyn FnMut(usize, Measurement) -> Result<(), String>,
    ) -> Result<(), String> {
        self.run(tasks, batch, true, done)
    }
}

impl ChildMeasurer {
    /// Measures a round, pacing its children ([`pipeline`]); with `stoppable`, a stop
    /// request keeps the candidates not started yet from being measured.
    fn run(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
        stoppable: bool,
        done: &mut dyn FnMut(usize, Measurement) -> Result<(), String>,
    ) -> Result<(), String> {
        let wanted: Vec<&TunableTask> = batch.iter().map(|(i, _)| &tasks[*i]).collect();
        self.prepare(&wanted);
        let jobs: Vec<Job> = batch
            .iter()
            .map(|(i, decision)| Job {
                dir: self.prepared[&tasks[*i].task.key].clone(),
                decision: match decision {
                    Some(d) => serde_json::to_string(d).expect("indices serialize"),
                    None => "default".into(),
                },
            })
            .collect();
        let pacing = Pacing {
            exe: &self.exe,
            threads: self.threads.max(1),
            cores: self.cores,
            timeout: self.timeout,
            stoppable,
            device_args: &self.device_args,
        };
        let profile = &self.profile;
        run_round(&pacing, &jobs, &mut |i, m, phases| {
            profile.borrow_mut().push(phases);
            done(i, m)
        })
    }
}

/// The measurement in a child's JSON line.
pub(crate) fn parse_child_output(line: &str) -> Measurement {
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

/// Records go to the database, one transaction each.
pub struct DatabaseSink<'a>(pub &'a mut Database);

impl RecordSink for DatabaseSink<'_> {
    fn add(&mut self, task: &TunableTask, record: &Record) -> Result<(), String> {
        self.0.add(record, &task.summary, &task.task.ir)
    }
}

/// The target this process compiles for, with `threads`.
pub fn host_target(threads: usize) -> tb_tune::TargetKey {
    Device::host(threads).key
}

/// `tb-run --db`: lowers `module` with the CPU pipeline's front half and applies the best
/// record of each kernel for the device `--mcpu`/`--mattr` name (`None`: this machine)
/// with `threads`; returns the explanation lines for `--explain`.
pub fn apply_database(
    ctx: &mut tb_ir::Context,
    module: tb_ir::OpId,
    db_path: &Path,
    mcpu: Option<&str>,
    mattr: Option<&str>,
    threads: usize,
) -> Result<Vec<String>, String> {
    let target = Device::resolve(mcpu, mattr, threads)?.key;
    let db = Database::open(db_path)?;
    tb_tune::task::run_pipeline(ctx, module, tb_tune::FRONT_PIPELINE)?;
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

/// The sampled decisions of `task`'s space that the lowering refuses: `samples` random
/// decisions and as many mutations and crossovers of them, each applied with the rest of
/// the CPU pipeline and, with `compile`, compiled by the CPU backend for `device`'s CPU
/// and features. Returns each refused decision's description and the reason.
pub fn refused_decisions(
    task: &TunableTask,
    samples: usize,
    seed: u64,
    compile: Option<&Device>,
) -> Vec<(String, String)> {
    let space = &task.space;
    let mut rng = tb_passes::schedule::Rng::seeded(seed);
    let mut decisions: Vec<Vec<usize>> = Vec::new();
    for _ in 0..samples {
        let Some(d) = space.sample(&mut rng) else {
            break;
        };
        if let Some(m) = space.mutate(&d, &mut rng) {
            decisions.push(m);
        }
        if let Some(e) = space.sample(&mut rng)
            && let Some(c) = space.crossover(&d, &e, &mut rng)
        {
            decisions.push(c);
        }
        decisions.push(d);
    }
    decisions.sort();
    decisions.dedup();
    let mut refused = Vec::new();
    for d in decisions {
        let lowered = parse_module(&task.task.ir).and_then(|(mut ctx, module)| {
            space.lower(&mut ctx, module, Some(&d))?;
            tb_ir::verifier::verify(&ctx, module).map_err(|d| d.message)?;
            if let Some(device) = compile {
                tb_backends::cpu::CompiledModule::compile(
                    &ctx,
                    module,
                    &tb_backends::cpu::CompileOptions {
                        target: device.options.clone(),
                        ..tb_backends::cpu::CompileOptions::default()
                    },
                )
                .map_err(|e| e.message)?;
            }
            Ok(())
        });
        if let Err(why) = lowered {
            refused.push((space.describe(&d), why));
        }
    }
    refused
}
