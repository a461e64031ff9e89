//! `tb-translate`: translations between TensorBind IR and other formats (ONNX in; LLVM IR,
//! assembly, object files and shared libraries out), like `mlir-translate`.
//!
//! - `--emit=llvm-ir|asm|obj|shared-lib` compiles a loop-level module for the host CPU (or
//!   `--mcpu`/`--mattr`) and writes LLVM IR, assembly, an object file or a shared library;
//!   object files and libraries get a C header declaring their entry points next to them
//!   (`-o out.o` writes `out.h`), and `--emit=c-header` prints that header alone.
//! - `--version` reports the toolchain it links and `--list-targets` the code-generation
//!   targets it can use.
//!
//! Nothing is written when the input cannot be translated: the error is reported with its
//! location and the exit status is non-zero.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use tb_backends::cpu::emit::link_shared_library;
use tb_backends::cpu::header::c_header;
use tb_backends::cpu::{CompileOptions, EmitKind, OptLevel, TargetOptions, emit};
use tb_backends::llvm_info;
use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::{Context, verifier};
use tb_support::{OutputError, OutputSet};

#[derive(Parser, Debug)]
#[command(
    name = "tb-translate",
    about = "TensorBind translator: ONNX import, LLVM IR / assembly / object / shared-library emission",
    disable_version_flag = true
)]
struct Cli {
    /// Print the TensorBind version, the linked LLVM version and the available targets
    #[arg(short = 'V', long)]
    version: bool,

    /// List TensorBind's code-generation targets and the targets registered in LLVM
    #[arg(long)]
    list_targets: bool,

    /// Import an ONNX model (the input file) into the graph dialect
    #[arg(long)]
    import_onnx: bool,

    /// Fix the shape of an ONNX graph input with dynamic dimensions (repeatable)
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shape: Vec<String>,

    /// Compile the module and write: llvm-ir, asm, obj, shared-lib, c-header, or ptx
    /// (loop nests are mapped onto GPU kernels first)
    #[arg(long, value_name = "KIND")]
    emit: Option<String>,

    /// --emit=ptx: the GPU architecture, sm_80 or sm_90
    #[arg(long = "gpu-arch", value_name = "ARCH", default_value = "sm_80")]
    gpu_arch: String,

    /// Output file (`-`, the default, is standard output; obj and shared-lib need a file)
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    output: PathBuf,

    /// CPU to generate code for (`native`, the default, is the host CPU with its features)
    #[arg(long, value_name = "NAME")]
    mcpu: Option<String>,

    /// LLVM target features, e.g. `+avx2,-avx512f` (default: the CPU's own)
    #[arg(long, value_name = "FEATURES")]
    mattr: Option<String>,

    /// Optimization level (0-3)
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 3)]
    opt_level: u32,

    /// Run parallel loops on the runtime's thread pool with N threads (0: one per core);
    /// the output then calls `tb_rt_parallel_for` (it carries a weak, sequential one)
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Accept ops of unregistered dialects (as mlir-translate does)
    #[arg(long = "allow-unregistered-dialect")]
    allow_unregistered_dialect: bool,

    /// Input file to translate (`-` reads standard input)
    input: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Write(error)) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(Failure::Translate(message)) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
        Err(Failure::Input(rendered)) => {
            eprint!("{rendered}");
            if !rendered.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
        Err(failure) => {
            eprintln!("tb-translate: error: {failure}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    /// Writing to standard output failed.
    Output(io::Error),
    /// An output file could not be written; nothing was.
    Write(OutputError),
    /// The command line asked for something this build cannot do.
    Usage(String),
    /// The translation failed; the message is complete, one error per line.
    Translate(String),
    /// The input could not be translated; the message is already rendered.
    Input(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Output(error) => write!(f, "cannot write to standard output: {error}"),
            Failure::Write(error) => write!(f, "{error}"),
            Failure::Usage(message) => f.write_str(message),
            Failure::Translate(message) => f.write_str(message),
            Failure::Input(message) => f.write_str(message),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Output(error)
    }
}

fn run(cli: &Cli) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if cli.version {
        print_version(&mut out)?;
    }
    if cli.list_targets {
        print_targets(&mut out)?;
    }
    out.flush()?;

    if cli.import_onnx {
        return import_onnx::run(cli);
    }
    match &cli.input {
        Some(input) => {
            let bytes = read_input(input)?;
            match &cli.emit {
                Some(kind) => emit_output(cli, input, &bytes, kind),
                None => Err(Failure::Usage(format!(
                    "no translation selected for '{}': use --emit=KIND",
                    input.display()
                ))),
            }
        }
        None if cli.version || cli.list_targets => Ok(()),
        None => Err(Failure::Usage(
            "no input file and nothing to do; see 'tb-translate --help'".to_owned(),
        )),
    }
}

/// `--import-onnx`: ONNX model → graph-dialect module, written only when the whole import
/// succeeded.
mod import_onnx {
    use tb_ir::printer::{PrintOptions, print_operation};
    use tb_onnx::Model;
    use tb_onnx::import::{ImportOptions, import_model};
    use tb_support::write_output;
    use tb_tools::load::parse_input_shapes;

    use super::{Cli, Failure};

    pub fn run(cli: &Cli) -> Result<(), Failure> {
        let input = cli
            .input
            .as_ref()
            .ok_or_else(|| Failure::Usage("--import-onnx needs an input model file".to_owned()))?;
        let input_shapes = parse_input_shapes(&cli.input_shape).map_err(Failure::Usage)?;
        let model = Model::load(input).map_err(|e| Failure::Usage(e.to_string()))?;
        let options = ImportOptions {
            input_shapes,
            file_name: input.display().to_string(),
            cleanup: Some(tb_passes::register_all),
            ..ImportOptions::default()
        };
        let imported =
            import_model(&model, &options).map_err(|e| Failure::Translate(e.to_string()))?;
        let print = PrintOptions {
            debug_info: true,
            ..PrintOptions::default()
        };
        let text = print_operation(&imported.ctx, imported.module, print);
        write_output(&cli.output, text.as_bytes()).map_err(Failure::Write)
    }
}

fn read_input(input: &PathBuf) -> Result<Vec<u8>, Failure> {
    let result = if input.as_os_str() == "-" {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    } else {
        fs::read(input)
    };
    result.map_err(|error| Failure::Usage(format!("cannot read '{}': {error}", input.display())))
}

fn print_version(out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "tb-translate (TensorBind) {}",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "LLVM version: {}", llvm_info::llvm_version())?;
    writeln!(out, "default target: {}", llvm_info::default_triple())?;
    writeln!(out, "host CPU: {}", llvm_info::host_cpu_name())?;
    let targets: Vec<String> = llvm_info::target_statuses()
        .iter()
        .map(|status| format!("{} ({})", status.kind, status.availability()))
        .collect();
    writeln!(out, "targets: {}", targets.join(", "))
}

fn print_targets(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "TensorBind targets:")?;
    for status in llvm_info::target_statuses() {
        let detail = match (&status.llvm_name, &status.error) {
            (_, Some(error)) => error.clone(),
            (Some(name), None) => format!("LLVM target {name}"),
            (None, None) => String::new(),
        };
        writeln!(
            out,
            "  {:<8} {:<26} {:<12} {detail}",
            status.kind.name(),
            status.triple,
            status.availability(),
        )?;
    }
    writeln!(out, "Registered LLVM targets:")?;
    for target in llvm_info::registered_targets() {
        writeln!(out, "  {:<10} - {}", target.name, target.description)?;
    }
    Ok(())
}

/// What `--emit` asked for.
enum Output {
    Llvm(EmitKind),
    Header,
}

fn parse_emit(kind: &str) -> Result<Output, Failure> {
    if kind == "c-header" {
        return Ok(Output::Header);
    }
    EmitKind::from_name(kind).map(Output::Llvm).ok_or_else(|| {
        let known: Vec<&str> = EmitKind::ALL.iter().map(|k| k.name()).collect();
        Failure::Usage(format!(
            "unknown --emit kind '{kind}' (expected {} or c-header)",
            known.join(", ")
        ))
    })
}

/// `--emit=ptx`: the module's loop nests as GPU kernels, in PTX for `--gpu-arch`.
fn emit_ptx(cli: &Cli, input: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let arch = tb_backends::nvptx::GpuArch::parse(&cli.gpu_arch).map_err(Failure::Usage)?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Failure::Usage(format!("'{}' is not UTF-8 text: {e}", input.display())))?;
    let filename = if input.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        input.display().to_string()
    };
    let mut sources = SourceMgr::new();
    sources.add_buffer(&filename, text);
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx)
        .map_err(|bug| Failure::Usage(format!("internal error: {bug}")))?;
    ctx.allow_unregistered_dialects = cli.allow_unregistered_dialect;
    let module = parse_source(&mut ctx, text, &filename, &ParseOptions::default())
        .map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;
    verifier::verify(&ctx, module).map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;
    let ptx = tb_tools::gpu::compile_ptx(&mut ctx, module, arch)
        .map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;
    let mut outputs = OutputSet::new();
    outputs
        .write(&cli.output, ptx.ptx.as_bytes())
        .map_err(Failure::Write)?;
    outputs.commit().map_err(Failure::Write)
}

/// Compiles the module in `bytes` and writes what `--emit` asks for.
fn emit_output(cli: &Cli, input: &Path, bytes: &[u8], kind: &str) -> Result<(), Failure> {
    if kind == "ptx" {
        return emit_ptx(cli, input, bytes);
    }
    let output = parse_emit(kind)?;
    let to_stdout = cli.output.as_os_str() == "-";
    let wants_file = matches!(output, Output::Llvm(EmitKind::Object | EmitKind::SharedLib));
    if wants_file && to_stdout {
        return Err(Failure::Usage(format!(
            "--emit={kind} writes a binary file; name it with -o FILE"
        )));
    }
    let opt_level = OptLevel::from_number(cli.opt_level).ok_or_else(|| {
        Failure::Usage(format!(
            "-O{} is not an optimization level (0-3)",
            cli.opt_level
        ))
    })?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Failure::Usage(format!("'{}' is not UTF-8 text: {e}", input.display())))?;
    let filename = if input.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        input.display().to_string()
    };
    let mut sources = SourceMgr::new();
    sources.add_buffer(&filename, text);
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx)
        .map_err(|bug| Failure::Usage(format!("internal error: {bug}")))?;
    ctx.allow_unregistered_dialects = cli.allow_unregistered_dialect;
    let module = parse_source(&mut ctx, text, &filename, &ParseOptions::default())
        .map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;
    verifier::verify(&ctx, module).map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;

    let options = CompileOptions {
        target: TargetOptions {
            cpu: cli.mcpu.clone(),
            features: cli.mattr.clone(),
        },
        opt_level,
        threads: cli.threads,
        ..CompileOptions::default()
    };
    let llvm_kind = match output {
        Output::Llvm(kind) => kind,
        Output::Header => EmitKind::LlvmIr,
    };
    let emitted = emit(&ctx, module, &options, llvm_kind)
        .map_err(|d| Failure::Input(render(&ctx, &sources, &d)))?;
    let header_name = |path: &Path| {
        path.with_extension("h")
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tb_module.h".to_owned())
    };
    // The object (or library) and its header are one output: both or neither.
    let mut outputs = OutputSet::new();
    match output {
        Output::Header => {
            // On standard output the header is named after the input.
            let name = if to_stdout {
                header_name(input)
            } else {
                header_name(&cli.output)
            };
            let header = c_header(&emitted.entry_points, &name, &filename);
            outputs
                .write(&cli.output, header.as_bytes())
                .map_err(Failure::Write)?;
        }
        Output::Llvm(kind) => {
            let bytes = match kind {
                EmitKind::SharedLib => {
                    link_shared_library(&emitted.bytes).map_err(Failure::Usage)?
                }
                _ => emitted.bytes,
            };
            outputs.write(&cli.output, &bytes).map_err(Failure::Write)?;
            if wants_file {
                let path = cli.output.with_extension("h");
                if path == cli.output {
                    return Err(Failure::Usage(format!(
                        "the C header would overwrite the output '{}': name the output \
                         with another extension",
                        path.display()
                    )));
                }
                let header = c_header(&emitted.entry_points, &header_name(&cli.output), &filename);
                outputs
                    .write(&path, header.as_bytes())
                    .map_err(Failure::Write)?;
            }
        }
    }
    outputs.commit().map_err(Failure::Write)
}
