//! Helpers shared by the integration tests: finding the suite and the project's Python, and
//! skipping (with the reason printed) when they are not installed.

#![allow(dead_code)]

pub mod builder;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tb_interpreter::{Tensor, TensorData};
use tb_onnx::NodeTestSuite;

pub use tb_support::test_gate::skip;

/// The node test suite, or `None` (after printing why) when it is not installed.
pub fn suite_or_skip(test: &str) -> Option<NodeTestSuite> {
    match NodeTestSuite::locate() {
        Ok(suite) => Some(suite),
        Err(e) => {
            skip(test, e);
            None
        }
    }
}

/// The workspace's `.venv` Python, if it can import onnx and numpy; otherwise `None` after
/// printing why.
pub fn python_or_skip(test: &str) -> Option<PathBuf> {
    python().map_err(|why| skip(test, why)).ok()
}

fn python() -> Result<PathBuf, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let python = workspace.join(".venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import onnx, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        Ok(python)
    } else {
        let why = "cannot import onnx and numpy; run scripts/setup.sh";
        Err(format!("{} {why}", python.display()))
    }
}

/// Runs `tests/support/<script>` with `args`, panicking with its output if it fails, and
/// returns its stdout.
pub fn run_script(python: &Path, script: &str, args: &[&Path]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(script);
    let out = Command::new(python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}{}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("script output is UTF-8")
}

/// The fixtures `tests/support/make_fixtures.py` writes, generated once per test binary, or
/// `None` (after printing why) without the project's Python.
pub fn fixtures_or_skip(test: &str) -> Option<&'static Path> {
    static DIR: OnceLock<Result<tempfile::TempDir, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let python = python()?;
        let dir = tempfile::tempdir().expect("create a temporary directory");
        run_script(&python, "make_fixtures.py", &[dir.path()]);
        Ok(dir)
    });
    match dir {
        Ok(d) => Some(d.path()),
        Err(why) => {
            skip(test, why);
            None
        }
    }
}

/// The tensor's elements as numpy's `tobytes()` lays them out on a little-endian machine, so
/// that comparisons are bit for bit (NaN payloads and -0.0 included).
pub fn le_bytes(t: &Tensor) -> Vec<u8> {
    fn flat<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(f).collect()
    }
    match t.data() {
        TensorData::F32(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::F64(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::F16(v) => flat(v, |x| x.to_bits().to_le_bytes()),
        TensorData::BF16(v) => flat(v, |x| x.to_bits().to_le_bytes()),
        TensorData::I8(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::I16(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::I32(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::I64(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::U8(v) => v.clone(),
        TensorData::U16(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::U32(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::U64(v) => flat(v, |x| x.to_le_bytes()),
        TensorData::Bool(v) => v.iter().map(|&b| b as u8).collect(),
    }
}

/// Asserts that two tensors have the same type, shape and bits.
pub fn assert_same(actual: &Tensor, expected: &Tensor, what: &str) {
    assert_eq!(actual.dtype(), expected.dtype(), "{what}: element type");
    assert_eq!(actual.shape(), expected.shape(), "{what}: shape");
    assert!(
        le_bytes(actual) == le_bytes(expected),
        "{what}: elements differ:\n  read:     {:?}\n  expected: {:?}",
        actual.data(),
        expected.data()
    );
}

/// Lowers an imported model with the CPU pipeline and compiles its function for the host,
/// its parallel loops on all cores; panics naming `name` when either step fails.
pub fn compile_for_host(
    name: &str,
    imported: &mut tb_onnx::import::Imported,
) -> tb_backends::cpu::CompiledModule {
    use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse(tb_passes::pipelines::CPU).expect("valid pipeline");
    PassManager::new(&pipeline, &registry)
        .expect("registered passes")
        .run(
            &mut imported.ctx,
            imported.module,
            &Instrumentation::default(),
        )
        .unwrap_or_else(|d| panic!("{name} does not lower: {}", d.message));
    let options = tb_backends::cpu::CompileOptions {
        threads: Some(0),
        functions: Some(vec![imported.function.clone()]),
        ..Default::default()
    };
    tb_backends::cpu::CompiledModule::compile(&imported.ctx, imported.module, &options)
        .unwrap_or_else(|d| panic!("{name} does not compile: {}", d.message))
}

/// Runs the model generator `script` (a path under the workspace's `models/`) with
/// `OUT_DIR args...` into a fresh temporary directory, after checking that the `.venv`
/// Python runs `probe` (the imports the generator needs); `Err` says why the models cannot
/// be made here. A generator that then fails is a bug, not a missing installation: it panics.
pub fn generate_models(
    script: &str,
    probe: &str,
    missing: &str,
    args: &[&str],
) -> Result<tempfile::TempDir, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let python = root.join(".venv/bin/python");
    let probed = Command::new(&python).args(["-c", probe]).output();
    if !probed.is_ok_and(|o| o.status.success()) {
        return Err(format!(
            "{} {missing}; run scripts/setup.sh",
            python.display()
        ));
    }
    let out = tempfile::tempdir().map_err(|e| format!("no temporary directory: {e}"))?;
    let output = Command::new(&python)
        .arg(root.join("models").join(script))
        .arg(out.path())
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    assert!(
        output.status.success(),
        "models/{script} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(out)
}

/// Reads `dir/<prefix>_0.npy`, `_1`, ... until one is missing.
pub fn read_numbered(dir: &Path, prefix: &str) -> Vec<Tensor> {
    (0..)
        .map(|i| dir.join(format!("{prefix}_{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| tb_interpreter::read_npy(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}
