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
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Output(error) => write!(f, "cannot write to standard output: {error}"),
            Failure::Usage(message) => f.write_str(message),
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
