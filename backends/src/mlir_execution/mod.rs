//! Running a module of upstream MLIR dialects with MLIR's own lowering pipeline and its
//! ExecutionEngine (through `melior`): the differential oracle for what
//! `tb-translate --emit=mlir-upstream` writes, checked against TensorBind's own CPU backend.
//!
//! Functions are called through MLIR's C interface (`llvm.emit_c_interface`, see
//! [`call`]): memref arguments and results of every element type the exported loop level
//! uses (floats, signless integers, `i1`, `index`), of static or dynamic shape (a result's
//! sizes are read from the descriptor the callee returns), scalars, and any number of
//! results. Tensors go in and come out ([`tb_tensor::Tensor`]); buffers the callee
//! allocated for its results are freed.

mod call;
mod signature;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use melior::diagnostic::DiagnosticSeverity;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{parse_pass_pipeline, register_all_llvm_translations, register_all_passes};
use melior::{Context, ExecutionEngine};
use tb_tensor::Tensor;

use crate::mlir_interop::{MlirError, parse_and_verify, upstream_context};

pub use signature::{Param, Signature};

/// MLIR's own lowering of the exported dialects to the LLVM dialect. Integer powers
/// (`math.ipowi`) become outlined functions, views (`memref.subview`, `collapse_shape`,
/// `expand_shape`) explicit strided metadata, and `arith` ops without an LLVM counterpart
/// (`ceildivsi`, ...) are expanded. `math` functions on vectors without an LLVM intrinsic
/// (`math.erf` in a matmul's GELU epilogue) become libm calls lane by lane, through
/// `vector.extract`/`insert`: the vector ops are lowered again after that.
pub const LOWERING_PIPELINE: &str = "builtin.module(func.func(llvm-request-c-wrappers),\
     convert-math-to-funcs,expand-strided-metadata,convert-scf-to-cf,lower-affine,convert-vector-to-llvm,\
     finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,arith-expand,\
     convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)";

/// Why a module did not run.
#[derive(Debug)]
pub enum ExecutionError {
    Parse(MlirError),
    Lowering(String),
    Call(String),
}

impl fmt::Display for ExecutionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecutionError::Parse(e) => write!(f, "MLIR rejected the module: {e}"),
            ExecutionError::Lowering(m) => write!(f, "MLIR's lowering failed: {m}"),
            ExecutionError::Call(m) => write!(f, "calling the function failed: {m}"),
        }
    }
}

impl std::error::Error for ExecutionError {}

/// A module of upstream dialects lowered by [`LOWERING_PIPELINE`] and JIT-compiled by MLIR's
/// ExecutionEngine, whose functions can be called any number of times.
pub struct JitModule {
    // Declared first: dropped before the context it was made in.
    engine: ExecutionEngine,
    signatures: HashMap<String, Result<Signature, String>>,
    _context: Context,
}

impl JitModule {
    /// Parses and verifies `source`, lowers it and JIT-compiles it at LLVM optimization
    /// level `optimization_level` (0 to 3).
    pub fn compile(source: &str, optimization_level: usize) -> Result<JitModule, ExecutionError> {
        register_all_passes();
        let context = upstream_context();
        register_all_llvm_translations(&context);
        let (engine, signatures) = {
            let mut module: Module =
                parse_and_verify(&context, source).map_err(ExecutionError::Parse)?;
            let signatures = signature::signatures(&module);
            let manager = PassManager::new(&context);
            parse_pass_pipeline(manager.as_operation_pass_manager(), LOWERING_PIPELINE)
                .map_err(|e| ExecutionError::Lowering(e.to_string()))?;
            let (lowered, errors) = with_errors(&context, || manager.run(&mut module));
            lowered.map_err(|e| ExecutionError::Lowering(format!("{e}{errors}")))?;
            // The engine cannot report a failed translation to LLVM IR (it would be null):
            // every op must be in the LLVM dialect by now.
            let lowered = module.as_operation().to_string();
            if let Some(op) = first_op_outside_llvm(&lowered) {
                return Err(ExecutionError::Lowering(format!(
                    "'{op}' is left after MLIR's lowering pipeline"
                )));
            }
            // A failed translation to LLVM IR leaves a null engine; its diagnostics say why.
            let (engine, errors) = with_errors(&context, || {
                ExecutionEngine::new(&module, optimization_level, &[], false, false)
            });
            if !errors.is_empty() {
                return Err(ExecutionError::Lowering(format!(
                    "MLIR's translation to LLVM IR failed:{errors}"
                )));
            }
            (engine, signatures)
        };
        Ok(JitModule {
            engine,
            signatures,
            _context: context,
        })
    }

    /// The signature of `function`, as the module declares it.
    pub fn signature(&self, function: &str) -> Result<&Signature, ExecutionError> {
        match self.signatures.get(function) {
            Some(Ok(signature)) => Ok(signature),
            Some(Err(why)) => Err(ExecutionError::Call(format!(
                "@{function} cannot be called from here: {why}"
            ))),
            None => Err(ExecutionError::Call(format!(
                "the module has no function @{function}"
            ))),
        }
    }

    /// Calls `function` on `args` (one tensor per argument; a scalar argument is a tensor
    /// of one element) and returns its results. Integer arguments may be of either
    /// signedness where the function takes signless integers; integer results come back
    /// signed (`i1` as bool).
    pub fn run(&self, function: &str, args: &[Tensor]) -> Result<Vec<Tensor>, ExecutionError> {
        let signature = self.signature(function)?;
        // SAFETY: `invoke_packed` calls the packed wrapper of `_mlir_ciface_<function>`,
        // whose parameters are those of `signature`, read from the module that was compiled.
        unsafe {
            call::call(signature, args, |packed| {
                self.engine
                    .invoke_packed(function, packed)
                    .map_err(|e| e.to_string())
            })
        }
        .map_err(|m| ExecutionError::Call(format!("@{function}: {m}")))
    }
}

/// Compiles `source` (at optimization level 2) and calls `function` on `args` once.
pub fn run(source: &str, function: &str, args: &[Tensor]) -> Result<Vec<Tensor>, ExecutionError> {
    JitModule::compile(source, 2)?.run(function, args)
}

/// Runs `f` with the error diagnostics MLIR emits meanwhile collected (one per line,
/// each on a new line) rather than printed to stderr.
fn with_errors<R>(context: &Context, f: impl FnOnce() -> R) -> (R, String) {
    let collected = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&collected);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        if matches!(diagnostic.severity(), DiagnosticSeverity::Error) {
            let mut sink = sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            sink.push_str(&format!("\n{}: {diagnostic}", diagnostic.location()));
        }
        true
    });
    let result = f();
    context.detach_diagnostic_handler(handler);
    let errors = std::mem::take(&mut *collected.lock().unwrap_or_else(|p| p.into_inner()));
    (result, errors)
}

/// The name of the first op of printed module `text` that is not in the LLVM dialect.
fn first_op_outside_llvm(text: &str) -> Option<String> {
    // The resource trailer (`{-# dialect_resources: ... #-}`) holds no ops.
    let ops = text.split("{-#").next().unwrap_or(text);
    ops.lines().find_map(|line| {
        let line = line.trim_start();
        // Skip results (`%a, %b = `) to the op name.
        let rest = match line.find(" = ") {
            Some(i) if line.starts_with('%') => &line[i + 3..],
            _ => line,
        };
        let name: String = rest
            .trim_start_matches('"')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let is_op = name.contains('.') && !name.starts_with('.');
        (is_op && !name.starts_with("llvm.") && !name.starts_with("builtin.")).then_some(name)
    })
}
