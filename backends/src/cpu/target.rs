//! The target machine code is generated for, and LLVM's optimization pipeline.
//!
//! By default code is generated for the host: its triple, and the CPU name and features LLVM
//! detects at run time (what `-mcpu=native` means to clang). An override names another CPU
//! (`skylake-avx512`, `x86-64-v3`, `znver4`, ...) and optionally a feature string
//! (`+avx2,-avx512f`); the CPU alone implies its features.

use std::fmt;

use inkwell::OptimizationLevel;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, RelocMode, Target, TargetMachine};

/// LLVM's optimization level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O1,
    O2,
    #[default]
    O3,
}

impl OptLevel {
    /// The level for `-O<n>` (0 to 3).
    pub fn from_number(n: u32) -> Option<OptLevel> {
        Some(match n {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            2 => OptLevel::O2,
            3 => OptLevel::O3,
            _ => return None,
        })
    }

    fn llvm(self) -> OptimizationLevel {
        match self {
            OptLevel::O0 => OptimizationLevel::None,
            OptLevel::O1 => OptimizationLevel::Less,
            OptLevel::O2 => OptimizationLevel::Default,
            OptLevel::O3 => OptimizationLevel::Aggressive,
        }
    }

    /// The new pass manager's pipeline for this level.
    fn pipeline(self) -> &'static str {
        match self {
            OptLevel::O0 => "default<O0>",
            OptLevel::O1 => "default<O1>",
            OptLevel::O2 => "default<O2>",
            OptLevel::O3 => "default<O3>",
        }
    }
}

/// Which CPU to generate code for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// A CPU name LLVM knows; `None` or `"native"` is the host CPU.
    pub cpu: Option<String>,
    /// An LLVM feature string; `None` is the host's features for the host CPU and the
    /// CPU's own features for a named CPU.
    pub features: Option<String>,
}

impl TargetOptions {
    /// The host CPU with the features detected on it.
    pub fn host() -> TargetOptions {
        TargetOptions::default()
    }

    pub fn is_host(&self) -> bool {
        self.cpu.as_deref().is_none_or(|c| c == "native")
    }

    /// The CPU name and feature string this resolves to.
    pub fn resolve(&self) -> (String, String) {
        if self.is_host() {
            let features = self
                .features
                .clone()
                .unwrap_or_else(|| TargetMachine::get_host_cpu_features().to_string());
            (TargetMachine::get_host_cpu_name().to_string(), features)
        } else {
            (
                self.cpu.clone().unwrap_or_default(),
                self.features.clone().unwrap_or_default(),
            )
        }
    }
}

/// Why no target machine could be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetError {}

/// A target machine for the host triple and the CPU of `options`, producing
/// position-independent code (which shared libraries need and the JIT links as well).
pub fn target_machine(
    options: &TargetOptions,
    level: OptLevel,
) -> Result<TargetMachine, TargetError> {
    crate::llvm_info::initialize_targets()
        .map_err(|m| TargetError(format!("cannot initialise the host target: {m}")))?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|m| {
        TargetError(format!(
            "no LLVM target for '{}': {m}",
            triple.as_str().to_string_lossy()
        ))
    })?;
    let (cpu, features) = options.resolve();
    let features = codegen_features(&features);
    // LLVM only warns about a CPU it does not know (once per subtarget it makes) and may
    // abort later, so an unknown name is refused here, before LLVM sees it.
    if !options.is_host() {
        let known = known_cpus(&target, &triple);
        if !known.is_empty() && !known.contains(&cpu) {
            return Err(TargetError(format!(
                "unknown CPU '{cpu}' for target {}; LLVM knows: native, {}",
                triple.as_str().to_string_lossy(),
                known.join(", ")
            )));
        }
    }
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            level.llvm(),
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| TargetError(format!("LLVM cannot make a target machine for CPU '{cpu}'")))
}

/// Tuning features added to every x86 feature string code is generated with (unless it
/// already says either): no gathers and no scatters. The kernels vectorize explicitly
/// where it pays; what LLVM's vectorizer would turn into gathers and scatters is left over
/// by them (a transposition, a column of a border), and there, on AMD's Zen 4 for
/// example, a scatter or gather is slower than the scalar accesses it replaces (a 96 to
/// 576 channel 1x1 convolution on 14 x 14 pixels: 0.223 ms with them, 0.204 without).
/// Tuning features change no instruction set, so code stays valid on the same CPUs.
pub(crate) fn codegen_features(features: &str) -> String {
    const TUNING: [&str; 2] = ["prefer-no-gather", "prefer-no-scatter"];
    let triple = TargetMachine::get_default_triple();
    let x86 = triple.as_str().to_string_lossy().starts_with("x86_64");
    if !x86 || TUNING.iter().any(|t| features.contains(t)) {
        return features.to_owned();
    }
    let mut all = features.to_owned();
    for tuning in TUNING {
        if !all.is_empty() {
            all.push(',');
        }
        all.push('+');
        all.push_str(tuning);
    }
    all
}

/// The CPU names LLVM knows for `target`, as `llc -mcpu=help` lists them; empty when they
/// cannot be read (then no name is refused).
///
/// LLVM-C has no accessor for the list: LLVM prints it on standard error when asked for the
/// CPU `help`, so standard error is pointed at a temporary file while a target machine for
/// `help` is made, once per process.
pub fn known_cpus(target: &Target, triple: &inkwell::targets::TargetTriple) -> Vec<String> {
    use std::sync::OnceLock;
    static KNOWN: OnceLock<Vec<String>> = OnceLock::new();
    KNOWN
        .get_or_init(|| {
            let help = capture_stderr(|| {
                let _ = target.create_target_machine(
                    triple,
                    "help",
                    "",
                    OptimizationLevel::None,
                    RelocMode::PIC,
                    CodeModel::Default,
                );
            });
            parse_cpu_help(&help.unwrap_or_default())
        })
        .clone()
}

/// The CPU names in LLVM's `-mcpu=help` text: the first word of each line between
/// "Available CPUs" and "Available features".
fn parse_cpu_help(text: &str) -> Vec<String> {
    let Some(start) = text.find("Available CPUs for this target:") else {
        return Vec::new();
    };
    let cpus = &text[start..];
    let cpus = cpus[..cpus.find("Available features").unwrap_or(cpus.len())]
        .lines()
        .skip(1);
    cpus.filter_map(|line| {
        let (name, description) = line.trim().split_once(" - ")?;
        (!description.is_empty()).then(|| name.trim().to_owned())
    })
    .collect()
}

/// What `f` writes to standard error (file descriptor 2), which it does not reach.
fn capture_stderr(f: impl FnOnce()) -> Option<String> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    let mut file = tempfile::tempfile().ok()?;
    let _ = std::io::stderr().flush();
    // SAFETY: plain descriptor operations; descriptor 2 is restored before returning.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 {
        return None;
    }
    if unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
        unsafe { libc::close(saved) };
        return None;
    }
    f();
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    Some(text)
}

/// Sets the module's triple and data layout to the machine's.
pub fn configure_module(module: &Module, machine: &TargetMachine) {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
}

/// Runs LLVM's optimization pipeline for `level` (the new pass manager's `default<On>`).
pub fn optimize(
    module: &Module,
    machine: &TargetMachine,
    level: OptLevel,
) -> Result<(), TargetError> {
    module
        .run_passes(level.pipeline(), machine, PassBuilderOptions::create())
        .map_err(|m| TargetError(format!("LLVM optimization failed: {m}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_names_are_read_from_llvms_help_text() {
        let help = "Available CPUs for this target:\n\n  alderlake  - Select the alderlake processor.\n  \
                    x86-64-v3  - Select the x86-64-v3 processor.\n\nAvailable features for this \
                    target:\n\n  avx2 - Enable AVX2 instructions.\n";
        assert_eq!(parse_cpu_help(help), vec!["alderlake", "x86-64-v3"]);
        assert!(parse_cpu_help("no list here").is_empty());
    }

    #[test]
    fn an_unknown_cpu_is_refused_before_llvm_sees_it() {
        let bogus = TargetOptions {
            cpu: Some("bogus".to_owned()),
            features: None,
        };
        let Err(error) = target_machine(&bogus, OptLevel::O0) else {
            panic!("a target machine was made for CPU 'bogus'");
        };
        assert!(
            error.0.starts_with("unknown CPU 'bogus' for target "),
            "{error}"
        );
        assert!(error.0.contains("x86-64-v3"), "{error}");
        let known = TargetOptions {
            cpu: Some("x86-64-v3".to_owned()),
            features: None,
        };
        assert!(target_machine(&known, OptLevel::O0).is_ok());
        assert!(target_machine(&TargetOptions::host(), OptLevel::O0).is_ok());
    }
}
