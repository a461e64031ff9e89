//! Trained models other tools exported, as public packages ship them: PaddleOCR's text
//! detector, recognizer and orientation classifier (paddle2onnx, opsets 11-12), a YOLOv8n
//! detector (Ultralytics' exporter), and a voice-activity detector (PyTorch and spox
//! exports). `models/real_models.py` links each model file from its package (installed by
//! scripts/setup.sh from requirements-models.txt), draws seeded inputs and records
//! onnxruntime's outputs. Each model is imported with its inputs' shapes fixed (the
//! exporters leave dimensions open), lowered by the CPU pipeline, compiled for the host and
//! run on all cores; every output must match onnxruntime's element by element within
//! `|ours - theirs| <= RTOL * |theirs| + ATOL * max|theirs|`. The voice-activity detector
//! whose `If` branches on an input at run time compiles to a run-time branch and is run on
//! both sample rates (both branches), compiled and in the interpreter.
//!
//! Without `.venv` or the model packages the tests say why and pass (and fail under
//! `CI=true`).

mod common;

use std::io::Write;
use std::time::Instant;

use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
use tb_onnx::Model;
use tb_onnx::import::{ImportOptions, import_model};

/// onnxruntime's and our kernels sum in different orders (and onnxruntime fuses Conv and
/// BatchNormalization), so results differ in the last bits; a wrong kernel is off by O(1).
const RTOL: f64 = 1e-3;
/// The absolute part, on the scale of the output: outputs near zero (probabilities of
/// 1e-13, box offsets) have no meaningful relative error.
const ATOL: f64 = 1e-5;

/// Writes model `name` with its inputs and onnxruntime's outputs into a fresh temporary
/// directory; `Err` says why it cannot be made here.
fn generate(name: &str) -> Result<tempfile::TempDir, String> {
    common::generate_models(
        "real_models.py",
        "import onnx, onnxruntime, numpy, importlib.util as u; \
         assert all(u.find_spec(p) for p in ('rapidocr_onnxruntime', 'silero_vad', 'nudenet'))",
        "lacks onnx, onnxruntime or the model packages of requirements-models.txt",
        &["--models", name],
    )
}

/// The largest `|a - e| / (RTOL * |e| + ATOL * max|e|)`: at most 1 when every element is
/// within tolerance.
fn worst_ratio(actual: &Tensor, expected: &Tensor) -> f64 {
    assert_eq!(actual.shape(), expected.shape(), "output shapes differ");
    let (a, e) = (actual.to_f64_vec(), expected.to_f64_vec());
    let scale = e
        .iter()
        .fold(0f64, |m, x| m.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    a.iter().zip(&e).fold(0f64, |worst, (x, y)| {
        let ratio = if x.is_finite() {
            (x - y).abs() / (RTOL * y.abs() + ATOL * scale)
        } else {
            f64::INFINITY
        };
        worst.max(ratio)
    })
}

fn report(test: &str, line: std::fmt::Arguments) {
    let _ = std::io::stderr().write_all(format!("{test}: {line}\n").as_bytes());
}

/// A generated model, imported with its inputs' shapes fixed.
struct Prepared {
    _dir: tempfile::TempDir,
    imported: tb_onnx::import::Imported,
    inputs: Vec<Tensor>,
    expected: Vec<Tensor>,
}

/// Generates and imports model `name`; `None` (after saying why) where it cannot be made.
fn prepare(test: &str, name: &str) -> Option<Prepared> {
    let out = match generate(name) {
        Ok(out) => out,
        Err(why) => {
            common::skip(test, why);
            return None;
        }
    };
    let dir = out.path().join(name);
    let inputs = common::read_numbered(&dir, "input");
    let expected = common::read_numbered(&dir, "expected");
    let names = std::fs::read_to_string(dir.join("input_names.txt")).unwrap();
    let model = Model::load(dir.join("model.onnx")).unwrap();
    let mut options = ImportOptions {
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    for (input, value) in names.lines().zip(&inputs) {
        let shape = value.shape().to_vec();
        options.input_shapes.insert(input.to_string(), shape);
    }
    let imported =
        import_model(&model, &options).unwrap_or_else(|e| panic!("{name} does not import:\n{e}"));
    Some(Prepared {
        _dir: out,
        imported,
        inputs,
        expected,
    })
}

/// Requires every result within tolerance of onnxruntime's.
fn compare(test: &str, what: &str, results: &[Tensor], expected: &[Tensor]) {
    assert_eq!(results.len(), expected.len(), "{test}: number of outputs");
    for (i, (r, e)) in results.iter().zip(expected).enumerate() {
        let worst = worst_ratio(r, e);
        report(
            test,
            format_args!(
                "{what}: output #{i} {:?}: worst error {worst:.3} of the tolerance",
                e.shape()
            ),
        );
        assert!(
            worst <= 1.0,
            "{test} ({what}): output #{i} differs from onnxruntime: {worst:.3} times the \
             tolerance (rtol {RTOL:e}, atol {ATOL:e} of the largest magnitude)"
        );
    }
}

/// Imports, compiles and runs model `name`; compares with onnxruntime.
fn check(name: &str) {
    let test = format!("real_models::{name}");
    let start = Instant::now();
    let Some(Prepared {
        _dir,
        mut imported,
        inputs,
        expected,
    }) = prepare(&test, name)
    else {
        return;
    };
    let compiled = common::compile_for_host(name, &mut imported);
    let compile_time = start.elapsed();
    let start = Instant::now();
    let results = compiled
        .run(&imported.function, &inputs)
        .unwrap_or_else(|e| panic!("{name} does not run compiled: {e}"));
    let run_time = start.elapsed();

    report(
        &test,
        format_args!(
            "import, lower and compile {:.1} s, run {:.3} s",
            compile_time.as_secs_f64(),
            run_time.as_secs_f64()
        ),
    );
    compare(&test, "compiled", &results, &expected);
}

/// Imports model `name` and runs it in the reference interpreter; compares with
/// onnxruntime.
fn check_interpreted(name: &str) {
    let test = format!("real_models::{name}");
    let Some(prepared) = prepare(&test, name) else {
        return;
    };
    let mut interp = Interpreter::new(&prepared.imported.ctx, prepared.imported.module);
    let results = interp
        .run_function(&prepared.imported.function, &prepared.inputs)
        .unwrap_or_else(|d| panic!("{name} does not run in the interpreter: {}", d.message));
    compare(&test, "interpreter", &results, &prepared.expected);
}

#[test]
fn ppocr_text_detector_matches_onnxruntime() {
    check("ppocr_det");
}

#[test]
fn ppocr_text_recognizer_matches_onnxruntime() {
    check("ppocr_rec");
}

#[test]
fn ppocr_orientation_classifier_matches_onnxruntime() {
    check("ppocr_cls");
}

#[test]
fn yolov8n_detector_matches_onnxruntime() {
    check("yolov8n");
}

#[test]
fn silero_vad_lstm_export_matches_onnxruntime() {
    check("silero_vad_openvino");
}

#[test]
fn silero_vad_with_ifs_on_shapes_matches_onnxruntime() {
    // Its three Ifs branch on values computed from shapes: they fold at import.
    check("silero_vad_op15");
}

#[test]
fn silero_vad_with_a_run_time_if_matches_onnxruntime_on_the_8k_branch() {
    // `If` on the sample-rate input: a `graph.if` compiled to a branch (`scf.if`).
    check("silero_vad_8k");
    check_interpreted("silero_vad_8k");
}

#[test]
fn silero_vad_with_a_run_time_if_matches_onnxruntime_on_the_16k_branch() {
    // The same model and shapes, with the sample rate taking the other branch.
    check("silero_vad_if_16k");
}
