//! BatchNormalization (inference mode), InstanceNormalization and LayerNormalization.
//! Statistics are accumulated in f64 whatever the element type.

use crate::shape;

use super::float::{Real, float_apply};
use super::index::{Counter, broadcast_strides, numel};
use super::{KernelError, KernelResult, fail, make, output_count};
use crate::tensor::{DType, Tensor, TensorData};

fn float_params(op: &'static str, params: &[(&str, &Tensor)]) -> KernelResult<Vec<Vec<f64>>> {
    params
        .iter()
        .map(|(name, t)| {
            if t.dtype().is_float() {
                Ok(t.to_f64_vec())
            } else {
                fail(
                    op,
                    format!("{name} must be floating-point, got {}", t.dtype()),
                )
            }
        })
        .collect()
}

/// BatchNormalization in inference mode: `(x - mean) / sqrt(var + epsilon) * scale + bias`
/// per channel (axis 1). The parameters may have another float type than X (opset 15).
pub fn batch_norm(
    x: &Tensor,
    scale: &Tensor,
    bias: &Tensor,
    mean: &Tensor,
    var: &Tensor,
    epsilon: f32,
) -> KernelResult {
    const OP: &str = "BatchNormalization";
    let out = shape::batch_norm(
        x.shape(),
        scale.shape(),
        bias.shape(),
        mean.shape(),
        var.shape(),
    )?;
    let p = float_params(
        OP,
        &[
            ("scale", scale),
            ("B", bias),
            ("input_mean", mean),
            ("input_var", var),
        ],
    )?;
    let eps = epsilon as f64;
    // y = x * a + b per channel.
    let a: Vec<f64> = (0..p[0].len())
        .map(|c| p[0][c] / (p[3][c] + eps).sqrt())
        .collect();
    let b: Vec<f64> = (0..p[0].len()).map(|c| p[1][c] - p[2][c] * a[c]).collect();
    let c = x.shape()[1] as usize;
    let inner: usize = numel(&x.shape()[2..]);
    fn go<T: Real>(x: &[T], a: &[f64], b: &[f64], c: usize, inner: usize) -> Vec<T> {
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let ch = (i / inner.max(1)) % c;
                T::from_f64(v.to_f64() * a[ch] + b[ch])
            })
            .collect()
    }
    let (mut outs, _) = float_apply!(OP, &[x], |xs| Ok::<_, KernelError>(vec![go(
        xs[0], &a, &b, c, inner
    )]));
    make(OP, out, outs.remove(0))
}

/// Mean and population variance of a run of values.
fn moments(v: impl Iterator<Item = f64> + Clone, n: usize) -> (f64, f64) {
    let mean = v.clone().sum::<f64>() / n as f64;
    let var = v.map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    (mean, var)
}

/// InstanceNormalization: each `[n, c]` plane normalized by its own mean and variance, then
/// `* scale[c] + bias[c]`.
pub fn instance_norm(x: &Tensor, scale: &Tensor, bias: &Tensor, epsilon: f32) -> KernelResult {
    const OP: &str = "InstanceNormalization";
    let out = shape::instance_norm(x.shape(), scale.shape(), bias.shape())?;
    output_count(OP, &out)?;
    let c = x.shape()[1] as usize;
    let sp: usize = numel(&x.shape()[2..]);
    fn go<T: Real>(xs: &[&[T]], c: usize, sp: usize, eps: f64) -> Vec<T> {
        let (x, s, b) = (xs[0], xs[1], xs[2]);
        let mut y = Vec::with_capacity(x.len());
        for (p, plane) in x.chunks(sp.max(1)).enumerate() {
            let (mean, var) = moments(plane.iter().map(|v| v.to_f64()), sp);
            let inv = 1.0 / (var + eps).sqrt();
            let (sc, bc) = (s[p % c].to_f64(), b[p % c].to_f64());
            y.extend(
                plane
                    .iter()
                    .map(|v| T::from_f64((v.to_f64() - mean) * inv * sc + bc)),
            );
        }
        y
    }
    let eps = epsilon as f64;
    let (mut outs, _) = float_apply!(OP, &[x, scale, bias], |xs| Ok::<_, KernelError>(vec![go(
        &xs, c, sp, eps
    )]));
    make(OP, out, outs.remove(0))
}

fn layer_norm_impl<T: Real>(
    xs: &[&[T]],
    xshape: &[i64],
    rows: usize,
    param_strides: [&[usize]; 2],
    eps: f64,
    means: &mut Vec<f64>,
    invs: &mut Vec<f64>,
) -> Vec<T> {
    let (x, scale, bias) = (xs[0], xs[1], xs.get(2));
    let ns = x.len().checked_div(rows).unwrap_or(0);
    let mut y = Vec::with_capacity(x.len());
    // Rows are contiguous, so a row-major walk over X also walks the broadcast parameters.
    let mut c = Counter::new(xshape, param_strides);
    for row in x.chunks(ns.max(1)).take(rows) {
        let (mean, var) = moments(row.iter().map(|v| v.to_f64()), ns);
        let inv = 1.0 / (var + eps).sqrt();
        for v in row {
            let [so, bo] = c.offsets;
            let shift = bias.map_or(0.0, |b| b[bo].to_f64());
            y.push(T::from_f64(
                (v.to_f64() - mean) * inv * scale[so].to_f64() + shift,
            ));
            c.step();
        }
        means.push(mean);
        invs.push(inv);
    }
    y
}

/// The outputs of LayerNormalization: Y, and the optional Mean and InvStdDev, shaped
/// `x[..axis]` followed by ones. The statistics are f32 (ONNX's default `stash_type`) except
/// for f64 inputs, where they are f64.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNormOutputs {
    pub y: Tensor,
    pub mean: Tensor,
    pub inv_std_dev: Tensor,
}

/// LayerNormalization over dimensions `axis..`; scale and bias broadcast to X.
pub fn layer_norm(
    x: &Tensor,
    scale: &Tensor,
    bias: Option<&Tensor>,
    axis: i64,
    epsilon: f32,
) -> KernelResult<LayerNormOutputs> {
    const OP: &str = "LayerNormalization";
    let s = shape::layer_norm(x.shape(), scale.shape(), bias.map(|b| b.shape()), axis)?;
    let rows: usize = numel(&x.shape()[..s.axis]);
    let ss = broadcast_strides(scale.shape(), x.shape());
    let bs = bias.map_or(vec![0; x.rank()], |b| {
        broadcast_strides(b.shape(), x.shape())
    });
    let mut inputs = vec![x, scale];
    inputs.extend(bias);
    let mut means = Vec::with_capacity(rows);
    let mut invs = Vec::with_capacity(rows);
    let eps = epsilon as f64;
    let xshape = x.shape();
    let (mut outs, dt) = float_apply!(OP, &inputs, |xs| Ok::<_, KernelError>(vec![
        layer_norm_impl(&xs, xshape, rows, [&ss, &bs], eps, &mut means, &mut invs)
    ]));
    let y = make(OP, s.y, outs.remove(0))?;
    let stats = |v: Vec<f64>| {
        if dt == DType::F64 {
            TensorData::F64(v)
        } else {
            TensorData::F32(v.into_iter().map(|m| m as f32).collect())
        }
    };
    let mean = make(OP, s.stats.clone(), stats(means))?;
    let inv_std_dev = make(OP, s.stats, stats(invs))?;
    Ok(LayerNormOutputs {
        y,
        mean,
        inv_std_dev,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[i64], v: Vec<f32>) -> Tensor {
        Tensor::from_vec(shape.to_vec(), v).unwrap()
    }

    fn close(a: &[f64], b: &[f64], tol: f64) {
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol),
            "{a:?} vs {b:?}"
        );
    }

    #[test]
    fn batch_norm_inference() {
        // ONNX batchnorm example: x [[[-1, 0, 1]], [[2, 3, 4]]] with C = 2... here [1, 2, 1, 3].
        let x = t(&[1, 2, 1, 3], vec![-1., 0., 1., 2., 3., 4.]);
        let s = t(&[2], vec![1.0, 1.5]);
        let b = t(&[2], vec![0.0, 1.0]);
        let m = t(&[2], vec![0.0, 3.0]);
        let v = t(&[2], vec![1.0, 1.5]);
        let y = batch_norm(&x, &s, &b, &m, &v, 1e-5).unwrap();
        let k = 1.0 / (1.0f64 + 1e-5).sqrt();
        let k2 = 1.5 / (1.5f64 + 1e-5).sqrt();
        close(
            &y.to_f64_vec(),
            &[-k, 0.0, k, 1.0 - k2, 1.0, 1.0 + k2],
            1e-6,
        );
        // f16 data with f32 parameters (opset 15 allows distinct types).
        let yh = batch_norm(&x.cast(DType::F16), &s, &b, &m, &v, 1e-5).unwrap();
        assert_eq!(yh.dtype(), DType::F16);
        close(&yh.to_f64_vec(), &y.to_f64_vec(), 2e-3);
        assert!(
            batch_norm(&x, &s, &b, &t(&[3], vec![0.; 3]), &v, 1e-5)
                .unwrap_err()
                .message
                .contains("input_mean must be [2]")
        );
        let si = Tensor::vector(vec![1i32, 1]);
        assert!(
            batch_norm(&x, &si, &b, &m, &v, 1e-5)
                .unwrap_err()
                .message
                .contains("scale must be floating-point")
        );
        assert!(
            batch_norm(&x.cast(DType::I32), &s, &b, &m, &v, 1e-5)
                .unwrap_err()
                .message
                .contains("floating-point")
        );
    }

    #[test]
    fn instance_norm_planes() {
        // Two planes: [1, 2, 3, 4] and [2, 2, 2, 2].
        let x = t(&[1, 2, 2, 2], vec![1., 2., 3., 4., 2., 2., 2., 2.]);
        let y = instance_norm(&x, &t(&[2], vec![2.0, 1.0]), &t(&[2], vec![0.5, 7.0]), 0.0).unwrap();
        let sd = 1.25f64.sqrt();
        let want: Vec<f64> = [-1.5, -0.5, 0.5, 1.5]
            .iter()
            .map(|d| 2.0 * d / sd + 0.5)
            .chain([7.0; 4])
            .collect();
        close(&y.to_f64_vec()[..4], &want[..4], 1e-6);
        // Constant plane with epsilon 0: 0/0 is NaN, as in the definition.
        assert!(y.to_f64_vec()[4].is_nan());
        let y =
            instance_norm(&x, &t(&[2], vec![2.0, 1.0]), &t(&[2], vec![0.5, 7.0]), 1e-5).unwrap();
        close(&y.to_f64_vec()[4..], &[7.0; 4], 1e-6);
        assert!(instance_norm(&x, &t(&[1], vec![1.]), &t(&[2], vec![0.; 2]), 1e-5).is_err());
    }

    #[test]
    fn layer_norm_with_stats() {
        let x = t(&[2, 4], vec![1., 2., 3., 4., -1., -1., 1., 1.]);
        let scale = t(&[4], vec![1., 1., 2., 2.]);
        let bias = t(&[4], vec![0., 0., 0., 1.]);
        let o = layer_norm(&x, &scale, Some(&bias), -1, 0.0).unwrap();
        let sd = 1.25f64.sqrt();
        close(
            &o.y.to_f64_vec(),
            &[
                -1.5 / sd,
                -0.5 / sd,
                1.0 / sd,
                3.0 / sd + 1.0,
                -1.,
                -1.,
                2.,
                3.,
            ],
            1e-6,
        );
        assert_eq!(o.mean.shape(), &[2, 1]);
        assert_eq!(o.mean.dtype(), DType::F32);
        close(&o.mean.to_f64_vec(), &[2.5, 0.0], 1e-7);
        close(&o.inv_std_dev.to_f64_vec(), &[1.0 / sd, 1.0], 1e-6);
        // axis 0 normalizes everything; f64 keeps f64 statistics.
        let o = layer_norm(
            &x.cast(DType::F64),
            &t(&[1], vec![1.0]).cast(DType::F64),
            None,
            0,
            1e-5,
        )
        .unwrap();
        assert_eq!((o.mean.shape(), o.mean.dtype()), (&[1, 1][..], DType::F64));
        close(&o.mean.to_f64_vec(), &[1.25], 1e-12);
        // bf16 input: Y is bf16, statistics f32.
        let o = layer_norm(
            &x.cast(DType::BF16),
            &scale.cast(DType::BF16),
            None,
            1,
            1e-5,
        )
        .unwrap();
        assert_eq!(
            (o.y.dtype(), o.inv_std_dev.dtype()),
            (DType::BF16, DType::F32)
        );
        assert!(
            layer_norm(&x, &t(&[3], vec![1.; 3]), None, -1, 1e-5)
                .unwrap_err()
                .message
                .contains("Scale")
        );
        assert!(
            layer_norm(&x, &scale.cast(DType::F64), None, -1, 1e-5)
                .unwrap_err()
                .message
                .contains("same type")
        );
    }
}
