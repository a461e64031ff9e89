//! `tb-run`: runs a model, an ONNX file or an MLIR module at any level, on `.npy` inputs and
//! writes its results as `.npy` files.
//!
//! By default the module goes through the CPU pipeline ([`tb_passes::pipelines::CPU`]:
//! graph → te → loop, buffer planning), is compiled for the host CPU and run natively.
//! `--interpret` runs the reference interpreter on the module as given instead; `--check`
//! runs both and compares; `--expected` compares with results saved before; `--bench N`
//! times N more runs of the compiled code and reports the peak memory it used, weights
//! included; `--timing` reports the time of each phase.
//!
//! Inputs are given in order (`--input x.npy`) or by the names the model gives them
//! (`--input image=x.npy`); an ONNX input's dynamic dimensions are taken from its `.npy`
//! file. Results are saved under the model's names where it names them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use tb_backends::cpu::{
    CompileOptions, CompiledModule, TargetOptions, heap_stats, reset_heap_peak, runtime_profile,
};
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::{Interpreter, func_signature};
use tb_interpreter::{Tensor, to_npy_bytes};
use tb_ir::printer::type_to_string;
use tb_ir::{AttrKind, Context, OpId};
use tb_support::OutputSet;
use tb_tools::artifact;
use tb_tools::compare::compare;
use tb_tools::latency::Latency;
use tb_tools::load::{
    Loaded, import_with_values, io_names, is_onnx, load_mlir, npy_shape, parse_input_shapes,
};
use tb_tools::lower::{LowerOptions, list_passes, lower, registry};
use tb_tools::memory;
use tb_tools::profile;

#[derive(Parser, Debug)]
#[command(
    name = "tb-run",
    version,
    about = "TensorBind runner: compile and run a model (.onnx or .mlir) on .npy inputs"
)]
struct Args {
    /// The model: an ONNX file (`.onnx`), an MLIR module (`-` for stdin), or a library
    /// `tb-translate --emit=shared-lib` wrote (`.so`, with its manifest `.json` beside it).
    #[arg(required_unless_present = "list_passes")]
    input: Option<String>,
    /// ONNX inputs with dynamic dimensions: their shape, e.g. `input_ids=1x128` (default:
    /// the shape of the input's .npy file).
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shapes: Vec<String>,
    /// Run with the reference interpreter instead of compiling.
    #[arg(long, conflicts_with_all = ["check", "bench", "profile", "profile_trace"])]
    interpret: bool,
    /// Also run the reference interpreter on the module as given and compare every result
    /// (within --rtol/--atol); exits non-zero on a mismatch.
    #[arg(long)]
    check: bool,
    /// Compare the results with these `.npy` files (within --rtol/--atol), in result order
    /// or by name (`NAME=FILE.npy`); exits non-zero on a mismatch.
    #[arg(long = "expected", value_name = "[NAME=]FILE.npy")]
    expected: Vec<String>,
    /// Relative tolerance of --check and --expected.
    #[arg(long, default_value_t = 1e-3, value_name = "R")]
    rtol: f64,
    /// Absolute tolerance of --check and --expected.
    #[arg(long, default_value_t = 1e-5, value_name = "A")]
    atol: f64,
    /// Time N runs of the compiled function after one warm-up run; prints the median,
    /// minimum and maximum latency and the peak memory.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    bench: Option<u32>,
    /// The pass pipeline that lowers the module before compilation: a named pipeline
    /// (`cpu`; see --list-passes) or a textual one, `builtin.module(...)`.
    /// Default: `cpu`, or `gpu` with --device cuda.
    #[arg(long, value_name = "PIPELINE")]
    pipeline: Option<String>,
    /// List the passes and named pipelines --pipeline can use, and exit.
    #[arg(long = "list-passes")]
    list_passes: bool,
    /// Report the time of each phase (load, lower, compile, run) on stderr.
    #[arg(long)]
    timing: bool,
    /// Report the wall time of every lowering pass on stderr.
    #[arg(long = "mlir-timing")]
    mlir_timing: bool,
    /// Print the IR after every lowering pass on stderr.
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,
    #[command(flatten)]
    elide: tb_tools::print_flags::ElideFlags,
    /// Time each kernel (loop nest) of the compiled function, over the --bench runs or else
    /// the first run, and print them slowest first with the ONNX nodes each computes.
    #[arg(long)]
    profile: bool,
    /// Also write the kernel times as a Chrome trace (JSON, for chrome://tracing or
    /// Perfetto) to FILE; implies --profile.
    #[arg(long = "profile-trace", value_name = "FILE")]
    profile_trace: Option<PathBuf>,
    /// Where compiled code runs: `cpu` (the default) or `cuda` (the first NVIDIA GPU: loop
    /// nests are mapped onto kernels, and --bench times with CUDA events).
    #[arg(long, value_name = "DEVICE", default_value = "cpu", value_parser = ["cpu", "cuda"])]
    device: String,
    /// Compiled runs: the CPU to generate code for (default: the host's).
    #[arg(long, value_name = "NAME")]
    mcpu: Option<String>,
    /// Compiled runs: LLVM target features, e.g. `+avx2,-avx512f`.
    #[arg(long, value_name = "FEATURES")]
    mattr: Option<String>,
    /// Compiled runs: run parallel loops on N threads (0: one per core; default: in order).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The function to run (default: `main`, or the module's only function).
    #[arg(long = "function", value_name = "NAME")]
    function: Option<String>,
    /// An input as a `.npy` file: one per function argument, in order, or by the name the
    /// model gives the argument (`NAME=FILE.npy`).
    #[arg(long = "input", value_name = "[NAME=]FILE.npy")]
    inputs: Vec<String>,
    /// Use seeded random inputs instead of --input files.
    #[arg(long = "random-inputs", value_name = "SEED")]
    random_inputs: Option<u64>,
    /// Write each result as DIR/<name>.npy, under the name the model gives it, else as
    /// DIR/output_<i>.npy (the directory is created if needed).
    #[arg(long = "output-dir", value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Elements printed per result on stdout (0 prints only the types).
    #[arg(long = "print-limit", default_value_t = 64)]
    print_limit: usize,
    /// Apply the best record of each kernel in this tuning database (`tb-tune`) for this
    /// CPU and thread count; kernels without one keep the heuristic schedule.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// With --db: say on stderr which record or heuristic each kernel used.
    #[arg(long, requires = "db")]
    explain: bool,
    /// Print the kernels (loop nests) of the compiled function after every lowering pass
    /// and their estimated memory traffic (each kernel reading and writing each buffer
    /// it touches once).
    #[arg(long, conflicts_with = "interpret")]
    stats: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    args.elide.apply();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
    }
}

/// An `--input`/`--expected` value: `FILE` or `NAME=FILE`.
struct Named {
    name: Option<String>,
    path: PathBuf,
}

fn parse_named(specs: &[String]) -> Vec<Named> {
    specs
        .iter()
        .map(|spec| match spec.split_once('=') {
            Some((name, path)) if !name.is_empty() => Named {
                name: Some(name.to_owned()),
                path: PathBuf::from(path),
            },
            _ => Named {
                name: None,
                path: PathBuf::from(spec),
            },
        })
        .collect()
}

/// The time each phase took, in order, for --timing: wall clock and the CPU time of the
/// process (all its threads), which on a busy machine says what the work itself costs.
#[derive(Default)]
struct Phases(Vec<(&'static str, Duration, Duration)>);

/// The CPU time this process has used so far, user and system, over all its threads.
fn process_cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

impl Phases {
    fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let (start, cpu_start) = (Instant::now(), process_cpu_time());
        let value = f();
        let cpu = process_cpu_time().saturating_sub(cpu_start);
        self.0.push((name, start.elapsed(), cpu));
        value
    }

    fn report(&self) -> String {
        let total: Duration = self.0.iter().map(|(_, d, _)| *d).sum();
        let total_cpu: Duration = self.0.iter().map(|(_, _, c)| *c).sum();
        let mut out = String::from("timing (wall clock):\n");
        for (name, time, cpu) in self.0.iter().chain([&("total", total, total_cpu)]) {
            out.push_str(&format!(
                "  {name:<12} {:>10.3} ms  cpu {:>10.3} ms\n",
                time.as_secs_f64() * 1e3,
                cpu.as_secs_f64() * 1e3
            ));
        }
        out
    }
}

/// Inputs with at most this many elements are also handed to the ONNX importer as values.
const IMPORT_VALUE_MAX_ELEMENTS: i64 = 4096;

fn load(args: &Args, input: &str, inputs: &[Named]) -> Result<Loaded, String> {
    if is_onnx(input) {
        let mut shapes =
            parse_input_shapes(&args.input_shapes).map_err(|m| format!("tb-run: {m}"))?;
        let model = tb_onnx::Model::load(input).map_err(|e| format!("tb-run: {e}"))?;
        // A graph input's dynamic dimensions come from its .npy file unless given.
        let mut values = std::collections::HashMap::new();
        let names: Vec<String> = model
            .runtime_inputs()
            .iter()
            .map(|i| i.name.clone())
            .collect();
        for (position, given) in inputs.iter().enumerate() {
            let name = match &given.name {
                Some(name) => name.clone(),
                None => match names.get(position) {
                    Some(name) => name.clone(),
                    None => continue,
                },
            };
            if !names.contains(&name) {
                continue;
            }
            let shape = npy_shape(&given.path).map_err(|m| format!("tb-run: {m}"))?;
            // A small input may set a shape (Pad's pads, Resize's sizes): the importer
            // reads its value, and the module is compiled for it.
            let elements = shape.iter().try_fold(1i64, |n, &d| n.checked_mul(d));
            if elements.is_some_and(|n| n <= IMPORT_VALUE_MAX_ELEMENTS) {
                let value = tb_interpreter::npy::read_npy(&given.path)
                    .map_err(|e| format!("tb-run: {}", e.0))?;
                values.insert(name.clone(), value);
            }
            shapes.entry(name).or_insert(shape);
        }
        return import_with_values(&model, input, shapes, values)
            .map_err(|m| format!("tb-run: {m}"));
    }
    if !args.input_shapes.is_empty() {
        return Err("tb-run: --input-shape applies to ONNX models only".into());
    }
    let text = if input == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("tb-run: cannot read stdin: {e}"))?
    } else {
        std::fs::read_to_string(input).map_err(|e| format!("tb-run: cannot read '{input}': {e}"))?
    };
    let filename = if input == "-" { "<stdin>" } else { input };
    load_mlir(&text, filename)
}

/// The argument index each `--input` fills: in order, or by the argument's name.
fn order_inputs(
    name: &str,
    given: Vec<Named>,
    arg_names: &[Option<String>],
    count: usize,
) -> Result<Vec<PathBuf>, String> {
    if given.iter().all(|g| g.name.is_none()) {
        return Ok(given.into_iter().map(|g| g.path).collect());
    }
    let known = || {
        let names: Vec<&str> = arg_names.iter().flatten().map(String::as_str).collect();
        if names.is_empty() {
            "its arguments have no names".to_owned()
        } else {
            format!("its arguments are named {}", names.join(", "))
        }
    };
    let mut slots: Vec<Option<PathBuf>> = vec![None; count];
    for (position, g) in given.into_iter().enumerate() {
        let index = match &g.name {
            None => position,
            Some(wanted) => arg_names
                .iter()
                .position(|n| n.as_deref() == Some(wanted.as_str()))
                .ok_or_else(|| {
                    format!("tb-run: --input {wanted}=...: @{name} has no argument named '{wanted}'; {}", known())
                })?,
        };
        let slot = slots.get_mut(index).ok_or_else(|| {
            format!("tb-run: @{name} takes {count} arguments; --input #{position} has none to fill")
        })?;
        if slot.is_some() {
            return Err(format!(
                "tb-run: argument #{index} of @{name} is given twice"
            ));
        }
        *slot = Some(g.path);
    }
    slots
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            s.ok_or_else(|| {
                let what = arg_names
                    .get(i)
                    .cloned()
                    .flatten()
                    .map_or(format!("#{i}"), |n| format!("#{i} ('{n}')"));
                format!("tb-run: no --input for argument {what} of @{name}")
            })
        })
        .collect()
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(flag) = args.elide.given().first()
        && !args.print_ir_after_all
    {
        return Err(format!(
            "tb-run: {flag} applies to the IR --mlir-print-ir-after-all prints"
        ));
    }
    if args.list_passes {
        print!("{}", list_passes(&registry()));
        return Ok(());
    }
    let input = args.input.as_deref().unwrap_or("-");
    if artifact::is_library(input) {
        return run_library(args, input);
    }
    let given_inputs = parse_named(&args.inputs);
    let mut phases = Phases::default();
    let mut loaded = phases.time("load", || load(args, input, &given_inputs))?;
    let (name, inputs, result_types, result_names, results_fit) = {
        let interp = Interpreter::new(&loaded.ctx, loaded.module);
        let name = pick_function(&interp, args.function.as_deref())?;
        let func = interp
            .function(&name)
            .expect("picked among the module's functions");
        let (arg_types, result_types) = func_signature(&loaded.ctx, func)
            .ok_or_else(|| format!("tb-run: @{name} has no function type"))?;
        let (arg_names, result_names) = io_names(&loaded.ctx, func);
        let inputs = match args.random_inputs {
            Some(seed) => {
                if !args.inputs.is_empty() {
                    return Err("tb-run: --input and --random-inputs exclude each other".into());
                }
                random_arguments(&loaded.ctx, func, seed)
                    .map_err(|m| format!("tb-run: @{name}: {m}"))?
            }
            None => {
                let paths = order_inputs(&name, given_inputs, &arg_names, arg_types.len())?;
                read_inputs(&loaded.ctx, &name, &arg_types, &paths)?
            }
        };
        // The interpreter checks each op's results itself, where they are computed.
        let results_fit = memory::check_types(&loaded.ctx, "result", &result_types)
            .map_err(|m| format!("tb-run: @{name}: {m}"));
        let result_types: Vec<String> = result_types
            .iter()
            .map(|&t| type_to_string(&loaded.ctx, t))
            .collect();
        (name, inputs, result_types, result_names, results_fit)
    };
    let expected = read_expected(args, &name, &result_names, result_types.len())?;
    let interpret = |loaded: &Loaded| {
        Interpreter::new(&loaded.ctx, loaded.module)
            .run_function(&name, &inputs)
            .map_err(|d| loaded.render(&d))
    };
    if args.interpret {
        let results = phases.time("interpret", || interpret(&loaded))?;
        report(args, &result_types, &result_names, &results)?;
        compare_expected(args, &results, &expected)?;
        if args.timing {
            eprint!("{}", phases.report());
        }
        return Ok(());
    }
    // The reference runs on the module as given, before lowering changes it.
    let reference = if args.check {
        Some(phases.time("interpret", || interpret(&loaded))?)
    } else {
        None
    };
    // Compiled code's buffers are allocated by the caller (arguments and results) and by
    // the code itself (what the lowering allocates): all are checked before anything runs.
    results_fit?;
    let lower_options = LowerOptions {
        print_ir_after_all: args.print_ir_after_all,
        timing: args.mlir_timing,
    };
    if args.device == "cuda" {
        let outputs = Outputs {
            types: &result_types,
            names: &result_names,
            expected: &expected,
        };
        return run_on_cuda(
            args,
            &mut loaded,
            &name,
            &inputs,
            outputs,
            reference,
            lower_options,
        );
    }
    if let Some(db) = &args.db {
        let threads = args.threads.map_or(1, |t| {
            if t == 0 {
                std::thread::available_parallelism().map_or(1, |n| n.get())
            } else {
                t
            }
        });
        let explained = tb_tools::tuning::apply_database(
            &mut loaded.ctx,
            loaded.module,
            db,
            args.mcpu.as_deref(),
            args.mattr.as_deref(),
            threads,
        )
        .map_err(|m| format!("tb-run: --db: {m}"))?;
        if args.explain {
            for line in explained {
                eprintln!("explain: {line}");
            }
        }
    }
    let cpu_before_lowering = process_cpu_time();
    // Upstream loop-level MLIR (`affine`) enters at the loop level.
    if has_affine_ops(&loaded) {
        lower(
            &mut loaded,
            "builtin.module(convert-affine-to-loop)",
            lower_options,
            "tb-run",
            "tb-run --list-passes",
        )?;
    }
    let lowered = lower(
        &mut loaded,
        args.pipeline.as_deref().unwrap_or("cpu"),
        lower_options,
        "tb-run",
        "tb-run --list-passes",
    )?;
    let lowering_cpu = process_cpu_time().saturating_sub(cpu_before_lowering);
    phases.0.push(("lower", lowered, lowering_cpu));
    memory::check_allocations(&loaded.ctx, loaded.module).map_err(|d| loaded.render(&d))?;
    if args.stats {
        print_stats(&loaded, &name)?;
    }
    let kernels = instrument_for_profile(args, &mut loaded, &name)?;
    let options = CompileOptions {
        target: TargetOptions {
            cpu: args.mcpu.clone(),
            features: args.mattr.clone(),
        },
        threads: args.threads,
        functions: Some(vec![name.clone()]),
        ..CompileOptions::default()
    };
    let compiled = phases
        .time("compile", || {
            CompiledModule::compile(&loaded.ctx, loaded.module, &options)
        })
        .map_err(|d| loaded.render(&d))?;
    if let Some(entry) = compiled.entry_points().find(|e| e.name == name) {
        memory::check_entry_point(entry).map_err(|m| format!("tb-run: @{name}: {m}"))?;
    }
    let mut call = compiled
        .prepare(&name, &inputs)
        .map_err(|e| format!("tb-run: {e}"))?;
    if kernels.is_some() {
        runtime_profile::start_recording();
    }
    phases
        .time("first run", || call.run())
        .map_err(|e| format!("tb-run: {e}"))?;
    let results = call.outputs().map_err(|e| format!("tb-run: {e}"))?;
    report(args, &result_types, &result_names, &results)?;
    if let Some(runs) = args.bench {
        if kernels.is_some() {
            // The profile covers the timed runs, not the warm-up.
            runtime_profile::start_recording();
        }
        reset_heap_peak();
        let before = heap_stats().live;
        let times: Vec<_> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                call.run()?;
                Ok(start.elapsed())
            })
            .collect::<Result<Vec<_>, tb_backends::cpu::RunError>>()
            .map_err(|e| format!("tb-run: {e}"))?;
        let latency = Latency::of(&times).expect("at least one run");
        println!("bench: {latency}");
        let heap = heap_stats().peak.saturating_sub(before);
        let io = call.argument_bytes();
        let weights = memory::constant_bytes(&loaded.ctx, loaded.module) as usize;
        println!(
            "peak memory: {} (weights {}, inputs and results {}, buffers allocated by the \
             code {}; {})",
            mib((heap + io + weights) as i64),
            human_bytes(weights as u64),
            human_bytes(io as u64),
            human_bytes(heap as u64),
            planned_buffers(&loaded.ctx, loaded.module)
        );
    }
    if let Some(kernels) = &kernels {
        report_profile(args, kernels, args.bench.unwrap_or(1))?;
    }
    if let Some(reference) = reference {
        check(args, &results, &reference)?;
    }
    compare_expected(args, &results, &expected)?;
    if args.timing {
        eprint!("{}", phases.report());
    }
    Ok(())
}

/// Runs a library `tb-translate --emit=shared-lib` wrote, as its manifest describes it.
fn run_library(args: &Args, library: &str) -> Result<(), String> {
    let compile_flags = [
        ("--interpret", args.interpret),
        ("--check", args.check),
        ("--input-shape", !args.input_shapes.is_empty()),
        ("--pipeline", args.pipeline.is_some()),
        ("--mlir-timing", args.mlir_timing),
        ("--mlir-print-ir-after-all", args.print_ir_after_all),
        ("--mcpu", args.mcpu.is_some()),
        ("--mattr", args.mattr.is_some()),
        ("--threads", args.threads.is_some()),
        ("--random-inputs", args.random_inputs.is_some()),
        ("--profile", profiling(args)),
        ("--stats", args.stats),
    ];
    if let Some((flag, _)) = compile_flags.iter().find(|(_, given)| *given) {
        return Err(format!(
            "tb-run: {flag} does not apply to a compiled library, which runs as it was built \
             (its thread count: TB_NUM_THREADS); give it --input files"
        ));
    }
    let mut phases = Phases::default();
    let library_path = Path::new(library);
    let artifact = phases
        .time("load", || {
            artifact::load(library_path, args.function.as_deref())
        })
        .map_err(|m| format!("tb-run: {m}"))?;
    let input_names: Vec<Option<String>> = artifact
        .inputs
        .iter()
        .map(|p| Some(p.name.clone()))
        .collect();
    let paths = order_inputs(
        &artifact.function,
        parse_named(&args.inputs),
        &input_names,
        artifact.inputs.len(),
    )?;
    if paths.len() != artifact.inputs.len() {
        return Err(format!(
            "tb-run: @{} takes {} inputs, {} --input files were given",
            artifact.function,
            artifact.inputs.len(),
            paths.len()
        ));
    }
    let inputs = paths
        .iter()
        .map(|p| {
            tb_interpreter::npy::read_npy(p)
                .map_err(|e| format!("tb-run: cannot read '{}': {e}", p.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let results = phases
        .time("first run", || artifact.run(&inputs))
        .map_err(|m| format!("tb-run: {m}"))?;
    let result_names: Vec<Option<String>> = artifact
        .outputs
        .iter()
        .map(|p| Some(p.name.clone()))
        .collect();
    let types: Vec<String> = artifact
        .outputs
        .iter()
        .map(|p| {
            let dims: Vec<String> = p.shape.iter().map(|d| d.to_string()).collect();
            format!("{}[{}]", p.dtype, dims.join("x"))
        })
        .collect();
    report(args, &types, &result_names, &results)?;
    if let Some(runs) = args.bench {
        let times: Vec<_> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                let _ = artifact.run(&inputs);
                start.elapsed()
            })
            .collect();
        let latency = Latency::of(&times).expect("at least one run");
        println!("bench: {latency}");
    }
    let expected = read_expected(args, &artifact.function, &result_names, results.len())?;
    compare_expected(args, &results, &expected)?;
    if args.timing {
        eprint!("{}", phases.report());
    }
    Ok(())
}

/// `--expected` files, read in result order: positional ones in order, named ones at the
/// result of that name; `None` for a result with no expected file.
fn read_expected(
    args: &Args,
    function: &str,
    result_names: &[Option<String>],
    count: usize,
) -> Result<Vec<Option<Tensor>>, String> {
    let mut expected: Vec<Option<Tensor>> = vec![None; count];
    for (position, given) in parse_named(&args.expected).into_iter().enumerate() {
        let index = match &given.name {
            None => position,
            Some(wanted) => result_names
                .iter()
                .position(|n| n.as_deref() == Some(wanted.as_str()))
                .ok_or_else(|| {
                    format!("tb-run: --expected {wanted}=...: @{function} has no result named '{wanted}'")
                })?,
        };
        if index >= count {
            return Err(format!(
                "tb-run: --expected: @{function} has {count} results, {} files were given",
                args.expected.len()
            ));
        }
        let tensor = tb_interpreter::npy::read_npy(&given.path)
            .map_err(|e| format!("tb-run: --expected '{}': {e}", given.path.display()))?;
        expected[index] = Some(tensor);
    }
    Ok(expected)
}

/// `--expected`: every result that has an expected file against it.
fn compare_expected(
    args: &Args,
    results: &[Tensor],
    expected: &[Option<Tensor>],
) -> Result<(), String> {
    for (i, (actual, wanted)) in results.iter().zip(expected).enumerate() {
        let Some(wanted) = wanted else { continue };
        let c = compare(actual, wanted, args.rtol, args.atol)
            .map_err(|m| format!("tb-run: --expected: result #{i} {m}"))?;
        if let Some((at, a, e)) = c.first_mismatch {
            return Err(format!(
                "tb-run: --expected: result #{i} differs from the expected file at element {at}: \
                 {a} vs {e} (rtol {}, atol {}; max abs error {:.3e}, max rel error {:.3e})",
                args.rtol, args.atol, c.max_abs_error, c.max_rel_error
            ));
        }
        println!(
            "expected: result #{i} matches (max abs error {:.3e}, max rel error {:.3e})",
            c.max_abs_error, c.max_rel_error
        );
    }
    Ok(())
}

/// What a run's results are compared with and named by.
struct Outputs<'a> {
    types: &'a [String],
    names: &'a [Option<String>],
    expected: &'a [Option<Tensor>],
}

/// `--device cuda`: lowers with the pipeline, maps loops onto kernels, runs on the GPU.
fn run_on_cuda(
    args: &Args,
    loaded: &mut Loaded,
    name: &str,
    inputs: &[Tensor],
    outputs: Outputs,
    reference: Option<Vec<Tensor>>,
    lower_options: LowerOptions,
) -> Result<(), String> {
    if let Some(flag) = [
        (args.mcpu.is_some(), "--mcpu"),
        (args.mattr.is_some(), "--mattr"),
        (args.threads.is_some(), "--threads"),
        (profiling(args), "--profile"),
        (args.stats, "--stats"),
    ]
    .iter()
    .find_map(|&(given, flag)| given.then_some(flag))
    {
        return Err(format!(
            "tb-run: {flag} applies to CPU runs, not to --device cuda"
        ));
    }
    // No GPU, no driver: say so before compiling anything.
    let device = tb_tools::gpu::open_device()?;
    lower(
        loaded,
        args.pipeline.as_deref().unwrap_or("gpu"),
        lower_options,
        "tb-run",
        "tb-run --list-passes",
    )?;
    let bench = args.bench.unwrap_or(0) as usize;
    let run =
        tb_tools::gpu::run_on_device(&device, &mut loaded.ctx, loaded.module, name, inputs, bench)
            .map_err(|failure| match failure {
                tb_tools::gpu::RunFailure::Compile(d) => loaded.render(&d),
                tb_tools::gpu::RunFailure::Device(m) => format!("tb-run: --device cuda: {m}"),
            })?;
    println!("device: {}, {} kernel launch(es)", run.device, run.kernels);
    report(args, outputs.types, outputs.names, &run.results)?;
    if !run.times_ms.is_empty() {
        let median = run.times_ms[run.times_ms.len() / 2];
        println!(
            "bench (CUDA events, {} runs): median {median:.4} ms, min {:.4} ms, max {:.4} ms",
            run.times_ms.len(),
            run.times_ms[0],
            run.times_ms[run.times_ms.len() - 1]
        );
    }
    compare_expected(args, &run.results, outputs.expected)?;
    if let Some(reference) = reference {
        check(args, &run.results, &reference)?;
    }
    Ok(())
}

/// Prints the results and writes them to --output-dir.
fn report(
    args: &Args,
    types: &[String],
    names: &[Option<String>],
    results: &[Tensor],
) -> Result<(), String> {
    for (i, (tensor, ty)) in results.iter().zip(types).enumerate() {
        let label = match names.get(i).cloned().flatten() {
            Some(name) => format!("result #{i} '{name}'"),
            None => format!("result #{i}"),
        };
        println!(
            "{label}: {ty} = {}",
            format_tensor(tensor, args.print_limit)
        );
    }
    if let Some(dir) = &args.output_dir {
        write_outputs(dir, names, results)?;
    }
    Ok(())
}

/// `--check`: every result against the interpreter's.
fn check(args: &Args, results: &[Tensor], reference: &[Tensor]) -> Result<(), String> {
    for (i, (actual, expected)) in results.iter().zip(reference).enumerate() {
        let c = compare(actual, expected, args.rtol, args.atol)
            .map_err(|m| format!("tb-run: --check: result #{i} {m}"))?;
        if let Some((at, a, e)) = c.first_mismatch {
            return Err(format!(
                "tb-run: --check: result #{i} differs from the interpreter at element {at}: {a} vs {e} \
                 (rtol {}, atol {}; max abs error {:.3e}, max rel error {:.3e})",
                args.rtol, args.atol, c.max_abs_error, c.max_rel_error
            ));
        }
        println!(
            "check: result #{i} matches the interpreter (max abs error {:.3e}, max rel error {:.3e})",
            c.max_abs_error, c.max_rel_error
        );
    }
    Ok(())
}

/// What buffer planning recorded on the module's functions.
fn planned_buffers(ctx: &Context, module: OpId) -> String {
    let (mut arena, mut requested) = (0i64, 0i64);
    let mut read = |op: OpId| {
        let int = |name: &str| match ctx.op_attr(op, name).map(|a| ctx.attr_kind(a)) {
            Some(AttrKind::Integer { value, .. }) => *value as i64,
            _ => 0,
        };
        arena += int("tb.arena_bytes");
        requested += int("tb.requested_bytes");
    };
    ctx.walk_nested(module, &mut |op| read(op));
    if requested == 0 {
        "no buffers planned".into()
    } else {
        format!("buffers {} planned from {}", mib(arena), mib(requested))
    }
}

/// `bytes` in the largest binary unit that keeps a number of at least 1 (B, KiB, MiB, GiB).
/// `--stats`: the kernels of the lowered function `name` and their estimated traffic.
fn print_stats(loaded: &Loaded, name: &str) -> Result<(), String> {
    let func = tb_ir::symbol_table::lookup_symbol_in(&loaded.ctx, loaded.module, name)
        .ok_or_else(|| format!("tb-run: --stats: the lowered module has no @{name}"))?;
    let traffic = tb_passes::fusion::loop_traffic(&loaded.ctx, func);
    println!("kernels: {}", traffic.kernels);
    let dynamic = if traffic.dynamic_buffers == 0 {
        String::new()
    } else {
        format!(
            "; {} buffer access(es) of dynamic size not counted",
            traffic.dynamic_buffers
        )
    };
    println!(
        "estimated memory traffic: {} ({} bytes: read {}, written {}{dynamic})",
        human_bytes(traffic.bytes_moved()),
        traffic.bytes_moved(),
        traffic.bytes_read,
        traffic.bytes_written
    );
    Ok(())
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn mib(bytes: i64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn pick_function(interp: &Interpreter, requested: Option<&str>) -> Result<String, String> {
    let names = interp.function_names();
    if let Some(name) = requested {
        return if names.iter().any(|n| n == name) {
            Ok(name.to_string())
        } else {
            Err(format!(
                "tb-run: no function @{name} with a body; the module has: {}",
                list(&names)
            ))
        };
    }
    match names.as_slice() {
        [only] => Ok(only.clone()),
        _ if names.iter().any(|n| n == "main") => Ok("main".into()),
        [] => Err("tb-run: the module has no function with a body".into()),
        _ => Err(format!(
            "tb-run: the module has several functions ({}); choose one with --function",
            list(&names)
        )),
    }
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("@{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn read_inputs(
    ctx: &Context,
    name: &str,
    types: &[tb_ir::Type],
    paths: &[PathBuf],
) -> Result<Vec<Tensor>, String> {
    if types.len() != paths.len() {
        let expected = types
            .iter()
            .enumerate()
            .map(|(i, &t)| format!("  #{i}: {}", type_to_string(ctx, t)))
            .collect::<Vec<_>>()
            .join("\n");
        return Err(format!(
            "tb-run: @{name} takes {} arguments, {} --input files were given; expected:\n{expected}\n\
             (pass one --input FILE.npy per argument, or --random-inputs SEED)",
            types.len(),
            paths.len()
        ));
    }
    // Each argument must fit the budget before its file is read, and no file is read past
    // what its argument can take.
    memory::check_types(ctx, "argument", types).map_err(|m| format!("tb-run: @{name}: {m}"))?;
    paths
        .iter()
        .zip(types)
        .map(|(p, &ty)| memory::read_input(ctx, p, ty).map_err(|m| format!("tb-run: {m}")))
        .collect()
}

/// The file name result `i` is saved under: its model name made safe for a file name
/// (`/` and other separators become `_`), else `output_<i>`; a name used twice falls back.
fn output_file_names(names: &[Option<String>], count: usize) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    (0..count)
        .map(|i| {
            let from_model = names.get(i).cloned().flatten().map(|n| {
                n.chars()
                    .map(|c| {
                        if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>()
            });
            let name = from_model
                .filter(|n| !n.is_empty() && !n.starts_with('.') && !taken.contains(n))
                .unwrap_or_else(|| format!("output_{i}"));
            taken.insert(name.clone());
            format!("{name}.npy")
        })
        .collect()
}

/// Writes every result, all or none: a failure on one output leaves every file as it was.
fn write_outputs(dir: &Path, names: &[Option<String>], results: &[Tensor]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("tb-run: cannot create '{}': {e}", dir.display()))?;
    let mut outputs = OutputSet::new();
    let files = output_file_names(names, results.len());
    for (tensor, file) in results.iter().zip(&files) {
        outputs
            .write(dir.join(file), &to_npy_bytes(tensor))
            .map_err(|e| format!("tb-run: {e}"))?;
    }
    outputs.commit().map_err(|e| format!("tb-run: {e}"))
}

/// Nested brackets as numpy prints them, with at most `limit` elements.
fn format_tensor(t: &Tensor, limit: usize) -> String {
    let values = t.to_f64_vec();
    let is_float = t.dtype().is_float();
    // Shortest text that reads back to the value in its own format.
    let narrow = is_float && t.dtype() != tb_interpreter::DType::F64;
    let is_bool = t.dtype() == tb_interpreter::DType::Bool;
    let fmt = |v: f64| {
        if is_bool {
            (v != 0.0).to_string()
        } else if narrow {
            format!("{:?}", v as f32)
        } else if is_float {
            format!("{v:?}")
        } else {
            format!("{}", v as i128)
        }
    };
    if limit == 0 {
        return format!("<{} elements>", values.len());
    }
    if t.rank() == 0 {
        return values.first().map(|&v| fmt(v)).unwrap_or_default();
    }
    let shape = t.shape();
    let mut out = String::new();
    let n = values.len();
    for (flat, &v) in values.iter().enumerate() {
        // Open a bracket for every dimension this element starts.
        let mut stride = 1;
        let mut opens = 0;
        for &d in shape.iter().rev() {
            stride *= d.max(1) as usize;
            if flat % stride == 0 {
                opens += 1;
            } else {
                break;
            }
        }
        if flat > 0 {
            out.push_str(", ");
        }
        out.push_str(&"[".repeat(opens));
        if flat == limit {
            out.push_str("...");
            out.push_str(&"]".repeat(shape.len()));
            return out;
        }
        out.push_str(&fmt(v));
        let mut stride = 1;
        for &d in shape.iter().rev() {
            stride *= d.max(1) as usize;
            if (flat + 1) % stride == 0 {
                out.push(']');
            } else {
                break;
            }
        }
    }
    if n == 0 {
        out.push_str(&"[".repeat(shape.len()));
        out.push_str(&"]".repeat(shape.len()));
    }
    out
}

/// Whether `--profile` or `--profile-trace` asks for kernel times.
fn profiling(args: &Args) -> bool {
    args.profile || args.profile_trace.is_some()
}

/// `--profile`: brackets each kernel of the lowered function `name` with the runtime's
/// timing calls; `None` when no profile is asked for.
fn instrument_for_profile(
    args: &Args,
    loaded: &mut Loaded,
    name: &str,
) -> Result<Option<Vec<profile::Kernel>>, String> {
    if !profiling(args) {
        return Ok(None);
    }
    profile::instrument(&mut loaded.ctx, loaded.module, name)
        .map(Some)
        .map_err(|m| format!("tb-run: {m}"))
}

/// Prints the kernel table of the recording of `runs` runs, and writes the trace if asked.
fn report_profile(args: &Args, kernels: &[profile::Kernel], runs: u32) -> Result<(), String> {
    let recording = runtime_profile::take_recording();
    print!("{}", profile::table(kernels, &recording, runs));
    if let Some(path) = &args.profile_trace {
        tb_support::write_output(path, profile::chrome_trace(kernels, &recording).as_bytes())
            .map_err(|e| format!("tb-run: --profile-trace: {e}"))?;
    }
    Ok(())
}

/// Whether the module holds ops of the `affine` dialect.
fn has_affine_ops(loaded: &Loaded) -> bool {
    let mut found = false;
    loaded.ctx.walk_nested(loaded.module, &mut |op| {
        found |= loaded.ctx.op_name(op).starts_with("affine.");
    });
    found
}
