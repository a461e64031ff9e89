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
use tb_passes::schedule::Target;
use tb_tools::load::{load_mlir, load_onnx, parse_input_shapes};
use tb_tools::tuning::{
    ChildMeasurer, DatabaseSink, host_target, measure_child, refused_decisions,
};
use tb_tune::Database;
use tb_tune::coordinator::{FleetTarget, QueueMeasurer, resolve_targets};
use tb_tune::cost_model::ModelKind;
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
    #[arg(required_unless_present_any = ["measure", "export", "import"])]
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
    /// search's candidates; `tlm` generates the candidates with a schedule generator.
    #[arg(long = "model", value_name = "tree|transformer|tlm", default_value = "tree", value_parser = ["tree", "transformer", "tlm"])]
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
    if first.as_deref() != Some("--measure") {
        tb_tune::stop::install();
    }
    let result = match first.as_deref() {
        Some("worker") => worker(&WorkerArgs::parse_from(std::env::args().skip(1))),
        Some("status") => status(&StatusArgs::parse_from(std::env::args().skip(1))),
        Some("score") => score(&ScoreArgs::parse_from(std::env::args().skip(1))),
        _ => {
            let args = Args::parse();
            if let Some(dir) = &args.measure {
                measure_child(dir, &args.decision, args.threads);
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

/// The tasks and records of the databases at `locations` measured on `target`; each task
/// (by key) once, with the space it has on this machine.
fn tasks_and_records(
    locations: &[String],
    target: &tb_tune::TargetKey,
) -> Result<(Vec<TunableTask>, Vec<tb_tune::Record>), String> {
    let host = Target::host();
    let (mut tasks, mut records) = (Vec::<TunableTask>::new(), Vec::new());
    for location in locations {
        if !tb_tune::database::postgres::is_postgres(location) && !Path::new(location).exists() {
            return Err(format!("{location}: no such database"));
        }
        let db = Database::connect(location)?;
        let rows = db.select(
            "WHERE t.key = ?1",
            &[tb_tune::database::sql::Value::text(target.id())],
        )?;
        for warning in db.take_warnings() {
            eprintln!("tb-tune: warning: {warning}");
        }
        for (record, summary, ir) in rows {
            if !tasks.iter().any(|t| t.task.key == record.task_key) {
                let task = tb_tune::Task {
                    key: record.task_key.clone(),
                    ir,
                    weight: 1,
                    origin: location.clone(),
                };
                let (space, _) = Space::of(&task, &host)
                    .map_err(|e| format!("{location}: task {}: {e}", task.key))?;
                tasks.push(TunableTask {
                    task,
                    space,
                    summary,
                });
            }
            records.push(record);
        }
    }
    Ok((tasks, records))
}

fn score(args: &ScoreArgs) -> Result<(), String> {
    let target = host_target(args.threads);
    let (train_tasks, train_records) = tasks_and_records(&args.train, &target)?;
    let (test_tasks, test_records) = tasks_and_records(&args.test, &target)?;
    let unseen: Vec<TunableTask> = test_tasks
        .into_iter()
        .filter(|t| !train_tasks.iter().any(|s| s.task.key == t.task.key))
        .collect();
    let scores =
        tb_tune::search::held_out_scores(&train_tasks, &train_records, &unseen, &test_records)
            .ok_or_else(|| {
                format!(
                    "too few successful records of {} to train the ranker on",
                    target.describe()
                )
            })?;
    println!(
        "{:<16}  {:<24}  {:>10}  {:>6}  {:>6}",
        "task", "kernel", "candidates", "top-1", "top-5"
    );
    for s in &scores {
        let summary = unseen
            .iter()
            .find(|t| t.task.key == s.task_key)
            .map_or("", |t| t.summary.as_str());
        println!(
            "{:<16}  {:<24}  {:>10}  {:>6.3}  {:>6.3}",
            s.task_key, summary, s.candidates, s.top1, s.top5
        );
    }
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    println!(
        "median over {} held-out tasks (trained on {} records of {} tasks): top-1 {:.3}, top-5 {:.3}",
        scores.len(),
        train_records.len(),
        train_tasks.len(),
        median(scores.iter().map(|s| s.top1).collect()),
        median(scores.iter().map(|s| s.top5).collect())
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
    let mut loaded = if tb_tools::load::is_onnx(model) {
        load_onnx(model, parse_input_shapes(&args.input_shapes)?)?
    } else {
        let text =
            std::fs::read_to_string(model).map_err(|e| format!("cannot read '{model}': {e}"))?;
        load_mlir(&text, model)?
    };
    run_pipeline(&mut loaded.ctx, loaded.module, FRONT_PIPELINE)
        .map_err(|e| format!("{model}: cannot lower to loops: {e}"))?;
    let host = Target::host();
    let mut tunable = Vec::new();
    for task in tasks(&mut loaded.ctx, loaded.module) {
        let (space, summary) = Space::of(&task, &host)?;
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
            return check_spaces(&tunable, samples, args.seed, args.check_compile);
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
    let mut db = Database::open(&args.db)?;
    if let Some(spec) = &args.workers {
        return coordinate(args, spec, model, &tunable, db);
    }
    let target = host_target(args.threads);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let batch = args.batch.unwrap_or(4).max(1);
    let mut measurer =
        ChildMeasurer::new(exe, args.threads, Duration::from_secs_f64(args.timeout))?;
    if let Some(cores) = args.cores {
        measurer.cores = cores;
    }
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
/// records of a database (this machine's target), then saved with `--save-generator`.
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
    let target = host_target(args.threads);
    let (tasks, records) = tasks_and_records(std::slice::from_ref(location), &target)
        .map_err(|e| format!("--pretrain: {e}"))?;
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
        "tuning {} tasks ({} tunable) of {model} on {} with {} trials into {}",
        tunable.len(),
        tunable.iter().filter(|t| t.space.is_tunable()).count(),
        target.describe(),
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

/// `--check-spaces`: every task's sampled decisions go through the lowering.
fn check_spaces(
    tunable: &[TunableTask],
    samples: usize,
    seed: u64,
    compile: bool,
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
