//! `tb-run`: runs a function of an MLIR module on `.npy` inputs and writes its results as
//! `.npy` files. By default the function is compiled for the host CPU by the CPU backend
//! and run natively (loop level: func/arith/math/memref/loop); `--interpret` uses the
//! reference interpreter instead, which executes every level (graph, te, loop, ...).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use tb_backends::cpu::{CompileOptions, CompiledModule, TargetOptions};
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::{Interpreter, func_signature};
use tb_interpreter::{Tensor, read_npy, write_npy};
use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::type_to_string;
use tb_ir::{Context, verifier};

#[derive(Parser, Debug)]
#[command(
    name = "tb-run",
    about = "TensorBind runner: execute a function of an MLIR module on .npy inputs"
)]
struct Args {
    /// The module to run (`-` for stdin).
    input: String,
    /// Run with the reference interpreter instead of compiling.
    #[arg(long)]
    interpret: bool,
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

fn run(args: &Args) -> Result<(), String> {
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
    let mut sources = SourceMgr::new();
    sources.add_buffer(filename, &text);
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).map_err(|bug| format!("tb-run: internal error: {bug}"))?;
    let module = parse_source(&mut ctx, &text, filename, &ParseOptions::default())
        .map_err(|d| render(&ctx, &sources, &d))?;
    verifier::verify(&ctx, module).map_err(|d| render(&ctx, &sources, &d))?;

    let mut interp = Interpreter::new(&ctx, module);
    let name = pick_function(&interp, args.function.as_deref())?;
    let func = interp
        .function(&name)
        .expect("picked among the module's functions");
    let (arg_types, result_types) = func_signature(&ctx, func)
        .ok_or_else(|| format!("tb-run: @{name} has no function type"))?;
    let inputs = match args.random_inputs {
        Some(seed) => {
            if !args.inputs.is_empty() {
                return Err("tb-run: --input and --random-inputs exclude each other".into());
            }
            random_arguments(&ctx, func, seed).map_err(|m| format!("tb-run: @{name}: {m}"))?
        }
        None => read_inputs(&ctx, &name, &arg_types, &args.inputs)?,
    };
    let results = if args.interpret {
        interp
            .run_function(&name, &inputs)
            .map_err(|d| render(&ctx, &sources, &d))?
    } else {
        let options = CompileOptions {
            target: TargetOptions {
                cpu: args.mcpu.clone(),
                features: args.mattr.clone(),
            },
            threads: args.threads,
            functions: Some(vec![name.clone()]),
            ..CompileOptions::default()
        };
        let compiled = CompiledModule::compile(&ctx, module, &options)
            .map_err(|d| render(&ctx, &sources, &d))?;
        compiled
            .run(&name, &inputs)
            .map_err(|e| format!("tb-run: {e}"))?
    };
    for (i, (tensor, &ty)) in results.iter().zip(&result_types).enumerate() {
        println!(
            "result #{i}: {} = {}",
            type_to_string(&ctx, ty),
            format_tensor(tensor, args.print_limit)
        );
    }
    if let Some(dir) = &args.output_dir {
        write_outputs(dir, &results)?;
    }
    Ok(())
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
    paths
        .iter()
        .map(|p| read_npy(p).map_err(|e| format!("tb-run: {}: {e}", p.display())))
        .collect()
}

/// Writes every result, each to a temporary name first and renamed when complete, so a
/// failure leaves no half-written file behind.
fn write_outputs(dir: &Path, results: &[Tensor]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("tb-run: cannot create '{}': {e}", dir.display()))?;
    for (i, tensor) in results.iter().enumerate() {
        let path = dir.join(format!("output_{i}.npy"));
        let partial = dir.join(format!(".output_{i}.npy.partial"));
        write_npy(&partial, tensor)
            .map_err(|e| e.to_string())
            .and_then(|()| std::fs::rename(&partial, &path).map_err(|e| e.to_string()))
            .map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                format!("tb-run: cannot write '{}': {e}", path.display())
            })?;
    }
    Ok(())
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
