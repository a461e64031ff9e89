//! What the linked LLVM is and which code-generation targets it provides.
//!
//! Nothing here is hard-coded: the version comes from `LLVMGetVersion`, and a target is
//! reported available only if LLVM, after its initialisation routines ran, resolves the
//! target's triple to a registered target that can create a target machine.

use std::fmt;
use std::sync::OnceLock;

use inkwell::targets::{InitializationConfig, Target, TargetMachine, TargetTriple};

/// A code-generation target TensorBind lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// 64-bit x86 CPUs (the `loop` level lowered to LLVM IR).
    X86,
    /// NVIDIA GPUs through LLVM's NVPTX backend (linked for the planned GPU path).
    Nvptx,
}

impl TargetKind {
    /// Every target kind, in the order tools report them.
    pub const ALL: [TargetKind; 2] = [TargetKind::X86, TargetKind::Nvptx];

    /// The short name used on TensorBind's command lines (`x86`, `nvptx`).
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::X86 => "x86",
            TargetKind::Nvptx => "nvptx",
        }
    }

    /// The triple code for this kind is generated for.
    pub fn triple(self) -> &'static str {
        match self {
            TargetKind::X86 => "x86_64-unknown-linux-gnu",
            TargetKind::Nvptx => "nvptx64-nvidia-cuda",
        }
    }

    /// Parses a short name as printed by [`TargetKind::name`].
    pub fn from_name(name: &str) -> Option<TargetKind> {
        TargetKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The version of the LLVM library linked into this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LlvmVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl fmt::Display for LlvmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Returns the version of the linked LLVM, as LLVM itself reports it.
pub fn llvm_version() -> LlvmVersion {
    let (major, minor, patch) = inkwell::support::get_llvm_version();
    LlvmVersion {
        major,
        minor,
        patch,
    }
}

/// Registers the x86 and NVPTX targets (target info, machine code, assembly printer and
/// parser) and the host's own target with LLVM. Idempotent and thread-safe (LLVM's target
/// registry is not, so every registration in this crate goes through here); every other
/// function here calls it. Returns why the host target could not be registered, if so.
pub fn initialize_targets() -> Result<(), String> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| {
        let config = InitializationConfig::default();
        Target::initialize_x86(&config);
        Target::initialize_nvptx(&config);
        Target::initialize_native(&config)
    })
    .clone()
}

/// Whether LLVM can generate code for one [`TargetKind`], and why not if it cannot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetStatus {
    pub kind: TargetKind,
    /// The triple that was looked up.
    pub triple: String,
    /// LLVM's name of the registered target the triple resolved to (`x86-64`, `nvptx64`).
    pub llvm_name: Option<String>,
    /// LLVM's one-line description of that target.
    pub description: Option<String>,
    /// True when the target is registered and can create a target machine.
    pub available: bool,
    /// LLVM's message when the lookup failed.
    pub error: Option<String>,
}

impl TargetStatus {
    /// `available` or `unavailable`, as tools print it.
    pub fn availability(&self) -> &'static str {
        if self.available {
            "available"
        } else {
            "unavailable"
        }
    }
}

/// Looks `kind` up in LLVM's target registry.
pub fn target_status(kind: TargetKind) -> TargetStatus {
    let _ = initialize_targets();
    let triple = kind.triple();
    match Target::from_triple(&TargetTriple::create(triple)) {
        Ok(target) => {
            let has_machine = target.has_target_machine();
            TargetStatus {
                kind,
                triple: triple.to_owned(),
                llvm_name: Some(target.get_name().to_string_lossy().into_owned()),
                description: Some(target.get_description().to_string_lossy().into_owned()),
                available: has_machine,
                error: (!has_machine)
                    .then(|| format!("target for `{triple}` has no target machine")),
            }
        }
        Err(message) => TargetStatus {
            kind,
            triple: triple.to_owned(),
            llvm_name: None,
            description: None,
            available: false,
            error: Some(message.to_string()),
        },
    }
}

/// The status of every [`TargetKind`], in [`TargetKind::ALL`] order.
pub fn target_statuses() -> Vec<TargetStatus> {
    TargetKind::ALL.into_iter().map(target_status).collect()
}

/// A target in LLVM's registry, as listed by `tb-translate --list-targets`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisteredTarget {
    pub name: String,
    pub description: String,
    pub has_target_machine: bool,
    pub has_jit: bool,
}

/// Every target registered with LLVM in this process (after [`initialize_targets`]).
pub fn registered_targets() -> Vec<RegisteredTarget> {
    let _ = initialize_targets();
    let mut targets = Vec::new();
    let mut next = Target::get_first();
    while let Some(target) = next {
        targets.push(RegisteredTarget {
            name: target.get_name().to_string_lossy().into_owned(),
            description: target.get_description().to_string_lossy().into_owned(),
            has_target_machine: target.has_target_machine(),
            has_jit: target.has_jit(),
        });
        next = target.get_next();
    }
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    targets
}

/// The triple LLVM was configured to generate code for by default on this host.
pub fn default_triple() -> String {
    TargetMachine::get_default_triple()
        .as_str()
        .to_string_lossy()
        .into_owned()
}

/// The host CPU's name as LLVM detects it (e.g. `znver4`, `sapphirerapids`).
pub fn host_cpu_name() -> String {
    TargetMachine::get_host_cpu_name().to_string()
}
