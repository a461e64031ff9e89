//! `tb-run`: runs a model, an ONNX file or an MLIR module at any level, on `.npy` inputs and
//! writes its results as `.npy` files.
//!
//! By default the module goes through the CPU pipeline ([`tb_passes::pipelines::CPU`]:
//! graph → te → loop, buffer planning), is compiled for the host CPU and run natively.
//! `--interpret` runs the reference interpreter on the module as given instead; `--check`
//! runs both and compares; `--bench N` times N more runs of the compiled code and reports
//! the peak heap memory it used.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use tb_backends::cpu::{
    CompileOptions, CompiledModule, TargetOptions, heap_stats, reset_heap_peak,
};
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::{Interpreter, func_signature};
use tb_interpreter::{Tensor, to_npy_bytes};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::type_to_string;
use tb_ir::{AttrKind, Context, OpId};
use tb_support::OutputSet;
use tb_tools::compare::compare;
use tb_tools::latency::Latency;
use tb_tools::load::{Loaded, is_onnx, load_mlir, load_onnx, parse_input_shapes};
use tb_tools::memory;

#[derive(Parser, Debug)]
#[command(
    name = "tb-run",
    about = "TensorBind runner: compile and run a model (.onnx or .mlir) on .npy inputs"
)]
struct Args {
    /// The model: an ONNX file (`.onnx`) or an MLIR module (`-` for stdin).
    input: String,
    /// ONNX inputs with dynamic dimensions: their shape, e.g. `input_ids=1x128`.
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shapes: Vec<String>,
    /// Run with the reference interpreter instead of compiling.
    #[arg(long, conflicts_with_all = ["check", "bench"])]
    interpret: bool,
    /// Also run the reference interpreter on the module as given and compare every result
    /// (within --rtol/--atol); exits non-zero on a mismatch.
    #[arg(long)]
    check: bool,
    /// Relative tolerance of --check.
    #[arg(long, default_value_t = 1e-3, value_name = "R")]
    rtol: f64,
    /// Absolute tolerance of --check.
    #[arg(long, default_value_t = 1e-5, value_name = "A")]
    atol: f64,
    /// Time N runs of the compiled function after one warm-up run; prints the median,
    /// minimum and maximum latency and the peak memory.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    bench: Option<u32>,
    /// The pass pipeline that lowers the module before compilation.
    #[arg(long, value_name = "PIPELINE", default_value = tb_passes::pipelines::CPU)]
    pipeline: String,
    /// Where compiled code runs: `cpu` (the default) or `cuda` (the first NVIDIA GPU; the
    /// pipeline then also maps loops onto kernels, and --bench times with CUDA events).
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
    /// An input as a `.npy` file, one per function argument, in order.
    #[arg(long = "input", value_name = "FILE.npy")]
    inputs: Vec<PathBuf>,
    /// Use seeded random inputs instead of --input files.
    #[arg(long = "random-inputs", value_name = "SEED")]
    random_inputs: Option<u64>,
    /// Write result i as DIR/output_<i>.npy (the directory is created if needed).
    #[arg(long = "output-dir", value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Elements printed per result on stdout (0 prints only the types).
    #[arg(long = "print-limit", default_value_t = 64)]
    print_limit: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
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

fn load(args: &Args) -> Result<Loaded, String> {
    if is_onnx(&args.input) {
        let shapes = parse_input_shapes(&args.input_shapes).map_err(|m| format!("tb-run: {m}"))?;
        return load_onnx(&args.input, shapes).map_err(|m| format!("tb-run: {m}"));
    }
    if !args.input_shapes.is_empty() {
        return Err("tb-run: --input-shape applies to ONNX models only".into());
    }
    let text = if args.input == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("tb-run: cannot read stdin: {e}"))?
    } else {
        std::fs::read_to_string(&args.input)
            .map_err(|e| format!("tb-run: cannot read '{}': {e}", args.input))?
    };
    let filename = if args.input == "-" {
        "<stdin>"
    } else {
        &args.input
    };
    load_mlir(&text, filename)
}

fn run(args: &Args) -> Result<(), String> {
    let mut loaded = load(args)?;
    let (name, inputs, result_types, results_fit) = {
        let interp = Interpreter::new(&loaded.ctx, loaded.module);
        let name = pick_function(&interp, args.function.as_deref())?;
        let func = interp
            .function(&name)
            .expect("picked among the module's functions");
        let (arg_types, result_types) = func_signature(&loaded.ctx, func)
            .ok_or_else(|| format!("tb-run: @{name} has no function type"))?;
        let inputs = match args.random_inputs {
            Some(seed) => {
                if !args.inputs.is_empty() {
                    return Err("tb-run: --input and --random-inputs exclude each other".into());
                }
                random_arguments(&loaded.ctx, func, seed)
                    .map_err(|m| format!("tb-run: @{name}: {m}"))?
            }
            None => read_inputs(&loaded.ctx, &name, &arg_types, &args.inputs)?,
        };
        // The interpreter checks each op's results itself, where they are computed.
        let results_fit = memory::check_types(&loaded.ctx, "result", &result_types)
            .map_err(|m| format!("tb-run: @{name}: {m}"));
        let result_types: Vec<String> = result_types
            .iter()
            .map(|&t| type_to_string(&loaded.ctx, t))
            .collect();
        (name, inputs, result_types, results_fit)
    };
    let interpret = |loaded: &Loaded| {
        Interpreter::new(&loaded.ctx, loaded.module)
            .run_function(&name, &inputs)
            .map_err(|d| loaded.render(&d))
    };
    if args.interpret {
        let results = interpret(&loaded)?;
        return report(args, &result_types, &results);
    }
    // The reference runs on the module as given, before lowering changes it.
    let reference = if args.check {
        Some(interpret(&loaded)?)
    } else {
        None
    };
    // Compiled code's buffers are allocated by the caller (arguments and results) and by
    // the code itself (what the lowering allocates): all are checked before anything runs.
    results_fit?;
    if args.device == "cuda" {
        return run_on_cuda(args, &mut loaded, &name, &inputs, &result_types, reference);
    }
    lower(&mut loaded, &args.pipeline)?;
    memory::check_allocations(&loaded.ctx, loaded.module).map_err(|d| loaded.render(&d))?;
    let options = CompileOptions {
        target: TargetOptions {
            cpu: args.mcpu.clone(),
            features: args.mattr.clone(),
        },
        threads: args.threads,
        functions: Some(vec![name.clone()]),
        ..CompileOptions::default()
    };
    let compiled = CompiledModule::compile(&loaded.ctx, loaded.module, &options)
        .map_err(|d| loaded.render(&d))?;
    if let Some(entry) = compiled.entry_points().find(|e| e.name == name) {
        memory::check_entry_point(entry).map_err(|m| format!("tb-run: @{name}: {m}"))?;
    }
    let mut call = compiled
        .prepare(&name, &inputs)
        .map_err(|e| format!("tb-run: {e}"))?;
    call.run();
    let results = call.outputs().map_err(|e| format!("tb-run: {e}"))?;
    report(args, &result_types, &results)?;
    if let Some(runs) = args.bench {
        reset_heap_peak();
        let before = heap_stats().live;
        let times: Vec<_> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                call.run();
                start.elapsed()
            })
            .collect();
        let latency = Latency::of(&times).expect("at least one run");
        println!("bench: {latency}");
        let peak = heap_stats().peak.saturating_sub(before) + call.argument_bytes();
        println!(
            "peak memory: {} ({})",
            mib(peak as i64),
            planned_buffers(&loaded.ctx, loaded.module)
        );
    }
    if let Some(reference) = reference {
        check(args, &results, &reference)?;
    }
    Ok(())
}

/// `--device cuda`: lowers with the pipeline, maps loops onto kernels, runs on the GPU.
fn run_on_cuda(
    args: &Args,
    loaded: &mut Loaded,
    name: &str,
    inputs: &[Tensor],
    result_types: &[String],
    reference: Option<Vec<Tensor>>,
) -> Result<(), String> {
    // No GPU, no driver: say so before compiling anything.
    let device = tb_tools::gpu::open_device()?;
    lower(loaded, &args.pipeline)?;
    let bench = args.bench.unwrap_or(0) as usize;
    let run =
        tb_tools::gpu::run_on_device(&device, &mut loaded.ctx, loaded.module, name, inputs, bench)
            .map_err(|failure| match failure {
                tb_tools::gpu::RunFailure::Compile(d) => loaded.render(&d),
                tb_tools::gpu::RunFailure::Device(m) => format!("tb-run: --device cuda: {m}"),
            })?;
    println!("device: {}, {} kernel launch(es)", run.device, run.kernels);
    report(args, result_types, &run.results)?;
    if !run.times_ms.is_empty() {
        let median = run.times_ms[run.times_ms.len() / 2];
        println!(
            "bench (CUDA events, {} runs): median {median:.4} ms, min {:.4} ms, max {:.4} ms",
            run.times_ms.len(),
            run.times_ms[0],
            run.times_ms[run.times_ms.len() - 1]
        );
    }
    if let Some(reference) = reference {
        check(args, &run.results, &reference)?;
    }
    Ok(())
}

/// Runs `pipeline` on the module, verifying after each pass.
fn lower(loaded: &mut Loaded, pipeline: &str) -> Result<(), String> {
    let parsed =
        Pipeline::parse(pipeline).map_err(|e| format!("tb-run: invalid --pipeline: {e}"))?;
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let mut manager =
        PassManager::new(&parsed, &registry).map_err(|m| format!("tb-run: --pipeline: {m}"))?;
    manager
        .run(&mut loaded.ctx, loaded.module, &Instrumentation::default())
        .map_err(|d| loaded.render(&d))
}

/// Prints the results and writes them to --output-dir.
fn report(args: &Args, types: &[String], results: &[Tensor]) -> Result<(), String> {
    for (i, (tensor, ty)) in results.iter().zip(types).enumerate() {
        println!(
            "result #{i}: {ty} = {}",
            format_tensor(tensor, args.print_limit)
        );
    }
    if let Some(dir) = &args.output_dir {
        write_outputs(dir, results)?;
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

/// Writes every result, all or none: a failure on one output leaves every file as it was.
fn write_outputs(dir: &Path, results: &[Tensor]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("tb-run: cannot create '{}': {e}", dir.display()))?;
    let mut outputs = OutputSet::new();
    for (i, tensor) in results.iter().enumerate() {
        outputs
            .write(dir.join(format!("output_{i}.npy")), &to_npy_bytes(tensor))
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
