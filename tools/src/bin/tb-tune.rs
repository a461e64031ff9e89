//! `tb-tune`: tunes the kernels of a model for this machine and keeps what it measures in
//! a database that `tb-run --db` applies.
//!
//! The model (ONNX or MLIR) is lowered to loop nests; each distinct nest is a task. Each
//! task is measured with the heuristic schedule, then candidates chosen by a model-guided
//! evolutionary search (or at random with `--random`) are compiled and timed, each in a
//! child process, until `--trials` measurements are spent; every trial is written to the
//! database as it completes. A per-task table ends the run; `--report` also runs a random
//! search of the same budget and plots both.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use tb_passes::schedule::Target;
use tb_tools::load::{load_mlir, load_onnx, parse_input_shapes};
use tb_tools::tuning::{ChildMeasurer, DatabaseSink, host_target, measure_child};
use tb_tune::Database;
use tb_tune::search::{SearchOptions, SearchResult, tune};
use tb_tune::space::{Space, TunableTask};
use tb_tune::task::{FRONT_PIPELINE, run_pipeline, tasks};

#[derive(Parser, Debug)]
#[command(
    name = "tb-tune",
    version,
    about = "TensorBind auto-tuner: measure schedules of a model's kernels into a tuning database"
)]
struct Args {
    /// The model: an ONNX file (`.onnx`) or an MLIR module at any level.
    #[arg(required_unless_present_any = ["measure", "export", "import"])]
    model: Option<String>,
    /// Measurements to spend, the heuristic schedule of each task included.
    #[arg(long, default_value_t = 64)]
    trials: usize,
    /// The tuning database (SQLite; created if missing).
    #[arg(long, value_name = "FILE", default_value = "tuning.db")]
    db: PathBuf,
    /// Threads the kernels run on (part of the target: records answer for this count only).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Random search instead of the model-guided one.
    #[arg(long)]
    random: bool,
    /// Also run a random search of the same budget and plot best-so-far latency against
    /// trials for both (SVG).
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

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(dir) = &args.measure {
        println!("{}", measure_child(dir, &args.decision, args.threads));
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tb-tune: {message}");
            ExitCode::FAILURE
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
        return Ok(());
    }
    let mut db = Database::open(&args.db)?;
    let target = host_target(args.threads);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
    let mut measurer =
        ChildMeasurer::new(exe, args.threads, Duration::from_secs_f64(args.timeout))?;
    let options = SearchOptions {
        trials: args.trials,
        random: args.random,
        seed: args.seed,
        ..SearchOptions::default()
    };
    eprintln!(
        "tuning {} tasks ({} tunable) of {model} on {} with {} trials into {}",
        tunable.len(),
        tunable.iter().filter(|t| t.space.is_tunable()).count(),
        target.describe(),
        args.trials,
        args.db.display()
    );
    let previous = db.records(&target)?;
    let result = search(
        &tunable,
        &target,
        &previous,
        &mut measurer,
        &mut db,
        &options,
        "",
    )?;
    print_summary(&tunable, &result);
    if let Some(report) = &args.report {
        let baseline = SearchOptions {
            random: !args.random,
            ..options.clone()
        };
        let other = search(
            &tunable,
            &target,
            &[],
            &mut measurer,
            &mut db,
            &baseline,
            "baseline ",
        )?;
        let (model, random) = if args.random {
            (&other, &result)
        } else {
            (&result, &other)
        };
        write_report(report, &model.curve, &random.curve)?;
        eprintln!("wrote {}", report.display());
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn search(
    tunable: &[TunableTask],
    target: &tb_tune::TargetKey,
    previous: &[tb_tune::Record],
    measurer: &mut ChildMeasurer,
    db: &mut Database,
    options: &SearchOptions,
    label: &str,
) -> Result<SearchResult, String> {
    let bar = ProgressBar::new(options.trials as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix}[{bar:30}] {pos}/{len} trials {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!(
        "{label}{} ",
        if options.random { "random" } else { "model" }
    ));
    let mut sink = DatabaseSink(db);
    let result = tune(
        tunable,
        target,
        previous,
        measurer,
        &mut sink,
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
    Ok(result)
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

fn write_report(path: &Path, model: &[f64], random: &[f64]) -> Result<(), String> {
    use plotters::prelude::*;
    let to_ms = |c: &[f64]| -> Vec<(f64, f64)> {
        c.iter()
            .enumerate()
            .filter(|(_, v)| **v > 0.0)
            .map(|(i, v)| ((i + 1) as f64, v * 1e3))
            .collect()
    };
    let (m, r) = (to_ms(model), to_ms(random));
    let max_x = m.len().max(r.len()).max(2) as f64;
    let max_y = m
        .iter()
        .chain(&r)
        .map(|p| p.1)
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
    chart
        .draw_series(LineSeries::new(m, &BLUE))
        .map_err(|e| fail(&e))?
        .label("model-guided")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart
        .draw_series(LineSeries::new(r, &RED))
        .map_err(|e| fail(&e))?
        .label("random")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
