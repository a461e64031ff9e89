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
    /// A diagnostic rendered with its source line, if the source is text. Where its
    /// location names what it came from (`loc("node"(...))`, as an imported ONNX node's
    /// does), the message ends with that name, which the file position alone would lose.
    pub fn render(&self, diag: &tb_ir::Diagnostic) -> String {
        let mut named = diag.clone();
        for d in std::iter::once(&mut named.loc)
            .zip(std::iter::once(&mut named.message))
            .chain(named.notes.iter_mut().map(|n| (&mut n.loc, &mut n.message)))
        {
            let (loc, message) = d;
            if let Some(name) = location_name(&self.ctx, *loc) {
                // Passes that name the node themselves (`(node "x")`) are left alone.
                if !message.contains(&format!("\"{name}\"")) {
                    message.push_str(&format!(" [at '{name}']"));
                }
            }
        }
        render(&self.ctx, &self.sources, &named)
    }
}

/// The name a location gives (`loc("name")`, `loc("name"(child))`), looking through a
/// call site's callee and the first named location of a fused one.
pub fn location_name(ctx: &Context, loc: tb_ir::Location) -> Option<String> {
    use tb_ir::location::LocationKind;
    match ctx.location_kind(loc)? {
        LocationKind::Name { name, .. } => Some(name.clone()),
        LocationKind::CallSite { callee, .. } => location_name(ctx, *callee),
        LocationKind::Fused { locations, .. } => {
            locations.iter().find_map(|&l| location_name(ctx, l))
        }
        _ => None,
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
    import(&model, path, input_shapes)
}

/// Imports the ONNX model serialized in `bytes` (read from standard input, say), named
/// `file_name` in locations. Such a model cannot keep its weights in external files.
pub fn load_onnx_bytes(
    bytes: &[u8],
    file_name: &str,
    input_shapes: HashMap<String, Vec<i64>>,
) -> Result<Loaded, String> {
    let model = Model::from_bytes(bytes).map_err(|e| format!("{file_name}: {e}"))?;
    import(&model, file_name, input_shapes)
}

/// Imports an already loaded ONNX `model`, named `file_name` in locations.
pub fn import(
    model: &Model,
    file_name: &str,
    input_shapes: HashMap<String, Vec<i64>>,
) -> Result<Loaded, String> {
    import_with_values(model, file_name, input_shapes, HashMap::new())
}

/// [`import`], with the values of some graph inputs known at import time: an input that
/// sets a shape (a Reshape's shape, Pad's pads, Resize's sizes) is read there, and the
/// module is for that value (the inputs stay arguments of the function).
pub fn import_with_values(
    model: &Model,
    file_name: &str,
    input_shapes: HashMap<String, Vec<i64>>,
    input_values: HashMap<String, tb_interpreter::Tensor>,
) -> Result<Loaded, String> {
    let options = ImportOptions {
        input_shapes,
        input_values,
        file_name: file_name.to_owned(),
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    let imported = import_model(model, &options).map_err(|e| e.to_string())?;
    Ok(Loaded {
        ctx: imported.ctx,
        module: imported.module,
        sources: SourceMgr::new(),
    })
}

/// Parses and verifies MLIR text named `filename`.
pub fn load_mlir(text: &str, filename: &str) -> Result<Loaded, String> {
    load_mlir_with(text, filename, false)
}

/// Parses and verifies MLIR text named `filename`, accepting ops of unregistered dialects
/// when `allow_unregistered` (`--allow-unregistered-dialect`).
pub fn load_mlir_with(
    text: &str,
    filename: &str,
    allow_unregistered: bool,
) -> Result<Loaded, String> {
    let mut sources = SourceMgr::new();
    sources.add_buffer(filename, text);
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).map_err(|bug| format!("internal error: {bug}"))?;
    ctx.allow_unregistered_dialects = allow_unregistered;
    let module = parse_source(&mut ctx, text, filename, &ParseOptions::default())
        .map_err(|d| render(&ctx, &sources, &d))?;
    verifier::verify(&ctx, module).map_err(|d| render(&ctx, &sources, &d))?;
    Ok(Loaded {
        ctx,
        module,
        sources,
    })
}

/// The shape a `.npy` file's header declares, read without reading its data.
pub fn npy_shape(path: &Path) -> Result<Vec<i64>, String> {
    use std::io::Read;
    let fail = |m: &str| format!("'{}' is not a .npy file: {m}", path.display());
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let mut prefix = [0u8; 12];
    file.read_exact(&mut prefix[..10])
        .map_err(|_| fail("it is too short"))?;
    if &prefix[..6] != b"\x93NUMPY" {
        return Err(fail("no NUMPY magic"));
    }
    let header_len = if prefix[6] == 1 {
        u16::from_le_bytes([prefix[8], prefix[9]]) as usize
    } else {
        file.read_exact(&mut prefix[10..12])
            .map_err(|_| fail("it is too short"))?;
        u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]) as usize
    };
    if header_len > 1 << 20 {
        return Err(fail("its header is longer than 1 MiB"));
    }
    let mut header = vec![0u8; header_len];
    file.read_exact(&mut header)
        .map_err(|_| fail("its header is cut short"))?;
    let header = String::from_utf8_lossy(&header);
    let start = header
        .find("'shape'")
        .and_then(|at| header[at..].find('(').map(|p| at + p + 1))
        .ok_or_else(|| fail("its header has no shape"))?;
    let end = header[start..]
        .find(')')
        .map(|p| start + p)
        .ok_or_else(|| fail("its shape is not closed"))?;
    header[start..end]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            d.parse::<i64>()
                .map_err(|_| fail("a dimension is not a number"))
        })
        .collect()
}

/// The names a function's arguments and results carry (`{onnx.name = ...}` in its
/// `arg_attrs`/`res_attrs`), `None` where they carry none.
pub fn io_names(ctx: &Context, func: OpId) -> (Vec<Option<String>>, Vec<Option<String>>) {
    let names = |key: &str| -> Vec<Option<String>> {
        let Some(list) = ctx.op_inherent_or_attr(func, key) else {
            return Vec::new();
        };
        let tb_ir::AttrKind::Array(dicts) = ctx.attr_kind(list) else {
            return Vec::new();
        };
        dicts
            .iter()
            .map(|&d| {
                ctx.dictionary_get(d, "onnx.name")
                    .and_then(|n| ctx.attr_as_str(n))
                    .map(str::to_owned)
            })
            .collect()
    };
    (names("arg_attrs"), names("res_attrs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy_file(tag: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("tb-load-{tag}-{}.npy", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn npy_shape_reads_the_header_alone() {
        let tensor = tb_interpreter::Tensor::from_vec(vec![5, 1, 3], vec![0f32; 15]).unwrap();
        let mut bytes = tb_interpreter::to_npy_bytes(&tensor);
        // Cut the data short: only the header is read.
        bytes.truncate(bytes.len() - 8);
        let path = npy_file("shape", &bytes);
        assert_eq!(npy_shape(&path).unwrap(), vec![5, 1, 3]);
        let scalar = npy_file(
            "scalar",
            &tb_interpreter::to_npy_bytes(&tb_interpreter::Tensor::scalar(1f32)),
        );
        assert_eq!(npy_shape(&scalar).unwrap(), Vec::<i64>::new());
        let not_npy = npy_file("text", b"hello, world");
        assert!(npy_shape(&not_npy).unwrap_err().contains("no NUMPY magic"));
        for p in [path, scalar, not_npy] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn names_come_from_argument_and_result_attributes_and_locations() {
        let text = r#"
            func.func @f(%a: tensor<2xf32> {onnx.name = "image"}, %b: tensor<2xf32>)
                -> (tensor<2xf32> {onnx.name = "probs"}) {
              %c = "graph.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("add_node"("m.onnx":0:0))
              return %c : tensor<2xf32>
            }"#;
        let loaded = load_mlir(text, "names.mlir").unwrap();
        let mut func = None;
        let mut add = None;
        loaded
            .ctx
            .walk_nested(loaded.module, &mut |op| match loaded.ctx.op_name(op) {
                "func.func" => func = Some(op),
                "graph.add" => add = Some(op),
                _ => {}
            });
        let (args, results) = io_names(&loaded.ctx, func.unwrap());
        assert_eq!(args, vec![Some("image".to_owned()), None]);
        assert_eq!(results, vec![Some("probs".to_owned())]);
        let loc = loaded.ctx.op(add.unwrap()).loc;
        assert_eq!(location_name(&loaded.ctx, loc).as_deref(), Some("add_node"));
        let rendered = loaded.render(&tb_ir::Diagnostic::error(loc, "fails"));
        assert!(
            rendered.contains("error: fails [at 'add_node']"),
            "{rendered}"
        );
    }
}
