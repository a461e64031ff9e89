//! Ahead-of-time output: LLVM IR text, assembly, an object file, or a shared library
//! linked by the system's C compiler driver.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use inkwell::context::Context as LlvmContext;
use inkwell::targets::FileType;
use tb_ir::{Context, Diagnostic, OpId};

use super::{CompileOptions, EntryPoint, build};

/// What `tb-translate --emit=...` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitKind {
    /// `llvm-ir`: the optimized LLVM module as text.
    LlvmIr,
    /// `asm`: the target's assembly.
    Asm,
    /// `obj`: a relocatable object file.
    Object,
    /// `shared-lib`: a shared library (the object linked by `cc -shared`).
    SharedLib,
}

impl EmitKind {
    pub const ALL: [EmitKind; 4] = [
        EmitKind::LlvmIr,
        EmitKind::Asm,
        EmitKind::Object,
        EmitKind::SharedLib,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EmitKind::LlvmIr => "llvm-ir",
            EmitKind::Asm => "asm",
            EmitKind::Object => "obj",
            EmitKind::SharedLib => "shared-lib",
        }
    }

    pub fn from_name(name: &str) -> Option<EmitKind> {
        EmitKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the output is text (and may go to standard output).
    pub fn is_text(self) -> bool {
        matches!(self, EmitKind::LlvmIr | EmitKind::Asm)
    }
}

impl fmt::Display for EmitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bytes of one emission and the functions it exports.
pub struct Emitted {
    /// LLVM IR or assembly text, or the object file (also for [`EmitKind::SharedLib`],
    /// which [`link_shared_library`] turns into a library).
    pub bytes: Vec<u8>,
    pub entry_points: Vec<EntryPoint>,
}

/// Compiles `module` and returns the output of `kind`.
pub fn emit(
    ctx: &Context,
    module: OpId,
    options: &CompileOptions,
    kind: EmitKind,
) -> Result<Emitted, Diagnostic> {
    let llvm = LlvmContext::create();
    let built = build(ctx, module, options, &llvm, false)?;
    let bytes = match kind {
        EmitKind::LlvmIr => built.module.print_to_string().to_bytes().to_vec(),
        EmitKind::Asm | EmitKind::Object | EmitKind::SharedLib => {
            let file_type = if kind == EmitKind::Asm {
                FileType::Assembly
            } else {
                FileType::Object
            };
            built
                .machine
                .write_to_memory_buffer(&built.module, file_type)
                .map_err(|m| {
                    Diagnostic::error(
                        ctx.op(module).loc,
                        format!("LLVM cannot generate code: {m}"),
                    )
                })?
                .as_slice()
                .to_vec()
        }
    };
    Ok(Emitted {
        bytes,
        entry_points: built.entry_points,
    })
}

/// The C compiler driver used to link: `$CC`, else `cc`.
pub fn c_compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_owned())
}

/// A temporary file path that no other call (in this or another process) uses.
fn temporary_path(extension: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("tb-{}-{n}.{extension}", std::process::id()))
}

/// Links `object` into the shared library `output` with `cc -shared` (and `-lm`, which
/// math ops may call). On failure nothing is left at `output`.
pub fn link_shared_library(object: &[u8], output: &Path) -> Result<(), String> {
    let compiler = c_compiler();
    let object_path = temporary_path("o");
    std::fs::write(&object_path, object)
        .map_err(|e| format!("cannot write '{}': {e}", object_path.display()))?;
    let result = Command::new(&compiler)
        .arg("-shared")
        .arg("-o")
        .arg(output)
        .arg(&object_path)
        .arg("-lm")
        .output();
    let _ = std::fs::remove_file(&object_path);
    let failure = match result {
        Ok(done) if done.status.success() => return Ok(()),
        Ok(done) => format!(
            "'{compiler} -shared' failed ({}): {}",
            done.status,
            String::from_utf8_lossy(&done.stderr).trim()
        ),
        Err(e) => format!(
            "cannot run the C compiler '{compiler}' to link a shared library: {e} \
             (install a C toolchain, or set CC)"
        ),
    };
    let _ = std::fs::remove_file(output);
    Err(failure)
}
