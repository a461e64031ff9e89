//! The export oracle: a module lowered to the loop level by TensorBind's CPU pipeline is
//! exported to upstream MLIR's dialects (`convert-loop-to-upstream`, as
//! `tb-translate --emit=mlir-upstream` does), lowered by MLIR's own pipeline, run by MLIR's
//! ExecutionEngine, and its results compared with those of TensorBind's CPU backend.

// Shared by test binaries that each use a part.
#![allow(dead_code)]

use tb_backends::mlir_execution::{ExecutionError, JitModule};
use tb_dialects::entry_status::entry_status;
use tb_interpreter::Tensor;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::{Context, OpId};

/// Why a module did not give MLIR's results.
pub enum UpstreamError {
    /// The exporter refused the module, with its reason (a diagnostic at the op concerned).
    NotExportable(String),
    /// The exported module was rejected or mis-lowered by MLIR, or its call failed.
    Failed(String),
}

/// The pipeline of `tb-translate --emit=mlir-upstream` after lowering.
const EXPORT_PIPELINE: &str = "builtin.module(convert-loop-to-upstream, cse)";

/// Converts `module` (at the loop level) in place to upstream MLIR's dialects and returns
/// its text, or the exporter's reason for refusing it.
pub fn export(ctx: &mut Context, module: OpId) -> Result<String, UpstreamError> {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse(EXPORT_PIPELINE).expect("valid pipeline");
    let mut manager = PassManager::new(&pipeline, &registry).expect("registered passes");
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    manager
        .run(ctx, module, &instrumentation)
        .map_err(|d| UpstreamError::NotExportable(d.message))?;
    Ok(print_operation(ctx, module, PrintOptions::default()))
}

/// Exports `module`, JIT-compiles it with MLIR (at LLVM optimization level
/// `optimization_level`) and calls `function` on `inputs`. A run-time status result
/// (`{tb.status}`, see `tb_dialects::entry_status`) is taken out of the results as
/// TensorBind's callers do; a non-zero status is a failure.
pub fn export_and_run(
    ctx: &mut Context,
    module: OpId,
    function: &str,
    inputs: &[Tensor],
    optimization_level: usize,
) -> Result<Vec<Tensor>, UpstreamError> {
    let status = tb_ir::symbol_table::lookup_symbol_in(ctx, module, function)
        .and_then(|func| entry_status(ctx, func));
    let text = export(ctx, module)?;
    let failed = |e: ExecutionError| UpstreamError::Failed(e.to_string());
    let jit = JitModule::compile(&text, optimization_level).map_err(failed)?;
    let mut results = jit.run(function, inputs).map_err(failed)?;
    if let Some(status) = status {
        if status.result >= results.len() {
            return Err(UpstreamError::Failed(format!(
                "MLIR returned {} results, the status is result #{}",
                results.len(),
                status.result
            )));
        }
        let code = results
            .remove(status.result)
            .to_i64_vec()
            .unwrap_or_default();
        if let Some(&code) = code.first().filter(|&&c| c != 0) {
            return Err(UpstreamError::Failed(format!(
                "MLIR's run reports status {code}: {}",
                status.message(code)
            )));
        }
    }
    Ok(results)
}

/// MLIR's results against TensorBind's: integers and bools exactly (MLIR's signless
/// integers read as the signedness TensorBind's results have), floats within `rtol` and
/// `atol` (NaN equals NaN).
pub fn compare(mlir: &[Tensor], tb: &[Tensor], rtol: f64, atol: f64) -> Result<(), String> {
    if mlir.len() != tb.len() {
        return Err(format!(
            "MLIR returned {} results, TensorBind {}",
            mlir.len(),
            tb.len()
        ));
    }
    for (i, (m, t)) in mlir.iter().zip(tb).enumerate() {
        let same_width_integers = m.dtype().is_int()
            && t.dtype().is_int()
            && m.dtype().size_in_bytes() == t.dtype().size_in_bytes();
        // A same-width integer cast wraps: it reinterprets the bits.
        let m = if same_width_integers {
            m.cast(t.dtype())
        } else {
            m.clone()
        };
        let (rtol, atol) = if t.dtype().is_float() {
            (rtol, atol)
        } else {
            (0.0, 0.0)
        };
        m.allclose(t, rtol, atol)
            .map_err(|e| format!("output #{i}: MLIR's result differs from TensorBind's: {e}"))?;
    }
    Ok(())
}
