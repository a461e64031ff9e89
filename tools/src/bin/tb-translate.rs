//! `tb-translate`: translations between TensorBind IR and other formats (ONNX in; LLVM IR,
//! PTX and object files out), like `mlir-translate`.
//!
//! This build reports the toolchain it links (`--version`) and the code-generation targets
//! it can use (`--list-targets`); the translations themselves are not implemented yet, and
//! asking for one is a clear error rather than a silent no-op.

use std::fs;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tb_backends::llvm_info;

#[derive(Parser, Debug)]
#[command(
    name = "tb-translate",
    about = "TensorBind translator: ONNX import, LLVM IR / PTX / object emission",
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

    /// Where to write the translation (default: standard output)
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,

    /// Fix the shape of an ONNX graph input with dynamic dimensions (repeatable)
    #[arg(long = "input-shape", value_name = "NAME=AxBxC")]
    input_shape: Vec<String>,

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
        Err(Failure::Translate(message)) => {
            eprintln!("{message}");
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
    /// The command line asked for something this build cannot do.
    Usage(String),
    /// The translation failed; the message is complete, one error per line.
    Translate(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Output(error) => write!(f, "cannot write to standard output: {error}"),
            Failure::Usage(message) => f.write_str(message),
            Failure::Translate(message) => f.write_str(message),
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
            read_input(input)?;
            Err(Failure::Usage(format!(
                "no translation selected for '{}': this build implements no translations yet \
                 (only --version and --list-targets)",
                input.display()
            )))
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
    use std::collections::HashMap;
    use std::io::Write;
    use std::path::Path;

    use tb_ir::printer::{PrintOptions, print_operation};
    use tb_onnx::Model;
    use tb_onnx::import::{ImportOptions, import_model, signature::parse_shape};

    use super::{Cli, Failure};

    pub fn run(cli: &Cli) -> Result<(), Failure> {
        let input = cli
            .input
            .as_ref()
            .ok_or_else(|| Failure::Usage("--import-onnx needs an input model file".to_owned()))?;
        let mut input_shapes = HashMap::new();
        for spec in &cli.input_shape {
            let (name, shape) = spec.rsplit_once('=').ok_or_else(|| {
                Failure::Usage(format!("--input-shape '{spec}' is not NAME=AxBxC"))
            })?;
            let dims = parse_shape(shape)
                .map_err(|e| Failure::Usage(format!("--input-shape '{spec}': {e}")))?;
            input_shapes.insert(name.to_owned(), dims);
        }
        let model = Model::load(input).map_err(|e| Failure::Usage(e.to_string()))?;
        let options = ImportOptions {
            input_shapes,
            file_name: input.display().to_string(),
            ..ImportOptions::default()
        };
        let imported =
            import_model(&model, &options).map_err(|e| Failure::Translate(e.to_string()))?;
        let print = PrintOptions {
            debug_info: true,
            ..PrintOptions::default()
        };
        let text = print_operation(&imported.ctx, imported.module, print);
        match &cli.output {
            Some(path) if path.as_os_str() != "-" => write_atomically(path, &text)
                .map_err(|e| Failure::Usage(format!("cannot write '{}': {e}", path.display()))),
            _ => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                Ok(out.flush()?)
            }
        }
    }

    /// A temporary file next to `path`, renamed over it: a failed write leaves no
    /// truncated output.
    fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
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
