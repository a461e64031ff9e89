//! An in-process upstream MLIR 22 (through `melior`): parse and verify MLIR text with every
//! upstream dialect registered.
//!
//! This is what `tb` uses to check that text it prints means the same to MLIR, and later to
//! hand the loop level to MLIR's own pipelines.

use std::error::Error;
use std::fmt;
use std::sync::{Arc, Mutex};

use melior::Context;
use melior::diagnostic::{Diagnostic, DiagnosticSeverity};
use melior::dialect::DialectRegistry;
use melior::ir::Module;
use melior::ir::operation::OperationLike;
use melior::utility::register_all_dialects;

/// Creates an MLIR context with every upstream dialect registered and loaded.
///
/// Multi-threading is off so that diagnostics arrive in a deterministic order. Ops of
/// unregistered dialects are rejected unless
/// [`Context::set_allow_unregistered_dialects`] is called.
pub fn upstream_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    context.load_all_available_dialects();
    context
}

/// How [`verify_module_text`] treats its input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Accept ops of dialects MLIR does not know (like `mlir-opt --allow-unregistered-dialect`);
    /// TensorBind's own dialects are unregistered from MLIR's point of view.
    pub allow_unregistered_dialects: bool,
}

/// Why MLIR did not produce a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MlirErrorKind {
    /// The text could not be handed to MLIR at all (it contains a NUL byte).
    InvalidInput,
    /// MLIR rejected the text. MLIR's parser runs the verifier on what it parsed (the C API
    /// offers no way to turn that off), so this covers syntax errors and verifier errors
    /// alike; the diagnostics tell them apart.
    Rejected,
}

/// Severity of one MLIR diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        })
    }
}

/// One diagnostic MLIR emitted, with its location as MLIR prints it (`loc("-":3:7)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirDiagnostic {
    pub severity: Severity,
    pub location: String,
    pub message: String,
}

impl fmt::Display for MlirDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.severity, self.message)
    }
}

/// MLIR rejected a module; carries every diagnostic it emitted (notes included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirError {
    pub kind: MlirErrorKind,
    pub diagnostics: Vec<MlirDiagnostic>,
}

impl fmt::Display for MlirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            MlirErrorKind::InvalidInput => "invalid MLIR input",
            MlirErrorKind::Rejected => "MLIR rejected the module",
        };
        f.write_str(what)?;
        for diagnostic in &self.diagnostics {
            write!(f, "\n{diagnostic}")?;
        }
        Ok(())
    }
}

impl Error for MlirError {}

/// Parses `source` in `context` and verifies the module.
///
/// The returned module lives as long as `context`. On failure the error lists the
/// diagnostics MLIR emitted while parsing and verifying.
pub fn parse_and_verify<'c>(context: &'c Context, source: &str) -> Result<Module<'c>, MlirError> {
    if let Some(offset) = source.find('\0') {
        return Err(MlirError {
            kind: MlirErrorKind::InvalidInput,
            diagnostics: vec![MlirDiagnostic {
                severity: Severity::Error,
                location: format!("byte {offset}"),
                message: "MLIR source text must not contain NUL bytes".to_owned(),
            }],
        });
    }

    let collected = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&collected);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let mut sink = sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        collect(&diagnostic, &mut sink);
        true
    });

    // Parsing already verifies; the explicit check keeps this function correct should the
    // binding ever parse without verifying.
    let result = match Module::parse(context, source) {
        Some(module) if module.as_operation().verify() => Ok(module),
        _ => Err(MlirErrorKind::Rejected),
    };
    context.detach_diagnostic_handler(handler);

    result.map_err(|kind| {
        let diagnostics = std::mem::take(
            &mut *collected
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        MlirError { kind, diagnostics }
    })
}

/// Parses and verifies `source` in a fresh [`upstream_context`] and returns the module as
/// MLIR prints it.
pub fn verify_module_text(source: &str, options: VerifyOptions) -> Result<String, MlirError> {
    let context = upstream_context();
    context.set_allow_unregistered_dialects(options.allow_unregistered_dialects);
    let module = parse_and_verify(&context, source)?;
    Ok(module.as_operation().to_string())
}

fn collect(diagnostic: &Diagnostic<'_>, sink: &mut Vec<MlirDiagnostic>) {
    sink.push(MlirDiagnostic {
        severity: match diagnostic.severity() {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Note => Severity::Note,
            DiagnosticSeverity::Remark => Severity::Remark,
        },
        location: diagnostic.location().to_string(),
        message: diagnostic.to_string(),
    });
    for index in 0..diagnostic.note_count() {
        if let Ok(note) = diagnostic.note(index) {
            collect(&note, sink);
        }
    }
}
