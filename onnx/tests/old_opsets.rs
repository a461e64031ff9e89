//! Models of opsets 7–12, read by converting each node to its opset-13 form
//! (`tb_onnx::import::version_convert`). `support/make_old_opset_models.py` builds, at test
//! time, one small model per conversion rule at each old opset it converts from (and a few
//! operators whose old versions need no conversion), with seeded random inputs and
//! onnxruntime's outputs; each is imported, run by the reference interpreter and compiled
//! by the CPU pipeline, and both are compared with onnxruntime (rtol 1e-4). Without the
//! project's Python (onnx, onnxruntime) the generated cases say why and pass, except under
//! `CI=true`, where they fail. The errors (an opset older than 7, what has no opset-13
//! form) are checked on models built here.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use common::builder::*;
use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_interpreter::exec::Interpreter;
use tb_interpreter::{Tensor, read_npy};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_onnx::Model;
use tb_onnx::import::expansion::string_attr;
use tb_onnx::import::{ImportError, ImportOptions, Imported, ProblemKind, import_model};
use tb_onnx::proto::tensor_proto::DataType;

const RTOL: f64 = 1e-4;
const ATOL: f64 = 1e-6;

/// The generated cases' directory, built once; `None` (after saying why) without Python,
/// onnx or onnxruntime.
fn cases_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Result<tempfile::TempDir, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let python = root.join(".venv/bin/python");
        let usable = Command::new(&python)
            .args(["-c", "import onnx, onnxruntime, numpy"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !usable {
            return Err(format!(
                "{} cannot import onnx, onnxruntime and numpy; run scripts/setup.sh",
                python.display()
            ));
        }
        let dir = tempfile::tempdir().expect("create a temporary directory");
        common::run_script(&python, "make_old_opset_models.py", &[dir.path()]);
        Ok(dir)
    });
    match dir {
        Ok(d) => Some(d.path()),
        Err(why) => {
            common::skip("old_opsets", why);
            None
        }
    }
}

fn case_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read_all(dir: &Path, prefix: &str) -> Vec<Tensor> {
    (0..)
        .map(|i| dir.join(format!("{prefix}_{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| read_npy(&p).unwrap())
        .collect()
}

fn options(name: &str) -> ImportOptions {
    ImportOptions {
        file_name: format!("{name}/model.onnx"),
        cleanup: Some(tb_passes::register_all),
        warnings_to_stderr: false,
        ..ImportOptions::default()
    }
}

fn compare(what: &str, results: &[Tensor], expected: &[Tensor]) -> Result<(), String> {
    if results.len() != expected.len() {
        return Err(format!(
            "{what}: {} results, {} expected",
            results.len(),
            expected.len()
        ));
    }
    for (i, (r, e)) in results.iter().zip(expected).enumerate() {
        r.allclose(e, RTOL, ATOL)
            .map_err(|m| format!("{what}: output #{i} differs from onnxruntime: {m}"))?;
    }
    Ok(())
}

/// Lowers the imported module with the default CPU pipeline, compiles and runs it.
fn run_compiled(imported: &mut Imported, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse(tb_passes::pipelines::CPU).expect("valid pipeline");
    let mut pm = PassManager::new(&pipeline, &registry).expect("registered passes");
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(&mut imported.ctx, imported.module, &instrumentation)
        .map_err(|d| format!("lowering: {}", d.message))?;
    let options = CompileOptions {
        functions: Some(vec![imported.function.clone()]),
        ..CompileOptions::default()
    };
    let compiled = CompiledModule::compile(&imported.ctx, imported.module, &options)
        .map_err(|d| format!("CPU backend: {}", d.message))?;
    compiled
        .run(&imported.function, inputs)
        .map_err(|e| format!("run: {e}"))
}

/// Imports case `name`, runs it in the interpreter and compiled, and compares both.
fn check_case(dir: &Path, name: &str) -> Result<(), String> {
    let case = dir.join(name);
    let model = Model::load(case.join("model.onnx")).map_err(|e| e.to_string())?;
    let mut imported = import_model(&model, &options(name)).map_err(|e| format!("import:\n{e}"))?;
    let inputs = read_all(&case, "input");
    let expected = read_all(&case, "output");
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    let results = interp
        .run_function(&imported.function, &inputs)
        .map_err(|d| format!("interpreter: {}", d.message))?;
    compare("interpreter", &results, &expected)?;
    let compiled = run_compiled(&mut imported, &inputs)?;
    compare("compiled", &compiled, &expected)
}

#[test]
fn every_old_opset_case_matches_onnxruntime_interpreted_and_compiled() {
    let Some(dir) = cases_dir() else { return };
    let names = case_names(dir);
    assert!(
        names.len() >= 60,
        "only {} cases were generated",
        names.len()
    );
    let failures: Vec<String> = names
        .iter()
        .filter_map(|n| check_case(dir, n).err().map(|e| format!("{n}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

#[test]
fn every_converted_opset_from_7_to_12_is_generated() {
    let Some(dir) = cases_dir() else { return };
    let names = case_names(dir);
    for opset in 7..=12 {
        let suffix = format!("_opset{opset}");
        assert!(
            names.iter().any(|n| n.ends_with(&suffix)),
            "no case at opset {opset}: {names:?}"
        );
    }
}

fn the_problem(e: &ImportError) -> (&ProblemKind, &str) {
    assert_eq!(e.problems.len(), 1, "{e}");
    (&e.problems[0].kind, &e.problems[0].message)
}

#[test]
fn an_opset_below_7_is_an_error_naming_the_opset_when_the_operator_changed_since() {
    let proto = model(
        6,
        vec![node("Add", "add", &["x", "y"], &["z"])],
        vec![float("x", &[2]), float("y", &[2])],
        vec![float("z", &[2])],
        vec![],
    );
    let e = import(proto, true).err().expect("opset 6's Add is refused");
    let (kind, message) = the_problem(&e);
    assert_eq!(*kind, ProblemKind::UnsupportedFeature);
    assert!(message.contains("opset 6"), "{message}");
    assert!(message.contains("'Add' changed in opset 7"), "{message}");
}

#[test]
fn an_opset_below_7_imports_an_operator_unchanged_since() {
    let proto = model(
        1,
        vec![node("Not", "not", &["x"], &["y"])],
        vec![typed("x", DataType::Bool, &[3])],
        vec![typed("y", DataType::Bool, &[3])],
        vec![],
    );
    import(proto, true).unwrap_or_else(|e| panic!("Not at opset 1 imports:\n{e}"));
}

#[test]
fn batch_normalization_spatial_0_is_unsupported() {
    let c = |n: &str| float(n, &[3]);
    let bn = with_attr(
        node(
            "BatchNormalization",
            "bn",
            &["x", "s", "b", "m", "v"],
            &["y"],
        ),
        attr_int("spatial", 0),
    );
    let proto = model(
        7,
        vec![bn],
        vec![float("x", &[1, 3, 2]), c("s"), c("b"), c("m"), c("v")],
        vec![float("y", &[1, 3, 2])],
        vec![],
    );
    let e = import(proto, true).err().expect("spatial = 0 is refused");
    let (kind, message) = the_problem(&e);
    assert_eq!(*kind, ProblemKind::UnsupportedFeature);
    assert!(message.contains("spatial = 0"), "{message}");
}

#[test]
fn resize_10_nearest_with_scales_both_below_and_above_1_is_unsupported() {
    let resize = with_attr(
        node("Resize", "resize", &["x", "scales"], &["y"]),
        string_attr("mode", "nearest"),
    );
    let proto = model(
        10,
        vec![resize],
        vec![float("x", &[1, 1, 4, 4])],
        vec![float("y", &[1, 1, 2, 8])],
        vec![floats("scales", &[4], &[1.0, 1.0, 0.5, 2.0])],
    );
    let e = import(proto, true)
        .err()
        .expect("mixed rounding is refused");
    let (kind, message) = the_problem(&e);
    assert_eq!(*kind, ProblemKind::UnsupportedFeature);
    assert!(message.contains("below and above 1"), "{message}");
}

#[test]
fn softmax_before_13_at_an_inner_axis_imports_as_flatten_softmax_reshape() {
    let softmax = with_attr(node("Softmax", "sm", &["x"], &["y"]), attr_int("axis", 1));
    let proto = model(
        11,
        vec![softmax],
        vec![float("x", &[2, 3, 4])],
        vec![float("y", &[2, 3, 4])],
        vec![],
    );
    let ir = imported_text(proto, true);
    assert!(ir.contains("tensor<2x12xf32>"), "{ir}");
    assert!(ir.contains("graph.softmax"), "{ir}");
    assert!(ir.contains("graph.reshape"), "{ir}");
}
