//! What the conformance runners share: how a suite case is imported and how its results
//! are compared with the expected outputs.

use std::collections::HashMap;

use tb_interpreter::tensor::Tensor;
use tb_onnx::ConformanceCase;
use tb_onnx::import::ImportOptions;

const RTOL: f64 = 1e-3;
const ATOL: f64 = 1e-7;

/// Every result within the suite's tolerance of the expected output.
pub fn compare(results: &[Tensor], expected: &[Tensor]) -> Result<(), String> {
    if results.len() != expected.len() {
        return Err(format!(
            "{} results, {} expected",
            results.len(),
            expected.len()
        ));
    }
    for (i, (actual, expected)) in results.iter().zip(expected).enumerate() {
        actual
            .allclose(expected, RTOL, ATOL)
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
