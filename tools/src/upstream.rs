//! Export to upstream MLIR: a module at the loop level converted to MLIR's own dialects
//! (`convert-loop-to-upstream`), printed, and verified by an in-process MLIR 22 that knows
//! only its own dialects, so what is written is what `mlir-opt` and MLIR's pipelines take.

use tb_backends::mlir_interop::{VerifyOptions, verify_module_text};
use tb_ir::pass::{Instrumentation, PassManager, Pipeline};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::{Context, Diagnostic, OpId};

/// Why a module was not exported.
#[derive(Debug)]
pub enum ExportError {
    /// The module cannot be converted (an op above the loop level, ...),
    /// located at the op concerned.
    Input(Diagnostic),
    /// MLIR rejected the converted module: a construct TensorBind does not export yet.
    Rejected(String),
}

/// Converts `module` in place and returns its text in upstream MLIR's dialects.
pub fn export(ctx: &mut Context, module: OpId) -> Result<String, ExportError> {
    if let Some(op) = crate::lower::first_unlowered_op(ctx, module) {
        return Err(ExportError::Input(Diagnostic::error(
            ctx.op(op).loc,
            format!(
                "'{}' is above the loop level, which --emit=mlir-upstream exports: lower the \
                 module first (add --lower)",
                ctx.op_name(op)
            ),
        )));
    }
    let pipeline = Pipeline::parse("builtin.module(convert-loop-to-upstream, cse)")
        .map_err(|e| ExportError::Rejected(e.to_string()))?;
    let registry = crate::lower::registry();
    let mut manager = PassManager::new(&pipeline, &registry).map_err(ExportError::Rejected)?;
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    manager
        .run(ctx, module, &instrumentation)
        .map_err(ExportError::Input)?;
    let text = print_operation(ctx, module, PrintOptions::default());
    verify_module_text(&text, VerifyOptions::default()).map_err(|e| {
        ExportError::Rejected(format!(
            "MLIR 22 rejected the exported module (a construct TensorBind does not export \
             yet):\n{e}"
        ))
    })?;
    Ok(text)
}
