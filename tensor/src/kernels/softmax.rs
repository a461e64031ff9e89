//! Softmax and LogSoftmax along one axis (opset 13 semantics), computed in f64 with the
//! maximum subtracted for stability.

use crate::shape;

use super::float::{Real, float_apply};
use super::index::numel;
use super::{KernelError, KernelResult, make, output_count};
use crate::tensor::Tensor;

/// Calls `f` on every 1-D lane of `axis`: `(outer, inner)` identify the lane, whose elements
/// are `base + j * inner` for `j < len`.
fn lanes(shape: &[i64], axis: usize, mut f: impl FnMut(usize, usize, usize)) {
    let outer: usize = numel(&shape[..axis]);
    let len = shape[axis] as usize;
    let inner: usize = numel(&shape[axis + 1..]);
    for o in 0..outer {
        for i in 0..inner {
            f(o * len * inner + i, len, inner);
        }
    }
}

fn softmax_impl<T: Real>(x: &[T], shape: &[i64], axis: usize, log: bool) -> Vec<T> {
    let mut y = vec![T::ZERO; x.len()];
    let mut buf = Vec::new();
    lanes(shape, axis, |base, len, inner| {
        buf.clear();
        buf.extend((0..len).map(|j| x[base + j * inner].to_f64()));
        let m = buf.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // All -inf lanes: exp(x - max) is NaN either way, as in numpy.
        let sum: f64 = buf.iter().map(|v| (v - m).exp()).sum();
        for (j, v) in buf.iter().enumerate() {
            let r = if log {
                v - m - sum.ln()
            } else {
                (v - m).exp() / sum
            };
            y[base + j * inner] = T::from_f64(r);
        }
    });
    y
}

fn run(op: &'static str, x: &Tensor, axis: i64, log: bool) -> KernelResult {
    let out = shape::softmax(op, x.shape(), axis)?;
    output_count(op, &out)?;
    let a = shape::normalize_axis(op, axis, x.rank())?;
    let (mut outs, _) = float_apply!(op, &[x], |xs| Ok::<_, KernelError>(vec![softmax_impl(
        xs[0],
        x.shape(),
        a,
        log
    )]));
    make(op, out, outs.remove(0))
}

/// Softmax along `axis` (default -1 in ONNX).
pub fn softmax(x: &Tensor, axis: i64) -> KernelResult {
    run("Softmax", x, axis, false)
}

/// LogSoftmax along `axis`.
pub fn log_softmax(x: &Tensor, axis: i64) -> KernelResult {
    run("LogSoftmax", x, axis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;

    #[test]
    fn softmax_values() {
        let x =
            Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 1000.0, 1000.0, 1000.0]).unwrap();
        let y = softmax(&x, -1).unwrap().to_f64_vec();
        let want = [
            0.09003057,
            0.24472847,
            0.66524096,
            1.0 / 3.0,
            1.0 / 3.0,
            1.0 / 3.0,
        ];
        for (a, b) in y.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{y:?}");
        }
        let l = log_softmax(&x, 1).unwrap().to_f64_vec();
        assert!(
            (l[0] - -2.40760596).abs() < 1e-6 && (l[3] - -(3f64.ln())).abs() < 1e-6,
            "{l:?}"
        );
        // Axis 0 normalizes columns.
        let y = softmax(
            &Tensor::from_vec(vec![2, 2], vec![0.0f64, 5.0, 0.0, 5.0]).unwrap(),
            0,
        )
        .unwrap();
        assert_eq!(y.to_f64_vec(), vec![0.5, 0.5, 0.5, 0.5]);
        // Middle axis of a 3-D tensor, in f16.
        let x = Tensor::from_vec(vec![1, 2, 2], vec![0.0f32, 1.0, 0.0, 1.0])
            .unwrap()
            .cast(DType::F16);
        let y = softmax(&x, 1).unwrap();
        assert_eq!((y.dtype(), y.to_f64_vec()), (DType::F16, vec![0.5; 4]));
        assert!(
            softmax(&x, 3)
                .unwrap_err()
                .to_string()
                .starts_with("Softmax: axis 3 is out of range")
        );
        assert!(log_softmax(&Tensor::scalar(1.0f32), 0).is_err());
        assert!(
            softmax(&Tensor::vector(vec![1i32]), 0)
                .unwrap_err()
                .message
                .contains("floating-point")
        );
    }
}
