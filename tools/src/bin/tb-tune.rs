//! `tb-tune`: tunes the kernels of a model for this machine and keeps what it measures in
//! a database that `tb-run --db` applies.
//!
//! The model (ONNX or MLIR) is lowered to loop nests; each distinct nest is a task. Each
//! task is measured with the heuristic schedule, then candidates chosen by a model-guided
//! evolutionary search (or at random with `--random`, or written by the schedule
//! generator with `--model tlm`, pretrained with `--pretrain`) are compiled and timed,
//! each in a child process, until `--trials` measurements are spent; every trial is
//! written to the database as it completes. A per-task table ends the run; `--report`
//! also runs the random, tree-guided and TLM searches of the same budget and plots them.
//!
//! On a PostgreSQL database, `--workers` makes this process a coordinator that queues
//! candidates for workers (`tb-tune worker`) on any machine of each target it tunes for
//! (`--target auto|all|TARGET`: its own, every registered one, or a named one);
//! `tb-tune status` reports the queue, the workers and the best latencies.
//!
//! `tb-tune score` trains the ranker on the records of some databases and reports its
//! TenSet-style top-1 and top-5 scores on the tasks of others.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use tb_tools::load::{load_mlir, load_onnx, parse_input_shapes};
use tb_tools::tuning::{
    ChildMeasurer, DatabaseSink, Device, host_target, measure_child, refused_decisions,
};
use tb_tune::Database;
use tb_tune::coordinator::{FleetTarget, QueueMeasurer, resolve_targets};
use tb_tune::cost_model::ModelKind;
use tb_tune::dataset::DeviceRecords;
use tb_tune::search::{SearchOptions, SearchResult, tune};
use tb_tune::space::{Space, TunableTask};
use tb_tune::synthetic::SyntheticMeasurer;
use tb_tune::target::{Machine, TargetKey};
use tb_tune::task::{FRONT_PIPELINE, run_pipeline, tasks};
use tb_tune::tlm::Generator;
use tb_tune::worker::{WorkerOptions, run_worker};

#[derive(Parser, Debug)]
#[command(
    name = "tb-tune",
    version,
    about = "TensorBind auto-tuner: measure schedules of a model's kernels into a tuning database",
    after_help = "Also: `tb-tune worker --db postgres://...` measures queued jobs for this machine; `tb-tune status --db FILE|URL` shows a database's queue, workers and best latencies; `tb-tune score --train A.db --test B.db` scores the ranker on held-out tasks."
)]
struct Args {
    /// The model: an ONNX file (`.onnx`) or an MLIR module at any level.
    #[arg(required_unless_present_any = ["measure", "export", "import", "export_dataset"])]
    model: Option<String>,
    /// Measurements to spend, the heuristic schedule of each task included.
    #[arg(long, default_value_t = 64)]
    trials: usize,
    /// The tuning database: a SQLite file (created if missing) or `postgres://user@host/db`
    /// (password from PGPASSWORD or ~/.pgpass).
    #[arg(long, value_name = "FILE|URL", default_value = "tuning.db")]
    db: PathBuf,
    /// Coordinate workers through the database's job queue (PostgreSQL) instead of
    /// measuring here: `auto` starts one local worker per core, `N` starts N, `0` only
    /// queues (for workers started elsewhere).
    #[arg(long, value_name = "auto|N")]
    workers: Option<String>,
    /// Candidates queued per round when coordinating (default: 4 or the local workers).
    #[arg(long)]
    batch: Option<usize>,
    /// Times a job is handed out again after its worker is lost before it is recorded as
    /// failed.
    #[arg(long, default_value_t = 3)]
    max_attempts: u32,
    /// With --workers, the targets to tune for (repeatable): `auto`, this machine's (with
    /// --threads); `all`, every target whose workers have registered in the database (and
    /// this machine's when local workers start); or one target by its number in
    /// `tb-tune status` (`#2`), its full key, or a CPU model that names one target. Each
    /// target is tuned in search spaces built for the machine its workers described.
    #[arg(long, value_name = "auto|all|TARGET", default_value = "auto")]
    target: Vec<String>,
    /// Threads the kernels run on (part of the target: records answer for this count only).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The CPU to generate code for: this machine's (`native`, the default) or an x86-64
    /// level whose features it has (`x86-64-v2`, `x86-64-v3`, ...); part of the target.
    #[arg(long, value_name = "NAME")]
    mcpu: Option<String>,
    /// Features turned on or off (`-avx512f`: an AVX2 device on an AVX-512 machine); part
    /// of the target, and a feature this machine lacks is refused.
    #[arg(long, value_name = "FEATURES", allow_hyphen_values = true)]
    mattr: Option<String>,
    /// Cores the measurement may use: the next candidates compile while one is timed, on
    /// the cores its threads leave free (default: this machine's; with as many as
    /// `--threads`, compiling and timing take turns).
    #[arg(long, value_name = "N")]
    cores: Option<usize>,
    /// Random search instead of the model-guided one.
    #[arg(long)]
    random: bool,
    /// The model of the model-guided search: `tree` (gradient-boosted trees over loop
    /// features) or `transformer` (attention over tensor sentences) rank an evolutionary
    /// search's candidates, and `ensemble` ranks them by both (their scores summed after
    /// scaling); `tlm` generates the candidates with a schedule generator. With
    /// --translate-from: the model that ranks the translated records (`tree`,
    /// `transformer` or `ensemble`).
    #[arg(long = "model", value_name = "tree|transformer|ensemble|tlm", default_value = "tree", value_parser = ["tree", "transformer", "ensemble", "tlm"])]
    cost_model: String,
    /// With --model tlm: start the schedule generator from one pretrained on the records
    /// of a tuning database (of this target: this machine with --threads), or from a
    /// generator saved with --save-generator (`.json`).
    #[arg(long, value_name = "FILE.db|FILE.json")]
    pretrain: Option<String>,
    /// With --pretrain FILE.db: also save the pretrained generator (JSON, with its
    /// tokenizer version) for later runs' --pretrain.
    #[arg(
        long = "save-generator",
        value_name = "FILE.json",
        requires = "pretrain"
    )]
    save_generator: Option<PathBuf>,
    /// Also run the other searches of the same budget (random, tree-guided and TLM, each
    /// from no earlier records) and plot best-so-far latency against trials for all (SVG).
    #[arg(long, value_name = "FILE.svg")]
    report: Option<PathBuf>,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds one measurement may take (compilation included) before it is killed.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// ONNX inputs with dynamic dimensions: their shape, e.g. `input_ids=1x128`.
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shapes: Vec<String>,
    /// List the model's tasks and their knobs, and exit.
    #[arg(long = "list-tasks")]
    list_tasks: bool,
    /// With --list-tasks: also write each task's module to DIR/<task>.mlir (a task module
    /// is a model `tb-tune` tunes on its own).
    #[arg(long = "dump-tasks", value_name = "DIR", requires = "list_tasks")]
    dump_tasks: Option<PathBuf>,
    /// With --list-tasks: apply N random decisions of each task's space (and a mutation
    /// and a crossover of each) with the rest of the CPU pipeline, report every one the
    /// lowering refuses, and fail if any is.
    #[arg(long = "check-spaces", value_name = "N", requires = "list_tasks")]
    check_spaces: Option<usize>,
    /// With --check-spaces: also compile each decision with the CPU backend.
    #[arg(long = "check-compile", requires = "check_spaces")]
    check_compile: bool,
    /// Write every record of the database as JSON lines to FILE, and exit.
    #[arg(long, value_name = "FILE.jsonl")]
    export: Option<PathBuf>,
    /// Write every record with a decision as a JSON line with its tensor sentence, target,
    /// ISA and label (the sequence models' data set), and exit.
    #[arg(long, value_name = "FILE.jsonl")]
    export_dataset: Option<PathBuf>,
    /// Record translation: propose each task's schedule on this device from the
    /// database's records of other targets (repeatable: an ISA class `avx512`, `avx2`,
    /// `sse` at the same thread count, a full target key, or `others`), measure the
    /// zero-shot proposal and the first `--shots`, and compare them with this device's
    /// tuned best.
    #[arg(long, value_name = "ISA|KEY|others")]
    translate_from: Vec<String>,
    /// With --translate-from: the measurements of few-shot translation per task.
    #[arg(long, default_value_t = 8)]
    shots: usize,
    /// Add the records of a JSON-lines export to the database, and exit.
    #[arg(long, value_name = "FILE.jsonl")]
    import: Option<PathBuf>,
    /// Internal: measure one candidate of the task prepared in DIR (the child process).
    #[arg(long, hide = true, value_name = "DIR")]
    measure: Option<PathBuf>,
    /// Internal: the candidate's decision (JSON indices, or `default`).
    #[arg(long, hide = true, default_value = "default")]
    decision: String,
}

/// `tb-tune worker`: measures jobs of the queue for this machine's target.
#[derive(Parser, Debug)]
#[command(
    name = "tb-tune worker",
    about = "Measure queued tuning jobs for this machine's target"
)]
struct WorkerArgs {
    /// The database: `postgres://user@host/db`.
    #[arg(long, value_name = "URL")]
    db: String,
    /// The target whose jobs to take: `auto`, this machine's. A synthetic worker
    /// (--synthetic) may stand in for another target, given by its key
    /// (`CPU|FEATURES|threads=N`), to test a fleet of several targets on one machine.
    #[arg(long, default_value = "auto")]
    target: String,
    /// Threads the kernels run on (part of the target).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seconds one measurement may take before it is killed.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Seconds of a job's lease (renewed every third of it while the job is measured).
    #[arg(long, default_value_t = 30.0)]
    lease: f64,
    /// Exit after this many seconds without a job (default: wait until stopped).
    #[arg(long, value_name = "SECONDS")]
    idle_exit: Option<f64>,
    /// Exit after this many jobs.
    #[arg(long)]
    max_jobs: Option<usize>,
    /// Seconds to keep reconnecting to an unreachable server before giving up.
    #[arg(long, default_value_t = 300.0)]
    reconnect_for: f64,
    /// The worker's name (default: host:pid).
    #[arg(long)]
    name: Option<String>,
    /// Test and benchmark mode: no compilation; each job waits MS milliseconds and
    /// reports a latency hashed from its decision (records say `synthetic`).
    #[arg(long, value_name = "MS")]
    synthetic: Option<f64>,
}

/// `tb-tune status`: the queue, the workers and the best latencies of a database.
#[derive(Parser, Debug)]
#[command(
    name = "tb-tune status",
    about = "Show a tuning database's queue, workers and best latencies"
)]
struct StatusArgs {
    #[arg(long, value_name = "FILE|URL")]
    db: String,
}

/// `tb-tune score`: the ranker's TenSet-style top-k scores on held-out tasks.
#[derive(Parser, Debug)]
#[command(
    name = "tb-tune score",
    about = "Train the ranker on the records of some databases and score it on the tasks of others"
)]
struct ScoreArgs {
    /// Databases whose records train the ranker (repeatable).
    #[arg(long, value_name = "FILE|URL", required = true)]
    train: Vec<String>,
    /// Databases whose tasks are scored (repeatable); a task also in a training database
    /// is left out, so every scored task is unseen.
    #[arg(long, value_name = "FILE|URL", required = true)]
    test: Vec<String>,
    /// The thread count of the records to use (part of the target).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The CPU of the records to use (as `tb-tune --mcpu`).
    #[arg(long, value_name = "NAME")]
    mcpu: Option<String>,
    /// The features of the records to use (as `tb-tune --mattr`).
    #[arg(long, value_name = "FEATURES", allow_hyphen_values = true)]
    mattr: Option<String>,
    /// The ranker: `tree` (gradient-boosted trees over loop features), `transformer`
    /// (attention over tensor sentences) or `ensemble` (both, their scores summed after
    /// scaling; each member's figures are printed too).
    #[arg(long = "model", value_name = "tree|transformer|ensemble", default_value = "tree", value_parser = ["tree", "transformer", "ensemble"])]
    cost_model: String,
    /// Transfer: pretrain the transformer on the other targets' records of the training
    /// databases, fine-tune it on this share (seeded) of this target's training records,
    /// and report it next to models trained on all of them and on the share alone.
    #[arg(long, value_name = "FRACTION")]
    fine_tune_fraction: Option<f64>,
    /// Seed of training and of the fine-tuning selection.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Append each training run (seed, sizes, epochs, loss, figures) as a JSON line.
    #[arg(long, value_name = "FILE.jsonl")]
    log: Option<PathBuf>,
    /// The network the held-out tasks come from (ONNX or MLIR): its TenSet-style scores
    /// weight each task by the times it occurs there (without it, each task counts once).
    #[arg(long, value_name = "MODEL")]
    network: Option<String>,
    /// With --network: shapes of its inputs with dynamic dimensions (as `tb-tune`).
    #[arg(long = "input-shape", value_name = "NAME=AxBxC", requires = "network")]
    input_shapes: Vec<String>,
}

/// `model` (ONNX or MLIR) read and lowered to the loop level, where its tasks are.
fn load_loop_level(model: &str, input_shapes: &[String]) -> Result<tb_tools::load::Loaded, String> {
    let mut loaded = if tb_tools::load::is_onnx(model) {
        load_onnx(model, parse_input_shapes(input_shapes)?)?
    } else {
        let text =
            std::fs::read_to_string(model).map_err(|e| format!("cannot read '{model}': {e}"))?;
        load_mlir(&text, model)?
    };
    run_pipeline(&mut loaded.ctx, loaded.module, FRONT_PIPELINE)
        .map_err(|e| format!("{model}: cannot lower to loops: {e}"))?;
    Ok(loaded)
}

/// How many times each task (by key) occurs in `model` once it is lowered to loops.
fn task_weights(
    model: &str,
    input_shapes: &[String],
) -> Result<std::collections::HashMap<String, usize>, String> {
    let mut loaded = load_loop_level(model, input_shapes)?;
    Ok(tasks(&mut loaded.ctx, loaded.module)
        .into_iter()
        .map(|t| (t.key, t.weight))
        .collect())
}

fn main() -> ExitCode {
    // candle (the transformer and the schedule generator) runs its CPU kernels on a pool of
    // spinning threads, one per core; their matrices are small, and on a machine whose cores
    // measure or serve other jobs the spinning threads wait for each other (one thread
    // trained the generator 4 times faster at a load average of 6 on 2 cores). One thread
    // unless the user asks for more.
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        // SAFETY: the first statement of `main`, before any thread is started.
        unsafe { std::env::set_var("CANDLE_NUM_THREADS", "1") };
    }
    let first = std::env::args().nth(1);
    // `score` writes no database, and its training would not look at a stop request: a
    // signal ends it at once.
    if !matches!(first.as_deref(), Some("--measure" | "score")) {
        tb_tune::stop::install();
    }
    let result = match first.as_deref() {
        Some("worker") => worker(&WorkerArgs::parse_from(std::env::args().skip(1))),
        Some("status") => status(&StatusArgs::parse_from(std::env::args().skip(1))),
        Some("score") => score(&ScoreArgs::parse_from(std::env::args().skip(1))),
        _ => {
            let args = Args::parse();
            if let Some(dir) = &args.measure {
                let device = match Device::resolve(
                    args.mcpu.as_deref(),
                    args.mattr.as_deref(),
                    args.threads,
                ) {
                    Ok(d) => d,
                    Err(e) => {
                        eprintln!("tb-tune: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                measure_child(dir, &args.decision, args.threads, &device);
                return ExitCode::SUCCESS;
            }
            run(&args)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tb-tune: {message}");
            ExitCode::FAILURE
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

fn worker(args: &WorkerArgs) -> Result<(), String> {
    let (target, machine) = match (args.target.as_str(), args.synthetic) {
        ("auto", _) => (host_target(args.threads), Machine::host()),
        (key, Some(_)) => {
            let key = TargetKey::parse(key).map_err(|e| format!("--target {key}: {e}"))?;
            let machine = key.assumed_machine();
            (key, machine)
        }
        (key, None) => {
            return Err(format!(
                "--target {key}: a worker measures for the machine it runs on; only `auto` is accepted (a synthetic worker, --synthetic, may stand in for a target key `CPU|FEATURES|threads=N`)"
            ));
        }
    };
    let positive = |name: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(format!("--{name} must be a positive number of seconds"))
        }
    };
    let options = WorkerOptions {
        location: args.db.clone(),
        target,
        machine,
        name: args
            .name
            .clone()
            .unwrap_or_else(|| format!("{}:{}", hostname(), std::process::id())),
        host: hostname(),
        lease: positive("lease", args.lease)?,
        reconnect_for: positive("reconnect-for", args.reconnect_for)?,
        idle_exit: args
            .idle_exit
            .map(|s| positive("idle-exit", s))
            .transpose()?,
        max_jobs: args.max_jobs,
        synthetic: args.synthetic.is_some(),
    };
    if !tb_tune::database::postgres::is_postgres(&options.location) {
        return Err(format!(
            "--db {}: workers take jobs from a PostgreSQL queue (--db postgres://...)",
            options.location
        ));
    }
    let mut measurer: Box<dyn tb_tune::Measurer> = match args.synthetic {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Box::new(SyntheticMeasurer {
            work: Duration::from_secs_f64(ms / 1e3),
        }),
        Some(_) => return Err("--synthetic must be a non-negative number of milliseconds".into()),
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| format!("cannot find my own executable: {e}"))?;
            Box::new(ChildMeasurer::new(
                exe,
                args.threads,
                positive("timeout", args.timeout)?,
            )?)
        }
    };
    let name = options.name.clone();
    eprintln!(
        "worker {name}: measuring for {} from {}",
        options.target.describe(),
        tb_tune::database::postgres::display(&options.location)
    );
    let summary = run_worker(&options, measurer.as_mut(), &mut |m| {
        eprintln!("worker {name}: {m}")
    })?;
    eprintln!(
        "worker {name}: stopped{}: {} recorded, {} rejected, {} leases lost, {} reconnects",
        match tb_tune::stop::signal() {
            0 => String::new(),
            s => format!(" on signal {s}"),
        },
        summary.recorded,
        summary.rejected,
        summary.leases_lost,
        summary.reconnects
    );
    Ok(())
}

fn status(args: &StatusArgs) -> Result<(), String> {
    let db = Database::connect(&args.db)?;
    print!(
        "{}",
        tb_tune::status::report(&db).map_err(|e| format!("{}: {e}", db.location()))?
    );
    for warning in db.take_warnings() {
        eprintln!("tb-tune: warning: {warning}");
    }
    Ok(())
}

/// Every target's records in the databases at `locations`, each task with its space on
/// its target.
fn device_records(locations: &[String]) -> Result<Vec<DeviceRecords>, String> {
    let mut devices = Vec::new();
    for location in locations {
        if !tb_tune::database::postgres::is_postgres(location) && !Path::new(location).exists() {
            return Err(format!("{location}: no such database"));
        }
        let db = Database::connect(location)?;
        let rows = db.select("", &[])?;
        for warning in db.take_warnings() {
            eprintln!("tb-tune: warning: {warning}");
        }
        tb_tune::dataset::add_rows(&mut devices, rows, location)?;
    }
    Ok(devices)
}

/// The records of `target` among `devices` (none: an empty set).
fn records_of(devices: &[DeviceRecords], target: &TargetKey) -> DeviceRecords {
    devices
        .iter()
        .find(|d| d.target == *target)
        .cloned()
        .unwrap_or(DeviceRecords {
            target: target.clone(),
            tasks: vec![],
            records: vec![],
        })
}

fn score(args: &ScoreArgs) -> Result<(), String> {
    if let Some(fraction) = args.fine_tune_fraction {
        if args.cost_model != "transformer" {
            return Err("--fine-tune-fraction: transfer fine-tunes the transformer (--model transformer); the tree ranker's features carry no hardware".into());
        }
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(format!(
                "--fine-tune-fraction {fraction}: expected a share above 0 and at most 1"
            ));
        }
    }
    let weights = match &args.network {
        Some(model) => {
            Some(task_weights(model, &args.input_shapes).map_err(|e| format!("--network: {e}"))?)
        }
        None => None,
    };
    let device = Device::resolve(args.mcpu.as_deref(), args.mattr.as_deref(), args.threads)?;
    let target = device.key.clone();
    let train_devices = device_records(&args.train)?;
    let train = records_of(&train_devices, &target);
    let mut test = records_of(&device_records(&args.test)?, &target);
    // Unseen: a task of any target of a training database is left out.
    test.tasks.retain(|t| {
        !train_devices
            .iter()
            .any(|d| d.tasks.iter().any(|s| s.task.key == t.task.key))
    });
    if train.successes() < 8 {
        return Err(format!(
            "too few successful records of {} to train the ranker on ({} in the training databases)",
            device.describe(),
            train.successes()
        ));
    }
    let mut log = match &args.log {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot write '{}': {e}", path.display()))?,
        ),
        None => None,
    };
    let mut write_log = |run: &tb_tune::transfer::TrainRun| -> Result<(), String> {
        eprintln!(
            "{} {} on {} records ({} sentences, {} groups), seed {}, {} epochs, loss {} -> {}, {:.1} s: held-out top-1 {:.3}, top-5 {:.3} on {} tasks",
            run.model,
            run.what,
            run.records,
            run.sentences,
            run.groups,
            run.seed,
            run.epochs,
            run.first_loss.map_or("-".into(), |l| format!("{l:.4}")),
            run.last_loss.map_or("-".into(), |l| format!("{l:.4}")),
            run.seconds,
            run.top1,
            run.top5,
            run.held_out_tasks
        );
        if let Some(file) = log.as_mut() {
            let line = serde_json::to_string(run).expect("a run serializes");
            writeln!(file, "{line}").map_err(|e| format!("cannot write the log: {e}"))?;
        }
        Ok(())
    };
    if let Some(fraction) = args.fine_tune_fraction {
        let others: Vec<DeviceRecords> = train_devices
            .iter()
            .filter(|d| d.target != target)
            .cloned()
            .collect();
        if others.is_empty() {
            return Err(format!(
                "--fine-tune-fraction: the training databases hold records of {} only; pretraining needs other devices' records",
                device.describe()
            ));
        }
        let options = tb_tune::transfer::TransferOptions::new(fraction, args.seed);
        let t = tb_tune::transfer::transfer(&others, &train, &test, &options)?;
        for run in [&t.all, &t.scratch, &t.pretrained, &t.fine_tuned] {
            write_log(run)?;
        }
        println!(
            "transfer to {} (pretrained on {} records of {} other targets; {} held-out tasks):",
            device.describe(),
            t.pretrained.records,
            others.len(),
            t.all.held_out_tasks
        );
        for (name, run) in [
            ("all records of the device", &t.all),
            ("from scratch on the fraction", &t.scratch),
            ("pretrained only (zero-shot)", &t.pretrained),
            ("pretrained + fine-tuned", &t.fine_tuned),
        ] {
            println!(
                "  {name:<30}  {:>6} records  top-1 {:.3}  top-5 {:.3}",
                run.records, run.top1, run.top5
            );
        }
        println!(
            "fine-tuned on {:.0}% of the records: top-1 {:.3} of the model trained on all of them",
            fraction * 100.0,
            t.fine_tuned.top1 / t.all.top1
        );
        return Ok(());
    }
    let started = std::time::Instant::now();
    let train_tree = || {
        let options = tb_tune::gbdt::TrainOptions {
            seed: args.seed,
            ..Default::default()
        };
        tb_tune::search::train_ranker_with(
            &train.tasks,
            &train.records,
            &mut Default::default(),
            &options,
        )
        .ok_or_else(|| "too few successful records to train the ranker on".to_string())
    };
    let train_transformer = || {
        let options = tb_tune::transformer::TrainOptions {
            seed: args.seed,
            ..Default::default()
        };
        let samples = tb_tune::transfer::device_samples(&[(&train.tasks, &train.records)]);
        tb_tune::transfer::train_and_score(
            "all",
            None,
            &samples,
            train.records.len(),
            &options,
            &target,
            &test,
        )
    };
    let tree_run = |scores: &[tb_tune::search::HeldOutScore], seconds: f64| {
        let (top1, top5) = tb_tune::transfer::medians(scores);
        tb_tune::transfer::TrainRun {
            what: "all".into(),
            model: "tree".into(),
            target: target.id(),
            seed: args.seed,
            records: train.records.len(),
            sentences: train.successes(),
            groups: train.tasks.len(),
            epochs: 0,
            steps: 0,
            first_loss: None,
            last_loss: None,
            seconds,
            held_out_tasks: scores.len(),
            top1,
            top5,
        }
    };
    let held_out = |model: &dyn tb_tune::cost_model::CostModel| {
        tb_tune::transfer::held_out(model, &target, &test.tasks, &test.records)
    };
    // The ensemble's members are scored too, on the same tasks in the same run.
    let mut members: Vec<(&str, Vec<tb_tune::search::HeldOutScore>)> = Vec::new();
    let scores = match args.cost_model.as_str() {
        "transformer" => {
            let (ranker, run) = train_transformer()?;
            write_log(&run)?;
            held_out(&ranker)
        }
        "ensemble" => {
            let tree = train_tree()?;
            let tree_scores = held_out(&tree);
            write_log(&tree_run(&tree_scores, started.elapsed().as_secs_f64()))?;
            let (transformer, run) = train_transformer()?;
            write_log(&run)?;
            let transformer_scores = held_out(&transformer);
            let ensemble = tb_tune::ensemble::Ensemble::new(
                vec![Box::new(tree), Box::new(transformer)],
                &[(&train.tasks, &train.records)],
                &mut Default::default(),
            );
            print_weights(&ensemble);
            let scores = held_out(&ensemble);
            let mut run = tree_run(&scores, started.elapsed().as_secs_f64());
            run.model = "ensemble".into();
            write_log(&run)?;
            members.push(("tree", tree_scores));
            members.push(("transformer", transformer_scores));
            scores
        }
        _ => {
            let tree = train_tree()?;
            let scores = held_out(&tree);
            write_log(&tree_run(&scores, started.elapsed().as_secs_f64()))?;
            scores
        }
    };
    println!(
        "{:<16}  {:<24}  {:>10}  {:>6}  {:>6}",
        "task", "kernel", "candidates", "top-1", "top-5"
    );
    for s in &scores {
        let summary = test
            .tasks
            .iter()
            .find(|t| t.task.key == s.task_key)
            .map_or("", |t| t.summary.as_str());
        println!(
            "{:<16}  {:<24}  {:>10}  {:>6.3}  {:>6.3}",
            s.task_key, summary, s.candidates, s.top1, s.top5
        );
    }
    let weighting = match &weights {
        Some(w) => {
            let found = scores
                .iter()
                .filter(|s| w.contains_key(&s.task_key))
                .count();
            format!(
                "tasks weighted by their occurrences in {} ({found} of its {} tasks scored here)",
                args.network.as_deref().unwrap_or_default(),
                w.len()
            )
        }
        None => "each task once".to_string(),
    };
    let network_of = |scores: &[tb_tune::search::HeldOutScore]| match &weights {
        Some(w) => {
            tb_tune::search::network_scores(scores, |key| w.get(key).copied().unwrap_or(0) as f64)
        }
        None => tb_tune::search::network_scores(scores, |_| 1.0),
    };
    for (name, member) in &members {
        let (top1, top5) = tb_tune::transfer::medians(member);
        let network = network_of(member).map_or("no task to score".into(), |(t1, t5)| {
            format!("top-1 {t1:.3}, top-5 {t5:.3}")
        });
        println!(
            "member {name}: median over {} tasks top-1 {top1:.3}, top-5 {top5:.3}; network {network}",
            member.len()
        );
    }
    let (top1, top5) = tb_tune::transfer::medians(&scores);
    println!(
        "median over {} held-out tasks ({} model on {}, trained on {} records of {} tasks): top-1 {:.3}, top-5 {:.3}",
        scores.len(),
        args.cost_model,
        device.describe(),
        train.records.len(),
        train.tasks.len(),
        top1,
        top5
    );
    let network = network_of(&scores);
    match network {
        Some((top1, top5)) => {
            println!("TenSet-style network scores ({weighting}): top-1 {top1:.3}, top-5 {top5:.3}")
        }
        None => println!("TenSet-style network scores ({weighting}): no task to score"),
    }
    Ok(())
}

/// The ensemble's weight per member, to stderr: a weight of 1 means the member's scores
/// never differed on a training task, so it counts on its raw scale.
fn print_weights(ensemble: &tb_tune::ensemble::Ensemble) {
    let weights: Vec<String> = ensemble
        .weights()
        .into_iter()
        .map(|(name, w)| format!("{name} x {w:.4}"))
        .collect();
    eprintln!("ensemble of {}", weights.join(", "));
}

/// Whether `spec` (`others`, an ISA class such as `avx2`, or a full target key) names
/// `target` as a source of translated records for `device`.
fn names_source(spec: &str, target: &TargetKey, device: &TargetKey) -> bool {
    target != device
        && match spec {
            "others" => true,
            "avx512" | "avx2" | "sse" | "neon" => {
                target.isa() == spec && target.threads == device.threads
            }
            key => target.id() == key,
        }
}

/// `--translate-from`: proposes each task's schedule on `device` from the records of the
/// named targets in the database (record translation), measures the zero-shot proposal
/// and the `--shots` first ones, and compares them with the device's tuned best.
fn translate(
    args: &Args,
    device: &Device,
    tunable: &[TunableTask],
    db: &mut Database,
) -> Result<(), String> {
    let location = db.location().to_string();
    let mut devices = Vec::new();
    tb_tune::dataset::add_rows(&mut devices, db.select("", &[])?, &location)?;
    for warning in db.take_warnings() {
        eprintln!("tb-tune: warning: {warning}");
    }
    let sources: Vec<&DeviceRecords> = devices
        .iter()
        .filter(|d| {
            args.translate_from
                .iter()
                .any(|s| names_source(s, &d.target, &device.key))
        })
        .collect();
    if sources.iter().map(|d| d.successes()).sum::<usize>() < 8 {
        return Err(format!(
            "--translate-from {}: {location} holds too few successful records of such a target (other than {}) to translate",
            args.translate_from.join(" "),
            device.describe()
        ));
    }
    let pairs: Vec<(&[TunableTask], &[tb_tune::Record])> = sources
        .iter()
        .map(|d| (d.tasks.as_slice(), d.records.as_slice()))
        .collect();
    let train_tree = || {
        let started = std::time::Instant::now();
        let options = tb_tune::gbdt::TrainOptions {
            seed: args.seed,
            ..Default::default()
        };
        let ranker = tb_tune::search::train_ranker_on_devices(&pairs, &options)
            .ok_or("--translate-from: too few records to train the tree ranker on")?;
        eprintln!(
            "tree ranker trained on {} records of {} target(s), seed {}, {:.1} s",
            pairs.iter().map(|(_, r)| r.len()).sum::<usize>(),
            sources.len(),
            options.seed,
            started.elapsed().as_secs_f64()
        );
        Ok::<_, String>(ranker)
    };
    let train_transformer = || {
        let started = std::time::Instant::now();
        let samples = tb_tune::transfer::device_samples(&pairs);
        let options = tb_tune::transformer::TrainOptions {
            seed: args.seed,
            ..Default::default()
        };
        let (encoder, log) = tb_tune::transformer::train(
            &samples,
            tb_tune::transformer::Config::default(),
            &options,
        )?;
        eprintln!(
            "transformer trained on {} sentences of {} target(s), seed {}, {} epochs, loss {:.4} -> {:.4}, {:.1} s",
            samples.len(),
            sources.len(),
            options.seed,
            options.epochs,
            log.epoch_loss.first().copied().unwrap_or(f64::NAN),
            log.epoch_loss.last().copied().unwrap_or(f64::NAN),
            started.elapsed().as_secs_f64()
        );
        Ok::<_, String>(tb_tune::transformer::TransformerRanker { encoder })
    };
    let model: Box<dyn tb_tune::cost_model::CostModel> = match args.cost_model.as_str() {
        "tree" => Box::new(train_tree()?),
        "transformer" => Box::new(train_transformer()?),
        "ensemble" => {
            let ensemble = tb_tune::ensemble::Ensemble::new(
                vec![Box::new(train_tree()?), Box::new(train_transformer()?)],
                &pairs,
                &mut Default::default(),
            );
            print_weights(&ensemble);
            Box::new(ensemble)
        }
        other => {
            return Err(format!(
                "--translate-from ranks translated records with --model tree, transformer or ensemble, not {other}"
            ));
        }
    };
    let own = records_of(&devices, &device.key);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let mut measurer =
        ChildMeasurer::new(exe, args.threads, Duration::from_secs_f64(args.timeout))?;
    if let Some(cores) = args.cores {
        measurer.cores = cores;
    }
    measurer.device_args = device.args.clone();
    let shots = args.shots.max(1);
    println!(
        "{:<16}  {:<24}  {:>6}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}",
        "task",
        "kernel",
        "exact",
        "zero ms",
        format!("{shots}-shot ms"),
        "tuned ms",
        "zero/best",
        format!("{shots}/best")
    );
    let (mut zero_fractions, mut few_fractions) = (Vec::new(), Vec::new());
    for task in tunable.iter().filter(|t| t.space.is_tunable()) {
        if tb_tune::stop::requested() {
            break;
        }
        // The source that measured this task most.
        let source = sources
            .iter()
            .filter_map(|d| {
                let t = d.tasks.iter().find(|t| t.task.key == task.task.key)?;
                let n = d
                    .records
                    .iter()
                    .filter(|r| r.task_key == task.task.key)
                    .count();
                Some((n, t, d))
            })
            .max_by_key(|(n, _, _)| *n);
        let (space_a, records_a): (&Space, &[tb_tune::Record]) = match source {
            Some((_, t, d)) => (&t.space, &d.records),
            None => (&task.space, &[]),
        };
        let proposals = tb_tune::translate::propose(
            task,
            &device.key,
            space_a,
            records_a,
            model.as_ref(),
            shots,
            &tb_tune::translate::TranslateOptions {
                seed: args.seed,
                ..Default::default()
            },
        );
        let batch: Vec<(usize, Option<Vec<usize>>)> = proposals
            .ranked
            .iter()
            .map(|d| (0, Some(d.clone())))
            .collect();
        let measured =
            tb_tune::Measurer::measure_batch(&mut measurer, std::slice::from_ref(task), &batch)?;
        let mut latencies = Vec::new();
        for ((_, decision), m) in batch.iter().zip(measured) {
            let Some(m) = m else { continue };
            let decision = decision.clone().expect("proposals are decisions");
            let record = tb_tune::Record {
                target: device.key.clone(),
                task_key: task.task.key.clone(),
                space: task.space.kind().to_string(),
                description: task.space.describe(&decision),
                decision,
                status: m.status,
                latency_s: m.latency_s,
                runs_s: m.runs_s.clone(),
                error: m.error.clone(),
                search: "translate".into(),
            };
            db.add(&record, &task.summary, &task.task.ir)?;
            latencies.push(match m.status {
                tb_tune::Status::Ok => m.latency_s,
                _ => None,
            });
        }
        let zero = latencies.first().copied().flatten();
        let few = latencies.iter().flatten().copied().reduce(f64::min);
        let tuned = own
            .records
            .iter()
            .filter(|r| {
                r.task_key == task.task.key
                    && r.search != "translate"
                    && r.status == tb_tune::Status::Ok
            })
            .filter_map(|r| r.latency_s)
            .reduce(f64::min);
        let fraction = |l: Option<f64>| match (tuned, l) {
            (Some(b), Some(l)) if l > 0.0 => Some(b / l),
            _ => None,
        };
        if let (Some(z), Some(f)) = (fraction(zero), fraction(few)) {
            zero_fractions.push(z);
            few_fractions.push(f);
        } else if tuned.is_some() {
            // A failed proposal earns nothing.
            zero_fractions.push(fraction(zero).unwrap_or(0.0));
            few_fractions.push(fraction(few).unwrap_or(0.0));
        }
        let show = |f: Option<f64>| f.map_or("-".into(), |f| format!("{f:.3}"));
        println!(
            "{:<16}  {:<24}  {:>6}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}",
            task.task.key,
            task.summary,
            format!(
                "{}/{}",
                proposals.exact,
                proposals.exact + proposals.nearest
            ),
            ms(zero),
            ms(few),
            ms(tuned),
            show(fraction(zero)),
            show(fraction(few))
        );
    }
    let geomean = |v: &[f64]| {
        if v.iter().any(|&x| x <= 0.0) || v.is_empty() {
            f64::NAN
        } else {
            (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
        }
    };
    println!(
        "translated to {} from {}: over {} tasks with a tuned best, zero-shot {:.3} (median; geometric mean {:.3}), {shots}-shot {:.3} (median; geometric mean {:.3}) of the tuned best",
        device.describe(),
        sources
            .iter()
            .map(|d| format!("{} {}", d.target.cpu, d.target.isa()))
            .collect::<Vec<_>>()
            .join(", "),
        zero_fractions.len(),
        tb_tune::transfer::median(zero_fractions.clone()),
        geomean(&zero_fractions),
        tb_tune::transfer::median(few_fractions.clone()),
        geomean(&few_fractions)
    );
    Ok(())
}

/// Parses `--workers`: `auto` is one local worker per core.
fn local_workers(spec: &str) -> Result<usize, String> {
    if spec == "auto" {
        return Ok(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    spec.parse()
        .map_err(|_| format!("--workers {spec}: expected `auto` or a number"))
}

/// Local workers started by a coordinator; stopped (SIGTERM, then waited for) on drop.
struct LocalWorkers(Vec<std::process::Child>);

impl Drop for LocalWorkers {
    fn drop(&mut self) {
        for child in &self.0 {
            // SAFETY: signalling our own child by its pid.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
        }
        for child in &mut self.0 {
            let _ = child.wait();
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(path) = &args.export_dataset {
        let location = args.db.to_string_lossy().to_string();
        if !tb_tune::database::postgres::is_postgres(&location) && !args.db.exists() {
            return Err(format!("{location}: no such database"));
        }
        let devices = device_records(&[location])?;
        let mut file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        let (written, skipped) = tb_tune::dataset::export(&devices, &mut file)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        file.flush().map_err(|e| e.to_string())?;
        println!(
            "exported {written} records of {} targets with their sentences to {}{}",
            devices.len(),
            path.display(),
            if skipped > 0 {
                format!(" ({skipped} whose decision this build's spaces refuse left out)")
            } else {
                String::new()
            }
        );
        return Ok(());
    }
    if args.export.is_some() || args.import.is_some() {
        let mut db = Database::open(&args.db)?;
        if let Some(path) = &args.import {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
            let n = db
                .import(&mut BufReader::new(file))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            println!("imported {n} records into {}", args.db.display());
        }
        if let Some(path) = &args.export {
            let mut file = std::fs::File::create(path)
                .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            let n = db.export(&mut file)?;
            file.flush().map_err(|e| e.to_string())?;
            println!("exported {n} records to {}", path.display());
        }
        return Ok(());
    }
    let model = args.model.as_deref().expect("required by clap");
    let mut loaded = load_loop_level(model, &args.input_shapes)?;
    let device = Device::resolve(args.mcpu.as_deref(), args.mattr.as_deref(), args.threads)?;
    // The device's spaces: vector width and registers from its features.
    let machine = device.machine();
    let mut tunable = Vec::new();
    for task in tasks(&mut loaded.ctx, loaded.module) {
        let (space, summary) = Space::of(&task, &machine)?;
        tunable.push(TunableTask {
            task,
            space,
            summary,
        });
    }
    if args.list_tasks {
        println!("{:<16}  {:<24}  {:>6}  knobs", "task", "kernel", "weight");
        for t in &tunable {
            let knobs = match &t.space {
                Space::Fixed(why) => format!("none: {why}"),
                s => format!("{} {:?}", s.kind(), s.knob_sizes()),
            };
            println!(
                "{:<16}  {:<24}  {:>6}  {knobs}",
                t.task.key, t.summary, t.task.weight
            );
        }
        if let Some(dir) = &args.dump_tasks {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
            for t in &tunable {
                let path = dir.join(format!("{}.mlir", t.task.key));
                std::fs::write(&path, &t.task.ir)
                    .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
            }
        }
        if let Some(samples) = args.check_spaces {
            let compile = args.check_compile.then_some(&device);
            return check_spaces(&tunable, samples, args.seed, compile);
        }
        return Ok(());
    }
    if args.workers.is_none() && args.target.iter().any(|t| t != "auto") {
        return Err(format!(
            "--target {}: measuring here is for this machine only; with --workers (PostgreSQL) jobs are queued for the workers of other targets",
            args.target.join(" ")
        ));
    }
    if args.cores == Some(0) {
        return Err("--cores must be at least 1".into());
    }
    if args.workers.is_some() && !device.args.is_empty() {
        return Err(
            "--mcpu/--mattr: with --workers each worker measures for the machine it runs on".into(),
        );
    }
    let mut db = Database::open(&args.db)?;
    if !args.translate_from.is_empty() {
        return translate(args, &device, &tunable, &mut db);
    }
    if let Some(spec) = &args.workers {
        return coordinate(args, spec, model, &tunable, db);
    }
    let target = device.key.clone();
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let batch = args.batch.unwrap_or(4).max(1);
    let mut measurer =
        ChildMeasurer::new(exe, args.threads, Duration::from_secs_f64(args.timeout))?;
    if let Some(cores) = args.cores {
        measurer.cores = cores;
    }
    measurer.device_args = device.args.clone();
    let profile = measurer.profile.clone();
    let cores_used = measurer.cores;
    let started = std::time::Instant::now();
    let options = search_options(args, batch)?;
    let result = tune_target(
        args,
        model,
        &tunable,
        &target,
        &mut measurer,
        &mut db,
        false,
        &options,
        "",
        &MultiProgress::new(),
    )?;
    print_summary(&tunable, &result);
    let profile = profile.borrow();
    if !profile.is_empty() {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "measured {} trials in {seconds:.1} s ({:.1} per minute) on {} cores; per trial (medians): {}",
            profile.len(),
            profile.len() as f64 * 60.0 / seconds,
            cores_used,
            tb_tools::tuning::phases::median_line(&profile)
        );
    }
    Ok(())
}

fn search_options(args: &Args, batch: usize) -> Result<SearchOptions, String> {
    let model = tb_tune::cost_model::ModelKind::parse(&args.cost_model)?;
    let wants_generator =
        model == tb_tune::cost_model::ModelKind::Tlm && !args.random || args.report.is_some();
    if args.pretrain.is_some() && !wants_generator {
        return Err(
            "--pretrain is for the schedule generator: use it with --model tlm (or --report)"
                .into(),
        );
    }
    Ok(SearchOptions {
        trials: args.trials,
        random: args.random,
        seed: args.seed,
        batch,
        model,
        pretrained: pretrained_generator(args)?.map(std::sync::Arc::new),
        ..SearchOptions::default()
    })
}

/// The generator `--pretrain` names: loaded from a saved generator, or trained on the
/// records of a database (of the device being tuned), then saved with `--save-generator`.
fn pretrained_generator(args: &Args) -> Result<Option<Generator>, String> {
    let Some(location) = &args.pretrain else {
        return Ok(None);
    };
    if location.ends_with(".json") {
        let text = std::fs::read_to_string(location)
            .map_err(|e| format!("--pretrain: cannot read '{location}': {e}"))?;
        if args.save_generator.is_some() {
            return Err("--save-generator saves a generator pretrained from a database, not one loaded from JSON".into());
        }
        let generator =
            Generator::from_json(&text).map_err(|e| format!("--pretrain: {location}: {e}"))?;
        return Ok(Some(generator));
    }
    // The records of the device being tuned (`--mcpu`/`--mattr`, `--threads`).
    let target = Device::resolve(args.mcpu.as_deref(), args.mattr.as_deref(), args.threads)?.key;
    let devices =
        device_records(std::slice::from_ref(location)).map_err(|e| format!("--pretrain: {e}"))?;
    let DeviceRecords { tasks, records, .. } = records_of(&devices, &target);
    let options = tb_tune::tlm::TrainOptions {
        seed: args.seed,
        ..Default::default()
    };
    let examples = tb_tune::tlm::examples(&tasks, &records, options.top_fraction);
    if examples.is_empty() {
        return Err(format!(
            "--pretrain: {location}: no successful record of {} to pretrain the schedule generator on",
            target.describe()
        ));
    }
    let started = std::time::Instant::now();
    let generator = Generator::new(tb_tune::tlm::Config::default(), args.seed)?;
    let log = generator.fit(&examples, &options)?;
    eprintln!(
        "pretrained the schedule generator on {} decisions of {} tasks from {location} in {:.1} s (loss {:.3} -> {:.3})",
        examples.len(),
        tasks.len(),
        started.elapsed().as_secs_f64(),
        log.epoch_loss.first().copied().unwrap_or(f64::NAN),
        log.epoch_loss.last().copied().unwrap_or(f64::NAN)
    );
    if let Some(path) = &args.save_generator {
        std::fs::write(path, generator.to_json()?)
            .map_err(|e| format!("--save-generator: cannot write '{}': {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(Some(generator))
}

/// Tunes `tunable` on `target` from the database's earlier records of that target, and
/// with `--report` also runs the other search and plots both.
#[allow(clippy::too_many_arguments)]
fn tune_target(
    args: &Args,
    model: &str,
    tunable: &[TunableTask],
    target: &TargetKey,
    measurer: &mut dyn tb_tune::Measurer,
    db: &mut Database,
    queued: bool,
    options: &SearchOptions,
    label: &str,
    bars: &MultiProgress,
) -> Result<SearchResult, String> {
    eprintln!(
        "tuning {} tasks ({} tunable) of {model} on {} [{}] with {} trials into {}",
        tunable.len(),
        tunable.iter().filter(|t| t.space.is_tunable()).count(),
        target.describe(),
        target.isa(),
        args.trials,
        db.location()
    );
    let previous = db.records(target)?;
    for warning in db.take_warnings() {
        eprintln!("tb-tune: warning: {warning}");
    }
    let result = search(
        tunable, target, &previous, measurer, db, queued, options, label, bars,
    )?;
    if let Some(report) = &args.report {
        // The three searches of one budget, each from no earlier records; the one just
        // run is not run again.
        let mut curves = vec![(search_label(options), result.curve.clone())];
        let others = [
            (true, ModelKind::Tree),
            (false, ModelKind::Tree),
            (false, ModelKind::Tlm),
        ];
        for (random, model) in others {
            let baseline = SearchOptions {
                random,
                model,
                ..options.clone()
            };
            let label = search_label(&baseline);
            if curves.iter().any(|(l, _)| *l == label) {
                continue;
            }
            let other = search(
                tunable,
                target,
                &[],
                measurer,
                db,
                queued,
                &baseline,
                &format!("{label} "),
                bars,
            )?;
            curves.push((label, other.curve));
        }
        write_report(report, &curves)?;
        eprintln!("wrote {}", report.display());
    }
    Ok(result)
}

/// `--workers`: coordinates instead of measuring. Starts the local workers, resolves
/// `--target` against the database, and tunes every target at once, each in a thread
/// with its own spaces (built for the machine its workers described), records,
/// queue connection and progress bar; the workers write the records.
fn coordinate(
    args: &Args,
    spec: &str,
    model: &str,
    tunable: &[TunableTask],
    db: Database,
) -> Result<(), String> {
    if !db.is_postgres() {
        return Err(format!(
            "--workers: {} is a SQLite file; the job queue needs --db postgres://...",
            db.location()
        ));
    }
    drop(db);
    let n = local_workers(spec)?;
    let location = args.db.to_string_lossy().to_string();
    let host = host_target(args.threads);
    let targets = {
        let mut client = tb_tune::database::postgres::connect(&location)?;
        resolve_targets(
            &mut client,
            &args.target,
            &host,
            &Machine::host(),
            n > 0,
            &mut |m| eprintln!("tb-tune: {m}"),
        )?
    };
    if targets.len() > 1 && args.report.is_some() {
        return Err(format!(
            "--report plots the searches of one target; --target names {}",
            targets.len()
        ));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let mut local = LocalWorkers(Vec::new());
    for _ in 0..n {
        let child = std::process::Command::new(&exe)
            .args(["worker", "--db", &location, "--threads"])
            .arg(args.threads.to_string())
            .arg("--timeout")
            .arg(args.timeout.to_string())
            .stdin(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start a local worker: {e}"))?;
        local.0.push(child);
    }
    let options = search_options(args, args.batch.unwrap_or(n.max(4)).max(1))?;
    let name = format!("{}:{}", hostname(), std::process::id());
    let bars = MultiProgress::new();
    let several = targets.len() > 1;
    let tune_one = |t: &FleetTarget| -> Result<(Vec<TunableTask>, SearchResult), String> {
        let in_target = |e: String| format!("target {}: {e}", t.key.describe());
        // The target's own spaces: its vector width, registers and cores, not this host's.
        let machine = t.machine.schedule_target();
        let mut tasks = Vec::with_capacity(tunable.len());
        for task in tunable {
            let (space, summary) = Space::of(&task.task, &machine).map_err(in_target)?;
            tasks.push(TunableTask {
                task: task.task.clone(),
                space,
                summary,
            });
        }
        let mut db = Database::connect(&location).map_err(in_target)?;
        let label = if several {
            format!("{} ", t.key.describe())
        } else {
            String::new()
        };
        let mut measurer = QueueMeasurer::new(
            &location,
            t.key.clone(),
            name.clone(),
            if args.random { "random" } else { "model" }.into(),
            Box::new(move |m| eprintln!("tb-tune: {m}")),
        )
        .map_err(in_target)?;
        measurer.max_attempts = args.max_attempts.max(1);
        let result = tune_target(
            args,
            model,
            &tasks,
            &t.key,
            &mut measurer,
            &mut db,
            true,
            &options,
            &label,
            &bars,
        )
        .map_err(in_target)?;
        Ok((tasks, result))
    };
    let results: Vec<Result<(Vec<TunableTask>, SearchResult), String>> =
        std::thread::scope(|scope| {
            let running: Vec<_> = targets
                .iter()
                .map(|t| scope.spawn(|| tune_one(t)))
                .collect();
            running
                .into_iter()
                .map(|r| {
                    r.join()
                        .unwrap_or_else(|_| Err("a target's search panicked".into()))
                })
                .collect()
        });
    drop(local);
    let mut first_error = None;
    for (t, result) in targets.iter().zip(results) {
        match result {
            Ok((tasks, result)) => {
                if several {
                    println!(
                        "target {} ({}; {}):",
                        t.key.describe(),
                        t.key.id(),
                        t.machine.describe()
                    );
                }
                print_summary(&tasks, &result);
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// `--check-spaces`: every task's sampled decisions go through the lowering (and, with
/// `compile`, the backend for that device).
fn check_spaces(
    tunable: &[TunableTask],
    samples: usize,
    seed: u64,
    compile: Option<&Device>,
) -> Result<(), String> {
    let mut refused = 0;
    for t in tunable.iter().filter(|t| t.space.is_tunable()) {
        for (description, why) in refused_decisions(t, samples, seed, compile) {
            println!(
                "refused: {} {}: {description}: {why}",
                t.task.key, t.summary
            );
            refused += 1;
        }
    }
    let checked = tunable.iter().filter(|t| t.space.is_tunable()).count();
    if refused > 0 {
        return Err(format!(
            "{refused} sampled decisions of {checked} spaces are refused by the lowering"
        ));
    }
    println!("checked {checked} spaces: no sampled decision is refused");
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn search(
    tunable: &[TunableTask],
    target: &tb_tune::TargetKey,
    previous: &[tb_tune::Record],
    measurer: &mut dyn tb_tune::Measurer,
    db: &mut Database,
    queued: bool,
    options: &SearchOptions,
    label: &str,
    bars: &MultiProgress,
) -> Result<SearchResult, String> {
    let bar = bars.add(ProgressBar::new(options.trials as u64));
    bar.set_style(
        ProgressStyle::with_template("{prefix}[{bar:30}] {pos}/{len} trials {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!(
        "{label}{} ",
        if options.random { "random" } else { "model" }
    ));
    // Through the queue, the workers write the records.
    let mut sink = DatabaseSink(db);
    let mut none = NoSink;
    let sink: &mut dyn tb_tune::search::RecordSink = if queued { &mut none } else { &mut sink };
    let result = tune(
        tunable,
        target,
        previous,
        measurer,
        sink,
        options,
        &mut |event| {
            bar.set_position(event.trial as u64);
            let m = event.measurement;
            let what = match m.latency_s {
                Some(l) if m.status == tb_tune::Status::Ok => format!("{:.3} ms", l * 1e3),
                _ => m.status.as_str().to_string(),
            };
            bar.set_message(format!("{}: {what}", tunable[event.task].summary));
            if m.status != tb_tune::Status::Ok {
                // Shown with or without a terminal (a hidden bar's println prints nothing).
                bar.suspend(|| {
                    eprintln!(
                        "trial {} ({}: {}): {} {}",
                        event.trial,
                        tunable[event.task].summary,
                        event.description,
                        m.status.as_str(),
                        m.error.as_deref().unwrap_or("")
                    )
                });
            }
        },
    )?;
    bar.finish_and_clear();
    if tb_tune::stop::requested() {
        eprintln!(
            "tb-tune: stopped on signal {} after {} trials; every finished trial is in the database",
            tb_tune::stop::signal(),
            result.curve.len()
        );
    }
    Ok(result)
}

/// A sink for records that others (the workers) write.
struct NoSink;

impl tb_tune::search::RecordSink for NoSink {
    fn add(&mut self, _: &TunableTask, _: &tb_tune::Record) -> Result<(), String> {
        Ok(())
    }
}

fn ms(latency: Option<f64>) -> String {
    latency.map_or("-".into(), |l| format!("{:.3}", l * 1e3))
}

fn print_summary(tunable: &[TunableTask], result: &SearchResult) {
    println!(
        "{:<16}  {:<24}  {:>6}  {:>6}  {:>6}  {:>12}  {:>10}  {:>8}  best schedule",
        "task", "kernel", "weight", "trials", "failed", "heuristic ms", "best ms", "speed-up"
    );
    let (mut before, mut after) = (0.0, 0.0);
    for (t, p) in tunable.iter().zip(&result.tasks) {
        let speedup = match (p.default_latency, p.best_latency) {
            (Some(d), Some(b)) if b > 0.0 => {
                before += d * t.task.weight as f64;
                after += b * t.task.weight as f64;
                format!("{:.2}x", d / b)
            }
            _ => "-".into(),
        };
        let best = match &t.space {
            Space::Fixed(_) => "heuristic (no knobs)".to_string(),
            _ => p.best_description.clone().unwrap_or("-".into()),
        };
        println!(
            "{:<16}  {:<24}  {:>6}  {:>6}  {:>6}  {:>12}  {:>10}  {:>8}  {best}",
            t.task.key,
            t.summary,
            t.task.weight,
            p.trials,
            p.failed,
            ms(p.default_latency),
            ms(p.best_latency),
            speedup
        );
    }
    if after > 0.0 {
        println!(
            "tuned kernels: {:.3} ms -> {:.3} ms weighted by occurrence ({:.2}x)",
            before * 1e3,
            after * 1e3,
            before / after
        );
    }
}

/// How `--report` names a search.
fn search_label(options: &SearchOptions) -> String {
    if options.random {
        return "random".into();
    }
    match options.model {
        ModelKind::Tree => "tree-guided",
        ModelKind::Transformer => "transformer-guided",
        ModelKind::Ensemble => "ensemble-guided",
        ModelKind::Tlm => "TLM",
    }
    .into()
}

/// Plots each search's best-so-far latency (weighted sum over tasks) against trials.
fn write_report(path: &Path, curves: &[(String, Vec<f64>)]) -> Result<(), String> {
    use plotters::prelude::*;
    let to_ms = |c: &[f64]| -> Vec<(f64, f64)> {
        c.iter()
            .enumerate()
            .filter(|(_, v)| **v > 0.0)
            .map(|(i, v)| ((i + 1) as f64, v * 1e3))
            .collect()
    };
    let series: Vec<(&str, Vec<(f64, f64)>)> =
        curves.iter().map(|(l, c)| (l.as_str(), to_ms(c))).collect();
    let max_x = series.iter().map(|s| s.1.len()).max().unwrap_or(0).max(2) as f64;
    let max_y = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1e-6)
        * 1.1;
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    let fail = |e: &dyn std::fmt::Display| format!("cannot write '{}': {e}", path.display());
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "best-so-far latency (sum over tasks, weighted)",
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(1.0..max_x, 0.0..max_y)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("trials")
        .y_desc("ms")
        .draw()
        .map_err(|e| fail(&e))?;
    let colors = [RED, BLUE, GREEN, MAGENTA];
    for (i, (label, points)) in series.into_iter().enumerate() {
        let color = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(points, &color))
            .map_err(|e| fail(&e))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
