//! ONNX → TensorBind IR: a `ModelProto` becomes a `builtin.module` holding one `func.func`
//! of `graph` ops.
//!
//! - [`types`]: ONNX element types as IR types;
//! - [`constants`]: tensors as `dense<...>` / `dense_resource<...>` and scalar attributes;
//! - [`attrs`]: node attributes as graph-op attributes (snake_case names, declared kinds);
//! - [`ops`]: one converter per operator family;
//! - [`eval`]: evaluation of nodes whose inputs are all constant, at import time;
//! - [`expansion`]: operators imported as a few simpler nodes (their ONNX function bodies);
//! - [`signature`]: function arguments from graph inputs, with `--input-shape` overrides;
//! - [`sizes`]: element counts that fit in 64 bits, and the import-time evaluation budget;
//! - [`version_convert`]: nodes of opsets 7–12 rewritten into their opset-13 form;
//! - [`importer`]: the walk over the graph that ties them together;
//! - [`cleanup`]: canonicalize and CSE after import (with passes the caller supplies), so
//!   only real tensor work remains;
//! - [`location`] and [`error`]: where ops come from, and what went wrong.

pub mod attrs;
pub mod cleanup;
pub mod constants;
pub mod error;
pub mod eval;
pub mod expansion;
mod importer;
pub mod location;
mod node;
pub mod ops;
pub mod signature;
pub mod sizes;
pub mod types;
mod unsupported;
pub mod version_convert;

use std::collections::HashMap;

use tb_interpreter::Tensor;
use tb_ir::{Context, OpId};

pub use error::{ImportError, Problem, ProblemKind};
pub use ops::supported_operators;

use crate::Model;

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Shapes for graph inputs by ONNX name; required for inputs with dynamic dimensions.
    pub input_shapes: HashMap<String, Vec<i64>>,
    /// Values of graph inputs that ONNX lets be run-time values but TensorBind needs
    /// at import time (a Reshape's `shape` fed as an input, as the conformance suite does).
    /// The inputs stay function arguments; only shape-determining uses read the value.
    pub input_values: HashMap<String, Tensor>,
    /// The file name locations and messages use.
    pub file_name: String,
    /// Canonicalize and CSE the result with the passes this registers (the driver passes
    /// `tb_passes::register_all`); `None` leaves the module as imported. The importer sits
    /// below the passes crate, so whoever links both supplies them.
    pub cleanup: Option<cleanup::RegisterPasses>,
    /// Print warnings (an opset newer than tested, unused initializers, declared types
    /// that disagree with inference) to stderr as
    /// `file: warning: ...`; they are in [`Imported::warnings`] either way.
    pub warnings_to_stderr: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            input_shapes: HashMap::new(),
            input_values: HashMap::new(),
            file_name: "model.onnx".into(),
            cleanup: None,
            warnings_to_stderr: true,
        }
    }
}

/// An imported model.
pub struct Imported {
    pub ctx: Context,
    /// The `builtin.module`.
    pub module: OpId,
    /// The name of the `func.func` holding the graph.
    pub function: String,
    /// What validation and import warned about.
    pub warnings: Vec<String>,
}

/// A context with every TensorBind dialect registered.
pub fn new_context() -> Context {
    let mut ctx = Context::new();
    // Registration fails only for a malformed op definition: a bug, not bad input.
    tb_dialects::register_all(&mut ctx).expect("dialect definitions are well-formed");
    ctx
}

/// Validates `model` ([`crate::validate`]) and imports it into a fresh context.
pub fn import_model(model: &Model, options: &ImportOptions) -> Result<Imported, ImportError> {
    let report = crate::validate::validate(model);
    if !report.errors.is_empty() {
        return Err(ImportError {
            file: options.file_name.clone(),
            problems: report.errors,
        });
    }
    let mut ctx = new_context();
    let (module, function, import_warnings) = importer::import(&mut ctx, model, options)?;
    let mut warnings = report.warnings;
    warnings.extend(import_warnings);
    if options.warnings_to_stderr {
        for w in &warnings {
            eprintln!("{}: warning: {w}", options.file_name);
        }
    }
    Ok(Imported {
        ctx,
        module,
        function,
        warnings,
    })
}
