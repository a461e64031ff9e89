//! What the conformance runners share: how a suite case is imported and how its results
//! are compared with the expected outputs.

use std::collections::HashMap;

use tb_interpreter::tensor::Tensor;
use tb_onnx::ConformanceCase;
use tb_onnx::import::ImportOptions;

const RTOL: f64 = 1e-3;
const ATOL: f64 = 1e-7;

/// Cases whose expected outputs carry the rounding of the reference's own single-precision
/// arithmetic beyond the suite's atol, with the absolute tolerance they are checked with
/// instead. The inverse DFT cases were computed by numpy's complex64 FFT: values that are
/// exactly 0 come out as ±2e-7, and the transform in f64 differs from them by up to 1.5e-6.
const LOOSER_ATOL: &[(&str, f64)] = &[
    ("test_dft_inverse", 2e-6),
    ("test_dft_inverse_opset19", 2e-6),
];

/// Every result of `case` within its tolerance of the expected output.
pub fn compare_case(results: &[Tensor], case: &ConformanceCase) -> Result<(), String> {
    let (_, atol) = tolerances(case);
    compare_with(results, &case.outputs, atol)
}

/// The relative and absolute tolerances floats of `case` are compared with.
pub fn tolerances(case: &ConformanceCase) -> (f64, f64) {
    let atol = LOOSER_ATOL
        .iter()
        .find(|(name, _)| *name == case.name)
        .map_or(ATOL, |(_, atol)| *atol);
    (RTOL, atol)
}

/// Every result within the suite's rtol and `atol` of the expected output.
fn compare_with(results: &[Tensor], expected: &[Tensor], atol: f64) -> Result<(), String> {
    if results.len() != expected.len() {
        return Err(format!(
            "{} results, {} expected",
            results.len(),
            expected.len()
        ));
    }
    for (i, (actual, expected)) in results.iter().zip(expected).enumerate() {
        actual
            .allclose(expected, RTOL, atol)
            .map_err(|m| format!("output #{i}: {m}"))?;
    }
    Ok(())
}

/// The import options of a case.
pub fn import_options(case: &ConformanceCase) -> ImportOptions {
    let inputs = case.model.runtime_inputs();
    // The suite feeds shape inputs (Reshape's shape ...) as graph inputs: offer their
    // values for shape-determining uses; they stay function arguments.
    let input_values: HashMap<String, _> = inputs
        .iter()
        .zip(&case.inputs)
        .map(|(info, t)| (info.name.clone(), t.clone()))
        .collect();
    ImportOptions {
        input_values,
        file_name: format!("{}/model.onnx", case.name),
        // Suite cases go up to the newest opset; the warning would repeat on every one.
        warnings_to_stderr: false,
        cleanup: Some(tb_passes::register_all),
        ..ImportOptions::default()
    }
}

/// Runs `run` on every name, on as many threads as the host has cores (`TB_TEST_THREADS`
/// overrides), and returns the outcomes in the names' order, so a runner's report does not
/// depend on scheduling. The suite's cases are independent; running them side by side is
/// what keeps the suite's wall time proportional to the machine's cores.
pub fn run_in_parallel<T: Send>(names: &[String], run: impl Fn(&str) -> T + Sync) -> Vec<T> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::env::var("TB_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(names.len().max(1));
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<T>>> = Mutex::new((0..names.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(name) = names.get(i) else { break };
                    let outcome = run(name);
                    outcomes.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(outcome);
                }
            });
        }
    });
    outcomes
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|o| o.expect("every case ran"))
        .collect()
}
