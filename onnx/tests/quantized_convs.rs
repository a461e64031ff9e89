//! ConvInteger and QLinearConv on random 8-bit models (`models/qconv_cases.py`: uint8
//! and int8 inputs and weights, per-tensor and per-channel zero points and scales, groups
//! and depthwise, strides, pads, auto_pad, dilations, 1-D/2-D/3-D, batches, biases and
//! an input zero point given at run time). Each model is imported, run by the reference
//! interpreter, lowered by the CPU pipeline, compiled for the host and run natively; both
//! results must equal the exact one bit for bit (the convolution in int64 and ONNX's
//! requantization), and onnxruntime's where it runs the model (it rejects per-channel
//! weight zero points in ConvInteger). The convolutions without groups must reach the
//! integer micro-kernel (`loop.dot`).
//!
//! Without `.venv` (or its onnx/numpy packages) the test says why and passes.

mod common;

use std::path::Path;

use tb_interpreter::exec::Interpreter;
use tb_onnx::Model;
use tb_onnx::import::{ImportOptions, import_model};

/// How many ops named `name` the module holds.
fn count_ops(ctx: &tb_ir::Context, module: tb_ir::OpId, name: &str) -> usize {
    let mut n = 0;
    ctx.walk_nested(module, &mut |op| n += usize::from(ctx.op_name(op) == name));
    n
}

/// Whether a case's convolution is one the integer micro-kernel blocks on any x86
/// host: no groups, and output channels to fill at least one column block of the widest
/// vectors (2 x 16 i32 lanes).
fn expects_dot_products(model: &Model) -> bool {
    let graph = model.graph();
    let grouped = graph.node[0]
        .attribute
        .iter()
        .any(|a| a.name == "group" && a.i != 1);
    let weights = graph.initializer.iter().find(|t| t.name == "w").unwrap();
    !grouped && weights.dims[0] >= 32
}

fn check_case(dir: &Path) {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let model = Model::load(dir.join("model.onnx")).unwrap();
    let options = ImportOptions {
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    let mut imported =
        import_model(&model, &options).unwrap_or_else(|e| panic!("{name} does not import:\n{e}"));
    let inputs = common::read_numbered(dir, "input");
    let expected = &common::read_numbered(dir, "expected")[0];
    let onnxruntime = common::read_numbered(dir, "ort");

    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    let results = interp
        .run_function(&imported.function, &inputs)
        .unwrap_or_else(|d| panic!("{name} does not run: {}", d.message));
    common::assert_same(&results[0], expected, &format!("{name} (interpreter)"));

    let compiled = common::compile_for_host(&name, &mut imported);
    let results = compiled
        .run(&imported.function, &inputs)
        .unwrap_or_else(|e| panic!("{name} does not run compiled: {e}"));
    common::assert_same(&results[0], expected, &format!("{name} (compiled)"));
    if let Some(ort) = onnxruntime.first() {
        common::assert_same(&results[0], ort, &format!("{name} (onnxruntime)"));
    }
    let dots = count_ops(&imported.ctx, imported.module, "loop.dot");
    if expects_dot_products(&model) {
        assert!(dots > 0, "{name}: the convolution did not become loop.dot");
    }
}

#[test]
fn integer_convolutions_are_exact_and_match_onnxruntime() {
    let test = "quantized_convs::integer_convolutions_are_exact_and_match_onnxruntime";
    let out = match common::generate_models(
        "qconv_cases.py",
        "import onnx, numpy",
        "cannot import onnx and numpy",
        &[],
    ) {
        Ok(out) => out,
        Err(why) => return common::skip(test, why),
    };
    let mut cases: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 16,
        "qconv_cases.py wrote {} cases",
        cases.len()
    );
    for dir in &cases {
        check_case(dir);
    }
}
