//! Loading a model for the tools: an ONNX file is imported at the graph level, anything else
//! is parsed as MLIR; both give a verified module in a fresh context and the sources that
//! located errors are rendered with.

use std::collections::HashMap;
use std::path::Path;

use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::{Context, OpId, verifier};
use tb_onnx::Model;
use tb_onnx::import::{ImportOptions, import_model, signature::parse_shape};

/// A verified module and what renders its diagnostics.
pub struct Loaded {
    pub ctx: Context,
    pub module: OpId,
    pub sources: SourceMgr,
}

impl Loaded {
    /// A diagnostic rendered with its source line, if the source is text.
    pub fn render(&self, diag: &tb_ir::Diagnostic) -> String {
        render(&self.ctx, &self.sources, diag)
    }
}

/// Whether `path` names an ONNX model (by its extension).
pub fn is_onnx(path: &str) -> bool {
    Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

/// `NAME=AxBxC` specs as the importer's shape table.
pub fn parse_input_shapes(specs: &[String]) -> Result<HashMap<String, Vec<i64>>, String> {
    let mut shapes = HashMap::new();
    for spec in specs {
        let (name, shape) = spec
            .rsplit_once('=')
            .ok_or_else(|| format!("--input-shape '{spec}' is not NAME=AxBxC"))?;
        let dims = parse_shape(shape).map_err(|e| format!("--input-shape '{spec}': {e}"))?;
        shapes.insert(name.to_owned(), dims);
    }
    Ok(shapes)
}

/// Imports the ONNX model at `path`, fixing dynamic input dimensions with `input_shapes`.
pub fn load_onnx(path: &str, input_shapes: HashMap<String, Vec<i64>>) -> Result<Loaded, String> {
    let model = Model::load(path).map_err(|e| e.to_string())?;
    let options = ImportOptions {
        input_shapes,
        file_name: path.to_owned(),
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    let imported = import_model(&model, &options).map_err(|e| e.to_string())?;
    Ok(Loaded {
        ctx: imported.ctx,
        module: imported.module,
        sources: SourceMgr::new(),
    })
}

/// Parses and verifies MLIR text named `filename`.
pub fn load_mlir(text: &str, filename: &str) -> Result<Loaded, String> {
    let mut sources = SourceMgr::new();
    sources.add_buffer(filename, text);
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).map_err(|bug| format!("internal error: {bug}"))?;
    let module = parse_source(&mut ctx, text, filename, &ParseOptions::default())
        .map_err(|d| render(&ctx, &sources, &d))?;
    verifier::verify(&ctx, module).map_err(|d| render(&ctx, &sources, &d))?;
    Ok(Loaded {
        ctx,
        module,
        sources,
    })
}
