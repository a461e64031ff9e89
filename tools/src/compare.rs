//! `--check`: results of compiled code against the reference interpreter's, element by
//! element within `atol + rtol * |expected|` (NaN matches NaN, infinities match exactly).

use tb_interpreter::Tensor;

/// How far one result is from its reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub max_abs_error: f64,
    pub max_rel_error: f64,
    /// The first element out of tolerance: (flat index, actual, expected).
    pub first_mismatch: Option<(usize, f64, f64)>,
}

/// Compares `actual` with `expected`; an error if their shapes or dtypes differ.
pub fn compare(
    actual: &Tensor,
    expected: &Tensor,
    rtol: f64,
    atol: f64,
) -> Result<Comparison, String> {
    if actual.shape() != expected.shape() || actual.dtype() != expected.dtype() {
        return Err(format!(
            "is {} {:?}, the interpreter's is {} {:?}",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
    }
    let mut out = Comparison {
        max_abs_error: 0.0,
        max_rel_error: 0.0,
        first_mismatch: None,
    };
    for (i, (a, e)) in actual
        .to_f64_vec()
        .into_iter()
        .zip(expected.to_f64_vec())
        .enumerate()
    {
        let same = a == e || (a.is_nan() && e.is_nan());
        let error = if same { 0.0 } else { (a - e).abs() };
        // A NaN error (one side NaN) is never within tolerance.
        let within = same || error <= atol + rtol * e.abs();
        if !within && out.first_mismatch.is_none() {
            out.first_mismatch = Some((i, a, e));
        }
        if error.is_finite() {
            out.max_abs_error = out.max_abs_error.max(error);
            if e != 0.0 {
                out.max_rel_error = out.max_rel_error.max(error / e.abs());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tb_interpreter::tensor::TensorData;

    fn tensor(values: &[f32]) -> Tensor {
        Tensor::new(vec![values.len() as i64], TensorData::F32(values.to_vec())).unwrap()
    }

    #[test]
    fn within_tolerance_reports_the_largest_errors() {
        let c = compare(&tensor(&[1.0, 2.001]), &tensor(&[1.0, 2.0]), 1e-3, 0.0).unwrap();
        assert!(c.first_mismatch.is_none());
        assert!((c.max_abs_error - 0.001).abs() < 1e-6);
    }

    #[test]
    fn out_of_tolerance_names_the_first_element() {
        let c = compare(
            &tensor(&[1.0, 2.1, 9.0]),
            &tensor(&[1.0, 2.0, 3.0]),
            1e-3,
            0.0,
        )
        .unwrap();
        assert_eq!(c.first_mismatch.map(|m| m.0), Some(1));
    }

    #[test]
    fn nan_matches_nan_but_not_a_number() {
        let nan = f32::NAN;
        assert!(
            compare(&tensor(&[nan]), &tensor(&[nan]), 0.0, 0.0)
                .unwrap()
                .first_mismatch
                .is_none()
        );
        assert!(
            compare(&tensor(&[nan]), &tensor(&[0.0]), 0.0, 0.0)
                .unwrap()
                .first_mismatch
                .is_some()
        );
    }

    #[test]
    fn shapes_must_agree() {
        assert!(compare(&tensor(&[1.0]), &tensor(&[1.0, 2.0]), 0.0, 0.0).is_err());
    }
}
