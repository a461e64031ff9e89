//! Ahead-of-time output: LLVM IR text, assembly, an object file, or a shared library
//! linked by the system's C compiler driver.

use std::fmt;
use std::process::Command;

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
    super::llvm_diagnostics::take_errors().map_err(|m| Diagnostic::error(ctx.op(module).loc, m))?;
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

/// Links `object` into a shared library with `cc -shared` (and `-lm`, which math ops may
/// call) and returns the library's bytes; the caller writes them where the user asked, so
/// the linker never writes to a user's path itself. With `with_runtime`, the runtime
/// library ([`super::runtime_library`]: the thread pool parallel loops run on) is compiled
/// and linked in, so the library runs its parallel loops on threads by itself; such a
/// library is marked `nodelete`, so unloading it leaves its code mapped for the pool's
/// threads. The object
/// and the library live in a private temporary directory (created with a random name, so no
/// other user can place a file or link there first), removed afterwards.
pub fn link_shared_library(object: &[u8], with_runtime: bool) -> Result<Vec<u8>, String> {
    let compiler = c_compiler();
    let scratch = tempfile::Builder::new()
        .prefix("tb-link-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory to link in: {e}"))?;
    let object_path = scratch.path().join("module.o");
    let library_path = scratch.path().join("module.so");
    std::fs::write(&object_path, object)
        .map_err(|e| format!("cannot write '{}': {e}", object_path.display()))?;
    let mut command = Command::new(&compiler);
    command
        .arg("-shared")
        .arg("-o")
        .arg(&library_path)
        .arg(&object_path);
    if with_runtime {
        let source = scratch.path().join(super::runtime_library::FILE_NAME);
        std::fs::write(&source, super::runtime_library::SOURCE)
            .map_err(|e| format!("cannot write '{}': {e}", source.display()))?;
        // The pool's threads run the library's own code (they watch for the next loop
        // before they sleep) for as long as the process lives: a `dlclose` must not unmap
        // it under them.
        command
            .args(["-O2", "-fPIC", "-pthread", "-Wl,-z,nodelete"])
            .arg(&source);
    }
    let result = command.arg("-lm").output();
    match result {
        Ok(done) if done.status.success() => {
            std::fs::read(&library_path).map_err(|e| format!("cannot read the linked library: {e}"))
        }
        Ok(done) => Err(format!(
            "'{compiler} -shared' failed ({}): {}",
            done.status,
            String::from_utf8_lossy(&done.stderr).trim()
        )),
        Err(e) => Err(format!(
            "cannot run the C compiler '{compiler}' to link a shared library: {e} \
             (install a C toolchain, or set CC)"
        )),
    }
}
