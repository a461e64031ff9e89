//! `tb-translate`: translations between TensorBind IR and other formats (ONNX in; LLVM IR,
//! assembly, object files and shared libraries out), like `mlir-translate`.
//!
//! - `--import-onnx` (or an input named `*.onnx`) imports an ONNX model into the graph
//!   dialect and prints it.
//! - `--emit=llvm-ir|asm|obj|shared-lib` compiles a module for the host CPU (or
//!   `--mcpu`/`--mattr`) and writes LLVM IR, assembly, an object file or a shared library;
//!   object files and libraries get a C header declaring their entry points next to them
//!   (`-o out.o` writes `out.h`), libraries a JSON manifest too (`out.json`), and
//!   `--emit=c-header` prints that header alone. An ONNX model (and an MLIR module with
//!   `--lower`) goes through the CPU lowering pipeline first, so one command turns a model
//!   into a library. `--emit=c-runtime` writes the runtime library's C source.
//! - The input is standard input when none (or `-`) is named, as for `mlir-translate`.
//! - `--version` reports the toolchain it links and `--list-targets` the code-generation
//!   targets it can use.
//!
//! A flag that does not apply to what was asked is an error, never silently ignored.
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
use tb_backends::cpu::manifest::{ManifestInfo, manifest};
use tb_backends::cpu::runtime_library;
use tb_backends::cpu::{CompileOptions, EmitKind, OptLevel, TargetOptions, emit};
use tb_backends::llvm_info;
use tb_support::{OutputError, OutputSet};
use tb_tools::load::{Loaded, load_mlir_with, load_onnx, load_onnx_bytes, parse_input_shapes};
use tb_tools::lower::{LowerOptions, first_unlowered_op, lower};

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

    /// Read the input as an ONNX model (implied by a `.onnx` file name; needed for `-`)
    #[arg(long)]
    import_onnx: bool,

    /// Fix the shape of an ONNX graph input with dynamic dimensions (repeatable)
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shape: Vec<String>,

    /// Compile the module and write: llvm-ir, asm, obj, shared-lib, c-header; ptx (its loop
    /// nests mapped onto GPU kernels) or cubin (that PTX assembled by NVIDIA's ptxas); or
    /// c-runtime (the runtime library's C source, for programs that link an object file)
    #[arg(long, value_name = "KIND")]
    emit: Option<String>,

    /// --emit=ptx and --emit=cubin: the GPU architecture, sm_80 (the default) or sm_90
    #[arg(long = "gpu-arch", value_name = "ARCH")]
    gpu_arch: Option<String>,

    /// Lower an MLIR module with the CPU pipeline (graph -> te -> loop) before --emit;
    /// ONNX models always are
    #[arg(long)]
    lower: bool,

    /// Print the IR after every lowering pass (to standard error)
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,

    /// Report the wall time of every lowering pass (to standard error)
    #[arg(long = "mlir-timing")]
    timing: bool,

    #[command(flatten)]
    elide: tb_tools::print_flags::ElideFlags,

    /// Output file (`-`, the default, is standard output; obj and shared-lib need a file)
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    output: PathBuf,

    /// CPU to generate code for (`native`, the default, is the host CPU with its features)
    #[arg(long, value_name = "NAME")]
    mcpu: Option<String>,

    /// LLVM target features, e.g. `+avx2,-avx512f` (default: the CPU's own)
    #[arg(long, value_name = "FEATURES")]
    mattr: Option<String>,

    /// Optimization level (0-3; default 3)
    #[arg(short = 'O', value_name = "LEVEL")]
    opt_level: Option<u32>,

    /// Run parallel loops on a thread pool of N threads (0: one per core). A shared library
    /// carries the pool (the runtime library is linked in); an object file calls
    /// `tb_rt_parallel_for`, which `--emit=c-runtime` provides
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// A tuning database (`tb-tune --db`): each kernel whose task has a successful record
    /// for this CPU and thread count gets the fastest record's schedule; the others keep the
    /// heuristic one. Applies when the CPU pipeline runs (ONNX input, or --lower)
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,

    /// With --db: say on standard error which record or heuristic each kernel used
    #[arg(long, requires = "db")]
    explain: bool,

    /// Accept ops of unregistered dialects (as mlir-translate does)
    #[arg(long = "allow-unregistered-dialect")]
    allow_unregistered_dialect: bool,

    /// Input file to translate (`-`, the default, reads standard input)
    input: Option<PathBuf>,
}

impl Cli {
    /// The input, standard input (`-`) when none is named.
    fn input_path(&self) -> PathBuf {
        self.input.clone().unwrap_or_else(|| PathBuf::from("-"))
    }

    /// Whether the input is an ONNX model.
    fn is_onnx(&self) -> bool {
        self.import_onnx
            || self
                .input
                .as_ref()
                .and_then(|p| p.extension())
                .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
    }

    /// The code-generation flags given, by name: they apply only to a compiling --emit.
    fn codegen_flags(&self) -> Vec<&'static str> {
        let mut given = Vec::new();
        if self.mcpu.is_some() {
            given.push("--mcpu");
        }
        if self.mattr.is_some() {
            given.push("--mattr");
        }
        if self.opt_level.is_some() {
            given.push("-O");
        }
        if self.threads.is_some() {
            given.push("--threads");
        }
        given
    }

    /// The lowering flags given, by name: they apply only when a pipeline runs.
    fn lowering_flags(&self) -> Vec<&'static str> {
        let mut given = Vec::new();
        if self.print_ir_after_all {
            given.push("--mlir-print-ir-after-all");
        }
        if self.timing {
            given.push("--mlir-timing");
        }
        given
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.elide.apply();
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
    if (cli.version || cli.list_targets)
        && cli.input.is_none()
        && cli.emit.is_none()
        && !cli.import_onnx
    {
        return Ok(());
    }
    check_flags(cli)?;
    let emit = cli.emit.as_deref().map(parse_emit).transpose()?;
    if let Some(Output::Runtime) = emit {
        return write_runtime(cli);
    }
    let input = cli.input_path();
    let bytes = read_input(&input)?;
    match emit {
        None => import_onnx::run(cli, &input, &bytes),
        Some(output) => emit_output(cli, &input, &bytes, output),
    }
}

/// Refuses a combination of flags that would leave one of them without effect.
fn check_flags(cli: &Cli) -> Result<(), Failure> {
    let usage = |m: String| Err(Failure::Usage(m));
    let onnx = cli.is_onnx();
    if !cli.input_shape.is_empty() && !onnx {
        return usage(
            "--input-shape applies to ONNX models only: name a .onnx file, or add --import-onnx \
             for a model on standard input"
                .to_owned(),
        );
    }
    if onnx && cli.lower {
        return usage(
            "--lower applies to MLIR input: an ONNX model is always lowered before --emit"
                .to_owned(),
        );
    }
    let gpu_emit = matches!(cli.emit.as_deref(), Some("ptx" | "cubin"));
    if cli.gpu_arch.is_some() && !gpu_emit {
        return usage("--gpu-arch applies only to --emit=ptx and --emit=cubin".to_owned());
    }
    if gpu_emit && let Some(flag) = cli.codegen_flags().first() {
        return usage(format!(
            "{flag} applies to CPU code: --emit=ptx and --emit=cubin generate code for --gpu-arch"
        ));
    }
    if cli.emit.as_deref() == Some("mlir-upstream")
        && let Some(flag) = cli.codegen_flags().first()
    {
        return usage(format!(
            "{flag} applies to generated code: --emit=mlir-upstream writes MLIR text"
        ));
    }
    match cli.emit.as_deref() {
        None => {
            if !onnx {
                let input = cli.input_path();
                return usage(format!(
                    "no translation selected for '{}': use --emit=KIND or --import-onnx",
                    input.display()
                ));
            }
            let mut unused = cli.codegen_flags();
            if cli.lower {
                unused.push("--lower");
            }
            unused.extend(cli.lowering_flags());
            if cli.db.is_some() {
                unused.push("--db");
            }
            if let Some(flag) = unused.first() {
                return usage(format!(
                    "{flag} applies only with --emit: --import-onnx alone prints the imported \
                     graph-level module (add --emit=shared-lib, obj, llvm-ir, asm or c-header \
                     to compile it)"
                ));
            }
        }
        Some("c-runtime") => {
            let mut unused = cli.codegen_flags();
            if cli.input.is_some() || cli.import_onnx {
                unused.insert(0, "an input");
            }
            if !cli.input_shape.is_empty() {
                unused.push("--input-shape");
            }
            if cli.lower {
                unused.push("--lower");
            }
            unused.extend(cli.lowering_flags());
            if cli.db.is_some() {
                unused.push("--db");
            }
            if let Some(flag) = unused.first() {
                return usage(format!(
                    "{flag} does not apply to --emit=c-runtime, which writes the runtime \
                     library's source alone"
                ));
            }
        }
        Some(emit) => {
            let mut lowering = cli.lowering_flags();
            if cli.db.is_some() {
                lowering.push("--db");
            }
            if let (false, Some(flag)) = (onnx || cli.lower, lowering.first()) {
                return usage(format!(
                    "{flag} applies to the lowering pipeline, which runs on ONNX models \
                     and with --lower"
                ));
            }
            if emit == "ptx" && cli.db.is_some() {
                return usage(
                    "--db applies to CPU code: the tuning database holds CPU schedules, and \
                     --emit=ptx lowers with the GPU pipeline"
                        .to_owned(),
                );
            }
        }
    }
    if let Some(flag) = cli.elide.given().first()
        && cli.emit.is_some()
        && !cli.print_ir_after_all
    {
        return usage(format!(
            "{flag} applies to printed IR: the imported module (--import-onnx without \
             --emit) or --mlir-print-ir-after-all"
        ));
    }
    Ok(())
}

/// `--emit=c-runtime`: the runtime library's C source.
fn write_runtime(cli: &Cli) -> Result<(), Failure> {
    tb_support::write_output(&cli.output, runtime_library::SOURCE.as_bytes())
        .map_err(Failure::Write)
}

/// `--import-onnx` without `--emit`: ONNX model → graph-dialect module, written only when
/// the whole import succeeded.
mod import_onnx {
    use std::path::Path;

    use tb_ir::printer::{PrintOptions, print_operation};
    use tb_support::write_output;

    use super::{Cli, Failure, load_model};

    pub fn run(cli: &Cli, input: &Path, bytes: &[u8]) -> Result<(), Failure> {
        let loaded = load_model(cli, input, bytes)?;
        let print = PrintOptions {
            debug_info: true,
            ..PrintOptions::default()
        };
        let text = print_operation(&loaded.ctx, loaded.module, print);
        write_output(&cli.output, text.as_bytes()).map_err(Failure::Write)
    }
}

/// The name `input` has in locations and messages.
fn display_name(input: &Path) -> String {
    if input.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        input.display().to_string()
    }
}

/// The input as a verified module: an imported ONNX model, or parsed MLIR.
fn load_model(cli: &Cli, input: &Path, bytes: &[u8]) -> Result<Loaded, Failure> {
    let name = display_name(input);
    if cli.is_onnx() {
        let shapes = parse_input_shapes(&cli.input_shape).map_err(Failure::Usage)?;
        let loaded = if input.as_os_str() == "-" {
            load_onnx_bytes(bytes, &name, shapes)
        } else {
            load_onnx(&input.display().to_string(), shapes)
        };
        return loaded.map_err(Failure::Translate);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Failure::Usage(format!(
            "'{name}' is not UTF-8 text: {e} (for an ONNX model, add --import-onnx)"
        ))
    })?;
    load_mlir_with(text, &name, cli.allow_unregistered_dialect).map_err(Failure::Input)
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
    Runtime,
    Ptx,
    /// PTX assembled by NVIDIA's `ptxas` into machine code for `--gpu-arch`.
    Cubin,
    /// `mlir-upstream`: the loop level in upstream MLIR's dialects (scf, affine, memref,
    /// vector, arith, math, func), verified by MLIR in process.
    Upstream,
}

fn parse_emit(kind: &str) -> Result<Output, Failure> {
    match kind {
        "c-header" => return Ok(Output::Header),
        "c-runtime" => return Ok(Output::Runtime),
        "ptx" => return Ok(Output::Ptx),
        "cubin" => return Ok(Output::Cubin),
        "mlir-upstream" => return Ok(Output::Upstream),
        _ => {}
    }
    EmitKind::from_name(kind).map(Output::Llvm).ok_or_else(|| {
        let known: Vec<&str> = EmitKind::ALL.iter().map(|k| k.name()).collect();
        Failure::Usage(format!(
            "unknown --emit kind '{kind}' (expected {}, c-header, c-runtime, ptx, cubin or mlir-upstream)",
            known.join(", ")
        ))
    })
}

/// `--emit=ptx`: the module's loop nests mapped onto kernels (convert-loop-to-gpu), in PTX
/// for `--gpu-arch`; with `cubin`, assembled by `ptxas` into machine code.
fn emit_ptx(cli: &Cli, loaded: &mut tb_tools::load::Loaded, cubin: bool) -> Result<(), Failure> {
    let arch = tb_backends::nvptx::GpuArch::parse(cli.gpu_arch.as_deref().unwrap_or("sm_80"))
        .map_err(Failure::Usage)?;
    let ptx = tb_tools::gpu::compile_ptx(&mut loaded.ctx, loaded.module, arch)
        .map_err(|d| Failure::Input(loaded.render(&d)))?;
    if !cubin {
        return tb_support::write_output(&cli.output, ptx.ptx.as_bytes()).map_err(Failure::Write);
    }
    let bytes = tb_backends::nvptx::ptxas::assemble(&ptx.ptx, arch).map_err(Failure::Usage)?;
    tb_support::write_output(&cli.output, &bytes).map_err(Failure::Write)
}

/// `--emit=mlir-upstream`: `convert-loop-to-upstream`, then the module printed and handed
/// to an in-process MLIR 22, which must parse and verify it with only its own dialects.
fn emit_upstream(cli: &Cli, loaded: &mut Loaded) -> Result<(), Failure> {
    let text = tb_tools::upstream::export(&mut loaded.ctx, loaded.module).map_err(|e| match e {
        tb_tools::upstream::ExportError::Input(d) => Failure::Input(loaded.render(&d)),
        tb_tools::upstream::ExportError::Rejected(m) => Failure::Translate(m),
    })?;
    tb_support::write_output(&cli.output, text.as_bytes()).map_err(Failure::Write)
}

/// `--db`: lowers the module's front half and gives each kernel the best record of its task
/// for the device `--mcpu`/`--mattr` name on this machine and `--threads` (as `tb-run --db`
/// does); `--explain` prints the choices.
fn apply_database(cli: &Cli, loaded: &mut Loaded, db: &Path) -> Result<(), Failure> {
    let threads = match cli.threads {
        None => 1,
        Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(n) => n,
    };
    let explained = tb_tools::tuning::apply_database(
        &mut loaded.ctx,
        loaded.module,
        db,
        cli.mcpu.as_deref(),
        cli.mattr.as_deref(),
        threads,
    )
    .map_err(|m| Failure::Translate(format!("tb-translate: --db: {m}")))?;
    if cli.explain {
        for line in explained {
            eprintln!("explain: {line}");
        }
    }
    Ok(())
}

/// Loads the input, lowers it when asked (always for ONNX), compiles it and writes what
/// `--emit` asks for.
fn emit_output(cli: &Cli, input: &Path, bytes: &[u8], output: Output) -> Result<(), Failure> {
    let to_stdout = cli.output.as_os_str() == "-";
    let wants_file = matches!(output, Output::Llvm(EmitKind::Object | EmitKind::SharedLib));
    if wants_file && to_stdout {
        return Err(Failure::Usage(format!(
            "--emit={} writes a binary file; name it with -o FILE",
            cli.emit.as_deref().unwrap_or_default()
        )));
    }
    let opt_level = match cli.opt_level {
        None => OptLevel::default(),
        Some(n) => OptLevel::from_number(n)
            .ok_or_else(|| Failure::Usage(format!("-O{n} is not an optimization level (0-3)")))?,
    };
    let filename = display_name(input);
    let mut loaded = load_model(cli, input, bytes)?;
    if cli.is_onnx() || cli.lower {
        let options = LowerOptions {
            print_ir_after_all: cli.print_ir_after_all,
            timing: cli.timing,
        };
        if let Some(db) = &cli.db {
            apply_database(cli, &mut loaded, db)?;
        }
        // PTX gets the GPU lowering: the CPU's vector micro-kernels have no GPU form.
        let pipeline = if matches!(output, Output::Ptx | Output::Cubin) {
            "gpu"
        } else {
            "cpu"
        };
        lower(
            &mut loaded,
            pipeline,
            options,
            "tb-translate",
            "tb-opt --list-passes",
        )
        .map_err(Failure::Input)?;
    } else if let Some(op) = first_unlowered_op(&loaded.ctx, loaded.module) {
        let name = loaded.ctx.op_name(op).to_owned();
        let pipeline = if matches!(output, Output::Ptx | Output::Cubin) {
            tb_passes::pipelines::GPU
        } else {
            tb_passes::pipelines::CPU
        };
        let diag = tb_ir::Diagnostic::error(
            loaded.ctx.op(op).loc,
            format!(
                "'{name}' is above the loop level, which --emit compiles: lower the module \
                 first (add --lower, or run tb-opt --pass-pipeline='{pipeline}')"
            ),
        );
        return Err(Failure::Input(loaded.render(&diag)));
    }
    if let Output::Ptx | Output::Cubin = output {
        return emit_ptx(cli, &mut loaded, matches!(output, Output::Cubin));
    }
    if let Output::Upstream = output {
        return emit_upstream(cli, &mut loaded);
    }

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
        Output::Header | Output::Runtime | Output::Ptx | Output::Cubin | Output::Upstream => {
            EmitKind::LlvmIr
        }
    };
    let emitted = emit(&loaded.ctx, loaded.module, &options, llvm_kind)
        .map_err(|d| Failure::Input(loaded.render(&d)))?;
    let file_name = |path: &Path, extension: &str| {
        path.with_extension(extension)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("tb_module.{extension}"))
    };
    // The object (or library), its header and its manifest are one output: all or none.
    let mut outputs = OutputSet::new();
    match output {
        Output::Header | Output::Runtime | Output::Ptx | Output::Cubin | Output::Upstream => {
            // On standard output the header is named after the input.
            let name = if to_stdout {
                file_name(input, "h")
            } else {
                file_name(&cli.output, "h")
            };
            let header = c_header(&emitted.entry_points, &name, &filename);
            outputs
                .write(&cli.output, header.as_bytes())
                .map_err(Failure::Write)?;
        }
        Output::Llvm(kind) => {
            let bytes = match kind {
                EmitKind::SharedLib => link_shared_library(&emitted.bytes, cli.threads.is_some())
                    .map_err(Failure::Usage)?,
                _ => emitted.bytes,
            };
            outputs.write(&cli.output, &bytes).map_err(Failure::Write)?;
            if wants_file {
                let mut companions = vec![(
                    "h",
                    "C header",
                    c_header(
                        &emitted.entry_points,
                        &file_name(&cli.output, "h"),
                        &filename,
                    ),
                )];
                if kind == EmitKind::SharedLib {
                    let library_name = cli
                        .output
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let info = ManifestInfo {
                        library: &library_name,
                        header: &file_name(&cli.output, "h"),
                        source: &filename,
                        threads: cli.threads,
                    };
                    companions.push(("json", "manifest", manifest(&emitted.entry_points, &info)));
                }
                for (extension, what, text) in companions {
                    let path = cli.output.with_extension(extension);
                    if path == cli.output {
                        return Err(Failure::Usage(format!(
                            "the {what} would overwrite the output '{}': name the output \
                             with another extension",
                            path.display()
                        )));
                    }
                    outputs
                        .write(&path, text.as_bytes())
                        .map_err(Failure::Write)?;
                }
            }
        }
    }
    outputs.commit().map_err(Failure::Write)
}
