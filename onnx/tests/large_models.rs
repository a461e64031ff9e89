//! Real-architecture models end to end: ResNet-18, MobileNet-V2, SqueezeNet 1.1 and a
//! BERT-style encoder, built with seeded random weights by `models/make_models.py`, are
//! imported and run by the reference interpreter at the graph level, and compared with
//! onnxruntime's outputs. Each is then lowered by the CPU pipeline (graph → te → loop,
//! buffer planning), compiled for the host and run natively on all cores, and compared with
//! onnxruntime's outputs again.
//!
//! The models are full size (CNN inputs 1x3x224x224, BERT 1x128 tokens); in release mode
//! the four take a few seconds together. Each test prints its error and its import and
//! interpreter times to stderr, and checks that the import kept the model's structure
//! (BatchNormalization stays a node, ReLU6 a clip, GELU its Erf subgraph). The encoder is
//! also built with symbolic batch and sequence dimensions, as exported with dynamic axes,
//! and imported with its input shape fixed.
//!
//! Tolerance: the largest absolute difference, relative to the largest magnitude of the
//! reference output, must stay under 1e-4. Both sides compute in f32 with different
//! summation orders (and onnxruntime fuses Conv+BN), so differences of ~1e-6 are expected;
//! a wrong kernel shows up as O(1).
//!
//! The lowered model is then exported to upstream MLIR's dialects
//! (`tb-translate --emit=mlir-upstream`'s conversion), lowered and JIT-compiled by MLIR's own
//! pipeline and ExecutionEngine, and run on the same input: its outputs must agree with
//! TensorBind's compiled outputs within the same relative error.
//!
//! Without `.venv` (or its onnx/onnxruntime packages) the tests say why and pass.

mod common;
mod upstream_oracle;

use std::io::Write;
use std::time::Instant;

use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
use tb_onnx::Model;
use tb_onnx::import::{ImportOptions, import_model};

const MAX_RELATIVE_ERROR: f64 = 1e-4;

/// Builds model `name` (with its input and onnxruntime's output) in a fresh temporary
/// directory, removed when dropped; `Err` says why it cannot be built here.
fn generate_model(name: &str, dynamic: bool) -> Result<tempfile::TempDir, String> {
    let mut args = vec!["--models", name];
    args.extend(dynamic.then_some("--dynamic"));
    common::generate_models(
        "make_models.py",
        "import onnx, onnxruntime, numpy",
        "cannot import onnx, onnxruntime and numpy",
        &args,
    )
}

/// max |actual - expected| / max |expected|: the error on the scale of the output.
fn relative_error(actual: &Tensor, expected: &Tensor) -> f64 {
    assert_eq!(actual.shape(), expected.shape(), "output shapes differ");
    let (a, e) = (actual.to_f64_vec(), expected.to_f64_vec());
    let scale = e.iter().fold(0f64, |m, x| m.max(x.abs()));
    if a.iter().any(|x| !x.is_finite()) {
        return f64::INFINITY;
    }
    let diff = a
        .iter()
        .zip(&e)
        .fold(0f64, |m, (x, y)| m.max((x - y).abs()));
    diff / scale
}

/// One line to stderr, past libtest's capture, so the measurements show in a normal run.
fn report(test: &str, line: std::fmt::Arguments) {
    let _ = std::io::stderr().write_all(format!("{test}: {line}\n").as_bytes());
}

/// How many ops named `name` the module holds.
fn count_ops(ctx: &tb_ir::Context, module: tb_ir::OpId, name: &str) -> usize {
    let mut n = 0;
    ctx.walk_nested(module, &mut |op| n += usize::from(ctx.op_name(op) == name));
    n
}

/// How a model's inputs are declared.
enum Shapes<'a> {
    /// Static, as the test input's: imported with default options.
    Static,
    /// With symbolic batch (and sequence) dimensions: imported with this input fixed to
    /// this shape, after checking that importing without it is refused.
    Dynamic(&'a str, &'a [i64]),
}

/// Imports model `name`, checks that it holds `ops` (name, count) among others, runs it in
/// the interpreter and compares its outputs with onnxruntime's.
fn check(name: &str, shapes: Shapes, ops: &[(&str, usize)]) {
    let dynamic = matches!(shapes, Shapes::Dynamic(..));
    let test = format!(
        "large_models::{name}{}",
        if dynamic { " (dynamic axes)" } else { "" }
    );
    let out = match generate_model(name, dynamic) {
        Ok(out) => out,
        Err(why) => return common::skip(&test, why),
    };
    let dir = out.path().join(name);
    let start = Instant::now();
    let model = Model::load(dir.join("model.onnx")).unwrap();
    let mut options = ImportOptions {
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    };
    if let Shapes::Dynamic(input, shape) = shapes {
        let refused = import_model(&model, &options).err().map(|e| e.to_string());
        assert!(
            refused
                .as_ref()
                .is_some_and(|e| e.contains(input) && e.contains("--input-shape")),
            "{name}: a dynamic input should need --input-shape, got: {refused:?}"
        );
        options
            .input_shapes
            .insert(input.to_string(), shape.to_vec());
    }
    let mut imported =
        import_model(&model, &options).unwrap_or_else(|e| panic!("{name} does not import:\n{e}"));
    let import_time = start.elapsed();
    for &(op, expected) in ops {
        let found = count_ops(&imported.ctx, imported.module, op);
        assert_eq!(found, expected, "{name}: number of {op} ops after import");
    }

    let (inputs, expected) = (
        common::read_numbered(&dir, "input"),
        common::read_numbered(&dir, "expected"),
    );
    let start = Instant::now();
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    let results = interp
        .run_function(&imported.function, &inputs)
        .unwrap_or_else(|d| panic!("{name} does not run: {}", d.message));
    let run_time = start.elapsed();

    compare_outputs(&test, "interpreter", &results, &expected, |line| {
        format!(
            "{line}; import {:.2} s, interpreter {:.2} s",
            import_time.as_secs_f64(),
            run_time.as_secs_f64()
        )
    });
    if dynamic {
        return;
    }

    let start = Instant::now();
    let compiled = common::compile_for_host(name, &mut imported);
    let compile_time = start.elapsed();
    let start = Instant::now();
    let results = compiled
        .run(&imported.function, &inputs)
        .unwrap_or_else(|e| panic!("{name} does not run compiled: {e}"));
    let run_time = start.elapsed();
    compare_outputs(&test, "compiled", &results, &expected, |line| {
        format!(
            "{line}; lower and compile {:.2} s, run {:.2} s",
            compile_time.as_secs_f64(),
            run_time.as_secs_f64()
        )
    });

    let start = Instant::now();
    let mlir = upstream_oracle::export_and_run(
        &mut imported.ctx,
        imported.module,
        &imported.function,
        &inputs,
        2,
    )
    .unwrap_or_else(|e| match e {
        upstream_oracle::UpstreamError::NotExportable(why) => {
            panic!("{name} is not exported to upstream MLIR: {why}")
        }
        upstream_oracle::UpstreamError::Failed(why) => {
            panic!("{name} does not run in MLIR's ExecutionEngine: {why}")
        }
    });
    let mlir_time = start.elapsed();
    compare_outputs(
        &test,
        "mlir-upstream vs compiled",
        &mlir,
        &results,
        |line| {
            format!(
                "{line}; export, MLIR lowering, JIT and run {:.2} s",
                mlir_time.as_secs_f64()
            )
        },
    );
}

/// Checks each of `results` against `expected` (onnxruntime's, or for MLIR's run the
/// compiled results), reporting the error through `describe`.
fn compare_outputs(
    test: &str,
    what: &str,
    results: &[Tensor],
    expected: &[Tensor],
    describe: impl Fn(String) -> String,
) {
    assert_eq!(
        results.len(),
        expected.len(),
        "{test} ({what}): number of outputs"
    );
    for (i, (r, e)) in results.iter().zip(expected).enumerate() {
        let err = relative_error(r, e);
        let line = format!(
            "{what}: output #{i} {:?}: max relative error {err:.2e}",
            e.shape()
        );
        report(test, format_args!("{}", describe(line)));
        assert!(
            err <= MAX_RELATIVE_ERROR,
            "{test} ({what}): output #{i} differs: max relative error {err:.3e} > {MAX_RELATIVE_ERROR:e}"
        );
    }
}

#[test]
fn resnet18_matches_onnxruntime() {
    // Stem, 16 block convs and 3 shortcut projections; each with its BN.
    let ops = [
        ("graph.conv", 20),
        ("graph.batch_normalization", 20),
        ("graph.relu", 17),
        ("graph.add", 8),
        ("graph.max_pool", 1),
        ("graph.global_average_pool", 1),
        ("graph.gemm", 1),
    ];
    check("resnet18", Shapes::Static, &ops);
}

#[test]
fn mobilenetv2_matches_onnxruntime() {
    // Stem, 17 blocks of 3 convs (the first has no expansion) and the 1x1 to 1280.
    let ops = [
        ("graph.conv", 52),
        ("graph.batch_normalization", 52),
        ("graph.clip", 35),
        ("graph.add", 10),
        ("graph.gemm", 1),
    ];
    check("mobilenetv2", Shapes::Static, &ops);
}

#[test]
fn squeezenet_matches_onnxruntime() {
    // Stem, 8 Fire modules of 3 convs and the 1x1 classifier conv, each with its ReLU;
    // ceil-mode max pools.
    let ops = [
        ("graph.conv", 26),
        ("graph.relu", 26),
        ("graph.concat", 8),
        ("graph.max_pool", 3),
        ("graph.global_average_pool", 1),
    ];
    check("squeezenet", Shapes::Static, &ops);
}

/// The encoder's expected ops: four layers of 8 matmuls (Q, K, V, scores, context,
/// output, two FFN), one softmax, two layer norms and one erf; plus the embedding layer
/// norm. The position-embedding slice (Shape -> Gather -> Unsqueeze -> Slice) folds away.
const BERT_OPS: [(&str, usize); 9] = [
    ("graph.gather", 1),
    ("graph.matmul", 32),
    ("graph.softmax", 4),
    ("graph.layer_normalization", 9),
    ("graph.erf", 4),
    ("graph.reshape", 16),
    ("graph.transpose", 16),
    ("graph.shape", 0),
    ("graph.slice", 0),
];

#[test]
fn bert_encoder_matches_onnxruntime() {
    check("bert", Shapes::Static, &BERT_OPS);
}

#[test]
fn bert_encoder_with_dynamic_axes_imports_with_input_shape() {
    check("bert", Shapes::Dynamic("input_ids", &[1, 128]), &BERT_OPS);
}
