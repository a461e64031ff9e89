//! The CPU backend: the loop level (with `func`, `arith`, `math`, `memref` and vectors) to
//! LLVM IR, optimized for the host CPU (or a named one), then JIT-compiled
//! ([`jit::CompiledModule`]) or emitted as LLVM IR, assembly, an object file or a shared
//! library with a C header ([`emit`]).
//!
//! Every shape is static. Affine maps become integer arithmetic, loops become LLVM loops
//! with unroll/vectorize metadata, parallel loops can run on the runtime's thread pool, and
//! every public function is exported with the C ABI described in [`abi`].

pub mod abi;
pub(crate) mod buffers;
mod disjoint_buffers;
pub mod emit;
pub(crate) mod function;
pub mod header;
pub mod heap_stats;
pub mod jit;
mod kernel_outline;
pub(crate) mod llvm_diagnostics;
pub(crate) mod loops;
pub mod manifest;
pub(crate) mod module;
mod parallel;
pub mod runtime;
pub mod runtime_library;
pub mod runtime_profile;
mod soft_bf16;
pub mod target;
mod translate;

// The target-independent LLVM translation, under the names this backend's files use.
pub(crate) use crate::llvm::affine;
pub use crate::llvm::{memref, types};

use inkwell::context::Context as LlvmContext;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use tb_ir::{Context, Diagnostic, OpId};

pub use abi::{AbiParam, EntryPoint, Role};
pub use emit::{EmitKind, Emitted, emit};
pub use heap_stats::{HeapStats, heap_stats, reset_heap_peak};
pub use jit::{CompiledModule, PreparedCall, RunError};
pub use target::{OptLevel, TargetOptions};

/// How to compile a module.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    pub target: TargetOptions,
    pub opt_level: OptLevel,
    /// Run parallel loops on a thread pool of this many threads (0: one per core); `None`
    /// runs them in order, as plain loops.
    pub threads: Option<usize>,
    /// Compile only these public functions and the functions they call (`None`: all), so
    /// that a module whose other functions are at a higher level can still run one.
    pub functions: Option<Vec<String>>,
}

/// A module translated to LLVM IR and optimized, with the machine it was built for.
pub(crate) struct Built<'ctx> {
    pub module: Module<'ctx>,
    pub machine: TargetMachine,
    pub entry_points: Vec<EntryPoint>,
}

/// Translates `module` into a fresh LLVM module in `llvm` and runs the optimization
/// pipeline. `jit` adds the packed wrappers the JIT calls and leaves the runtime's symbols
/// to the JIT.
pub(crate) fn build<'ctx>(
    ir: &Context,
    module: OpId,
    options: &CompileOptions,
    llvm: &'ctx LlvmContext,
    jit: bool,
) -> Result<Built<'ctx>, Diagnostic> {
    let at_module = |m: String| Diagnostic::error(ir.op(module).loc, m);
    llvm_diagnostics::install(llvm);
    let machine =
        target::target_machine(&options.target, options.opt_level).map_err(|e| at_module(e.0))?;
    let llvm_module =
        llvm.create_module(tb_ir::symbol_table::symbol_name(ir, module).unwrap_or("tb_module"));
    target::configure_module(&llvm_module, &machine);
    let (cpu, features) = options.target.resolve();
    let features = target::codegen_features(&features);
    let translate_options = module::TranslateOptions {
        packed_wrappers: jit,
        threads: options.threads,
        runtime_provided: jit,
        functions: options.functions.clone(),
    };
    let translated = module::translate_module(
        ir,
        module,
        llvm,
        &llvm_module,
        translate::FunctionTarget { cpu, features },
        &translate_options,
    )?;
    if soft_bf16::uses_bf16(ir, module) {
        soft_bf16::define_truncations(llvm, &llvm_module).map_err(at_module)?;
    }
    target::optimize(&llvm_module, &machine, options.opt_level).map_err(|e| at_module(e.0))?;
    llvm_diagnostics::take_errors().map_err(at_module)?;
    Ok(Built {
        module: llvm_module,
        machine,
        entry_points: translated.entry_points,
    })
}
