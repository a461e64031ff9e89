//! Model-level import tests: small networks (a residual block, an MLP, multi-head
//! attention with an exporter-style shape subgraph, a depthwise-separable block) are built
//! at test time by `support/make_models.py` with the onnx helper API, their expected
//! outputs computed there with numpy; each is imported, run by the interpreter and
//! compared. Without `.venv` (or its onnx package) the tests say why and pass, except
//! under `CI=true`, where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tb_interpreter::exec::Interpreter;
use tb_interpreter::read_npy;
use tb_ir::printer::{PrintOptions, print_operation};
use tb_onnx::Model;
use tb_onnx::import::{ImportOptions, import_model};

/// Generates the models once; `None` (with a message) when Python or onnx is missing.
fn models_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()?
            .to_path_buf();
        let python = root.join(".venv/bin/python");
        let out = std::env::temp_dir().join(format!("tb-onnx-models-{}", std::process::id()));
        let script = root.join("onnx/tests/support/make_models.py");
        match Command::new(&python).arg(&script).arg(&out).output() {
            Ok(o) if o.status.success() => Some(out),
            Ok(o) => {
                let why = format!(
                    "{} could not build the models (run scripts/setup.sh):\n{}",
                    python.display(),
                    String::from_utf8_lossy(&o.stderr)
                );
                tb_support::test_gate::skip("models", why);
                None
            }
            Err(e) => {
                let why = format!(
                    "cannot run {}: {e} (run scripts/setup.sh)",
                    python.display()
                );
                tb_support::test_gate::skip("models", why);
                None
            }
        }
    })
    .as_deref()
}

/// Imports `name`, runs it and compares every output; returns the imported IR's text.
fn check_model(name: &str) -> Option<String> {
    let dir = models_dir()?.join(name);
    let model = Model::load(dir.join("model.onnx")).unwrap();
    let options = ImportOptions {
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    let imported =
        import_model(&model, &options).unwrap_or_else(|e| panic!("{name} does not import:\n{e}"));
    let read = |prefix: &str| {
        (0..)
            .map(|i| dir.join(format!("{prefix}_{i}.npy")))
            .take_while(|p| p.exists())
            .map(|p| read_npy(&p).unwrap())
            .collect::<Vec<_>>()
    };
    let (inputs, expected) = (read("input"), read("output"));
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    let results = interp
        .run_function(&imported.function, &inputs)
        .unwrap_or_else(|d| panic!("{name} does not run: {}", d.message));
    assert_eq!(results.len(), expected.len());
    for (i, (r, e)) in results.iter().zip(&expected).enumerate() {
        if let Err(m) = r.allclose(e, 1e-4, 1e-5) {
            panic!("{name}: output #{i} differs from numpy: {m}");
        }
    }
    Some(print_operation(
        &imported.ctx,
        imported.module,
        PrintOptions::default(),
    ))
}

#[test]
fn residual_block_matches_numpy() {
    if let Some(ir) = check_model("residual_block") {
        assert_eq!(ir.matches("graph.conv ").count(), 2, "{ir}");
        assert_eq!(ir.matches("graph.batch_normalization").count(), 2, "{ir}");
        assert!(ir.contains("dense_resource<conv1.w>"), "{ir}");
    }
}

#[test]
fn mlp_matches_numpy() {
    if let Some(ir) = check_model("mlp") {
        assert!(ir.contains("trans_b = true"), "{ir}");
    }
}

#[test]
fn attention_matches_numpy_and_folds_its_shape_subgraph() {
    if let Some(ir) = check_model("attention") {
        for folded in [
            "graph.shape",
            "graph.gather",
            "graph.concat",
            "graph.unsqueeze",
        ] {
            assert!(!ir.contains(folded), "{folded} left in:\n{ir}");
        }
        assert!(ir.contains("shape = array<i64: 1, 6, 2, 8>"), "{ir}");
        assert!(ir.contains("graph.softmax"), "{ir}");
    }
}

#[test]
fn depthwise_separable_matches_numpy() {
    if let Some(ir) = check_model("depthwise_separable") {
        assert!(ir.contains("group = 6"), "{ir}");
        assert!(ir.contains("graph.clip"), "{ir}");
    }
}
