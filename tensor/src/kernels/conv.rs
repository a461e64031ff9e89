//! Conv and ConvTranspose over any number of spatial dimensions, with groups, dilations,
//! strides, explicit or automatic pads.
//!
//! Conv lowers each (image, group) pair to one matrix multiply: the im2col matrix
//! `[C/g * K, out_spatial]` is multiplied by the group's weights `[M/g, C/g * K]`. Conv
//! also takes 32- and 64-bit integers (wrapping sums): the form integer convolutions
//! (ConvInteger, QLinearConv) take on the graph dialect.
//! ConvTranspose multiplies the transposed weights by the input and scatters the columns
//! back (col2im), which is the adjoint of the same mapping.

use crate::shape::{self, ConvAttrs, ConvTransposeAttrs, WindowGeometry};

use super::float::{Real, float_apply};
use super::index::{Counter, numel, strides};
use super::matmul::{MatRef, Ring, gemm_acc};
use super::{KernelError, KernelResult, make, output_count};
use crate::tensor::{DType, Element, Tensor};

/// Kernel offsets, one row of `nsp` coordinates per kernel position (row-major).
fn kernel_positions(kernel: &[i64]) -> Vec<Vec<i64>> {
    let n: usize = numel(kernel);
    let mut c = Counter::new(kernel, []);
    (0..n)
        .map(|_| {
            let p = c.idx.clone();
            c.step();
            p
        })
        .collect()
}

/// For one kernel offset `k`, calls `f(o, i)` with the flat indices of every window position
/// `o` in `o_shape` and the input position `i = o*stride + k*dilation - pad_begin` it reads,
/// skipping those that fall outside `i_shape` (the padding).
fn for_each_tap(
    o_shape: &[i64],
    i_shape: &[i64],
    kpos: &[i64],
    g: &WindowGeometry,
    mut f: impl FnMut(usize, usize),
) {
    let nsp = o_shape.len();
    let istr = strides(i_shape);
    let last = nsp - 1;
    let outer = &o_shape[..last];
    let n_outer: usize = numel(outer);
    let inner = o_shape[last] as usize;
    let mut c = Counter::new(outer, []);
    let mut o_flat = 0usize;
    for _ in 0..n_outer {
        // Offset and validity of the outer dimensions.
        let mut base = 0i64;
        let mut valid = true;
        for d in 0..last {
            let i = c.idx[d] * g.strides[d] + kpos[d] * g.dilations[d] - g.pads_begin[d];
            valid &= i >= 0 && i < i_shape[d];
            base += i * istr[d] as i64;
        }
        if valid {
            let (s, dl, p) = (g.strides[last], g.dilations[last], g.pads_begin[last]);
            for o in 0..inner {
                let i = o as i64 * s + kpos[last] * dl - p;
                if i >= 0 && i < i_shape[last] {
                    f(o_flat + o, (base + i) as usize);
                }
            }
        }
        o_flat += inner;
        c.step();
    }
}

fn add_bias<T: Ring>(out: &mut [T], bias: &[T], n: usize, m: usize, sp: usize) {
    for ni in 0..n {
        for (mi, &bv) in bias.iter().enumerate().take(m) {
            out[(ni * m + mi) * sp..(ni * m + mi + 1) * sp]
                .iter_mut()
                .for_each(|v| *v = v.plus(bv));
        }
    }
}

fn conv_impl<T: Ring>(
    xs: &[&[T]],
    xsh: &[i64],
    wsh: &[i64],
    g: &WindowGeometry,
    group: usize,
) -> Vec<T> {
    let (x, w) = (xs[0], xs[1]);
    let (n, c, m) = (xsh[0] as usize, xsh[1] as usize, wsh[0] as usize);
    let (cg, mg) = (c / group, m / group);
    let ksize: usize = numel(&g.kernel);
    let in_sp: usize = numel(&g.input_spatial);
    let out_sp: usize = numel(&g.output_spatial);
    let rows = cg * ksize;
    let kpos = kernel_positions(&g.kernel);
    // A 1x1 kernel with unit strides and no padding reads the input as is.
    let pointwise = ksize == 1
        && g.strides.iter().all(|&s| s == 1)
        && g.pads_begin.iter().chain(&g.pads_end).all(|&p| p == 0);
    let mut cols = if pointwise {
        vec![]
    } else {
        vec![T::zero(); rows * out_sp]
    };
    let mut out = vec![T::zero(); n * m * out_sp];
    for ni in 0..n {
        for gi in 0..group {
            let xg = &x[(ni * c + gi * cg) * in_sp..(ni * c + (gi + 1) * cg) * in_sp];
            if !pointwise {
                cols.fill(T::zero());
                for ci in 0..cg {
                    let src = &xg[ci * in_sp..(ci + 1) * in_sp];
                    for (ki, kp) in kpos.iter().enumerate() {
                        let dst =
                            &mut cols[(ci * ksize + ki) * out_sp..(ci * ksize + ki + 1) * out_sp];
                        for_each_tap(&g.output_spatial, &g.input_spatial, kp, g, |o, i| {
                            dst[o] = src[i]
                        });
                    }
                }
            }
            let b = if pointwise { xg } else { &cols[..] };
            let wg = MatRef {
                data: &w[gi * mg * rows..(gi + 1) * mg * rows],
                rs: rows,
                cs: 1,
            };
            let og = &mut out[(ni * m + gi * mg) * out_sp..(ni * m + (gi + 1) * mg) * out_sp];
            gemm_acc(mg, out_sp, rows, wg, b, out_sp, og);
        }
    }
    if let Some(bias) = xs.get(2) {
        add_bias(&mut out, bias, n, m, out_sp);
    }
    out
}

/// Conv (float types, and i32/i64 with wrapping sums): `x` `[N, C, D...]`, `w`
/// `[M, C/group, k...]`, optional bias `[M]`.
pub fn conv(x: &Tensor, w: &Tensor, b: Option<&Tensor>, attrs: &ConvAttrs) -> KernelResult {
    const OP: &str = "Conv";
    let g = shape::conv_geometry(x.shape(), w.shape(), b.map(|b| b.shape()), attrs)?;
    output_count(OP, &g.output)?;
    output_count(OP, &g.kernel)?;
    // The im2col buffer: a row per (input channel of a group, kernel tap), a column per
    // output position.
    output_count(OP, &[&w.shape()[1..], &g.output_spatial[..]].concat())?;
    let mut inputs = vec![x, w];
    inputs.extend(b);
    let group = attrs.group as usize;
    fn ints<T: Ring>(
        inputs: &[&Tensor],
        xsh: &[i64],
        wsh: &[i64],
        g: &WindowGeometry,
        group: usize,
    ) -> Result<Vec<T>, KernelError> {
        let dtype = inputs[0].dtype();
        let mut xs = Vec::with_capacity(inputs.len());
        for t in inputs {
            xs.push(t.as_slice::<T>().ok_or_else(|| {
                KernelError::new(
                    "Conv",
                    format!(
                        "all inputs must have the same type, got {dtype} and {}",
                        t.dtype()
                    ),
                )
            })?);
        }
        Ok(conv_impl(&xs, xsh, wsh, g, group))
    }
    let (xsh, wsh) = (x.shape(), w.shape());
    let data = match x.dtype() {
        DType::I32 => i32::into_data(ints::<i32>(&inputs, xsh, wsh, &g, group)?),
        DType::I64 => i64::into_data(ints::<i64>(&inputs, xsh, wsh, &g, group)?),
        _ => {
            let (mut outs, _) =
                float_apply!(OP, &inputs, |xs| Ok::<_, KernelError>(vec![conv_impl(
                    &xs, xsh, wsh, &g, group
                )]));
            outs.remove(0)
        }
    };
    make(OP, g.output.clone(), data)
}

fn conv_transpose_impl<T: Real + Ring>(
    xs: &[&[T]],
    xsh: &[i64],
    wsh: &[i64],
    g: &WindowGeometry,
    group: usize,
) -> Vec<T> {
    let (x, w) = (xs[0], xs[1]);
    let (n, c, mg) = (xsh[0] as usize, xsh[1] as usize, wsh[1] as usize);
    let (cg, m) = (c / group, mg * group);
    let ksize: usize = numel(&g.kernel);
    let in_sp: usize = numel(&g.input_spatial);
    let out_sp: usize = numel(&g.output_spatial);
    let rows = mg * ksize;
    let kpos = kernel_positions(&g.kernel);
    let mut cols = vec![T::ZERO; rows * in_sp];
    let mut out = vec![T::ZERO; n * m * out_sp];
    for ni in 0..n {
        for gi in 0..group {
            let xg = &x[(ni * c + gi * cg) * in_sp..(ni * c + (gi + 1) * cg) * in_sp];
            // cols[rows x in_sp] = W_g^T * X_g, with W_g stored as [C/g, rows].
            let wg = MatRef {
                data: &w[gi * cg * rows..(gi + 1) * cg * rows],
                rs: 1,
                cs: rows,
            };
            cols.fill(T::ZERO);
            gemm_acc(rows, in_sp, cg, wg, xg, in_sp, &mut cols);
            for mi in 0..mg {
                let dst = &mut out
                    [(ni * m + gi * mg + mi) * out_sp..(ni * m + gi * mg + mi + 1) * out_sp];
                for (ki, kp) in kpos.iter().enumerate() {
                    let src = &cols[(mi * ksize + ki) * in_sp..(mi * ksize + ki + 1) * in_sp];
                    // Output o = i*stride + k*dilation - pad: the same relation as Conv's,
                    // with input and output swapped.
                    for_each_tap(&g.input_spatial, &g.output_spatial, kp, g, |i, o| {
                        dst[o] += src[i]
                    });
                }
            }
        }
    }
    if let Some(bias) = xs.get(2) {
        add_bias(&mut out, bias, n, m, out_sp);
    }
    out
}

/// ConvTranspose (float types): `x` `[N, C, D...]`, `w` `[C, M/group, k...]`, bias `[M]`.
pub fn conv_transpose(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    attrs: &ConvTransposeAttrs,
) -> KernelResult {
    const OP: &str = "ConvTranspose";
    let g = shape::conv_transpose_geometry(x.shape(), w.shape(), b.map(|b| b.shape()), attrs)?;
    output_count(OP, &g.output)?;
    output_count(OP, &g.kernel)?;
    // The col2im buffer: a row per (output channel of a group, kernel tap), a column per
    // input position.
    output_count(OP, &[&w.shape()[1..], &g.input_spatial[..]].concat())?;
    let mut inputs = vec![x, w];
    inputs.extend(b);
    let group = attrs.conv.group as usize;
    let (mut outs, _) = float_apply!(OP, &inputs, |xs| Ok::<_, KernelError>(vec![
        conv_transpose_impl(&xs, x.shape(), w.shape(), &g, group)
    ]));
    make(OP, g.output.clone(), outs.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::AutoPad;
    use crate::tensor::DType;

    fn t(shape: &[i64], v: Vec<f32>) -> Tensor {
        Tensor::from_vec(shape.to_vec(), v).unwrap()
    }

    fn iota(shape: &[i64]) -> Tensor {
        let n: i64 = shape.iter().product();
        t(shape, (0..n).map(|i| i as f32).collect())
    }

    /// Direct definition of a 2-D grouped convolution, for cross-checking.
    fn naive_conv2d(
        x: &Tensor,
        w: &Tensor,
        b: Option<&Tensor>,
        s: [i64; 2],
        p: [i64; 4],
        d: [i64; 2],
        group: i64,
    ) -> Vec<f64> {
        let (xs, ws) = (x.shape(), w.shape());
        let (n, c, h, wd) = (xs[0], xs[1], xs[2], xs[3]);
        let (m, cg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
        let oh = (h + p[0] + p[2] - (kh - 1) * d[0] - 1) / s[0] + 1;
        let ow = (wd + p[1] + p[3] - (kw - 1) * d[1] - 1) / s[1] + 1;
        let (xv, wv) = (x.to_f64_vec(), w.to_f64_vec());
        let bv = b.map(|b| b.to_f64_vec());
        let mg = m / group;
        let mut out = vec![];
        for ni in 0..n {
            for mi in 0..m {
                let gi = mi / mg;
                for y in 0..oh {
                    for xo in 0..ow {
                        let mut acc = bv.as_ref().map_or(0.0, |b| b[mi as usize]);
                        for ci in 0..cg {
                            for ky in 0..kh {
                                for kx in 0..kw {
                                    let iy = y * s[0] + ky * d[0] - p[0];
                                    let ix = xo * s[1] + kx * d[1] - p[1];
                                    if iy < 0 || iy >= h || ix < 0 || ix >= wd {
                                        continue;
                                    }
                                    let xi = ((ni * c + gi * cg + ci) * h + iy) * wd + ix;
                                    let wi = ((mi * cg + ci) * kh + ky) * kw + kx;
                                    acc += xv[xi as usize] * wv[wi as usize];
                                }
                            }
                        }
                        out.push(acc);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn onnx_conv_examples() {
        // ONNX Conv docs: 5x5 input 0..24, 3x3 ones kernel.
        let x = iota(&[1, 1, 5, 5]);
        let w = t(&[1, 1, 3, 3], vec![1.0; 9]);
        let padded = ConvAttrs {
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        let y = conv(&x, &w, None, &padded).unwrap();
        assert_eq!(y.shape(), &[1, 1, 5, 5]);
        let want = [
            12., 21., 27., 33., 24., 33., 54., 63., 72., 51., 63., 99., 108., 117., 81., 93., 144.,
            153., 162., 111., 72., 111., 117., 123., 84.,
        ];
        assert_eq!(y.to_f64_vec(), want.to_vec());
        let y = conv(&x, &w, None, &ConvAttrs::default()).unwrap();
        assert_eq!(
            y.to_f64_vec(),
            vec![54., 63., 72., 99., 108., 117., 144., 153., 162.]
        );
        // conv_with_strides_and_asymmetric_padding: 7x5 input, strides 2, pads [1, 0, 1, 0].
        let x = iota(&[1, 1, 7, 5]);
        let a = ConvAttrs {
            strides: vec![2, 2],
            pads: vec![1, 0, 1, 0],
            ..Default::default()
        };
        let y = conv(&x, &w, None, &a).unwrap();
        assert_eq!(y.shape(), &[1, 1, 4, 2]);
        assert_eq!(
            y.to_f64_vec(),
            vec![21., 33., 99., 117., 189., 207., 171., 183.]
        );
        // auto_pad SAME_LOWER with strides 2 (ONNX conv_with_autopad_same): 5x5 -> 3x3.
        let x = iota(&[1, 1, 5, 5]);
        let a = ConvAttrs {
            strides: vec![2, 2],
            auto_pad: AutoPad::SameLower,
            ..Default::default()
        };
        let y = conv(&x, &w, None, &a).unwrap();
        assert_eq!(
            y.to_f64_vec(),
            vec![12., 27., 24., 63., 108., 81., 72., 117., 84.]
        );
        // A 2x2 kernel makes the padding asymmetric: SAME_LOWER pads the beginning.
        let w2 = t(&[1, 1, 2, 2], vec![1.0; 4]);
        let y = conv(&x, &w2, None, &a).unwrap();
        assert_eq!(
            y.to_f64_vec(),
            vec![0., 3., 7., 15., 36., 44., 35., 76., 84.]
        );
    }

    #[test]
    fn conv_matches_naive_with_groups_dilations_and_bias() {
        // (C, M, group, strides, pads, dilations, kernel)
        type Case = (i64, i64, i64, [i64; 2], [i64; 4], [i64; 2], [i64; 2]);
        let cases: [Case; 4] = [
            (3, 4, 1, [1, 1], [1, 1, 1, 1], [1, 1], [3, 3]),
            (4, 6, 2, [2, 1], [0, 1, 2, 0], [1, 2], [3, 2]),
            (4, 4, 4, [1, 2], [1, 1, 1, 1], [2, 1], [3, 3]),
            (2, 3, 1, [1, 1], [0, 0, 0, 0], [1, 1], [1, 1]),
        ];
        for (c, m, group, s, p, d, k) in cases {
            let x = t(
                &[2, c, 7, 6],
                (0..2 * c * 42)
                    .map(|i| ((i * 37 % 23) as f32) / 7.0 - 1.5)
                    .collect(),
            );
            let w = t(
                &[m, c / group, k[0], k[1]],
                (0..m * (c / group) * k[0] * k[1])
                    .map(|i| ((i * 13 % 11) as f32) / 5.0 - 1.0)
                    .collect(),
            );
            let b = t(&[m], (0..m).map(|i| i as f32 * 0.5).collect());
            let a = ConvAttrs {
                strides: s.to_vec(),
                pads: p.to_vec(),
                dilations: d.to_vec(),
                group,
                ..Default::default()
            };
            let y = conv(&x, &w, Some(&b), &a).unwrap();
            let want = naive_conv2d(&x, &w, Some(&b), s, p, d, group);
            y.allclose(
                &Tensor::from_vec(y.shape().to_vec(), want.iter().map(|&v| v as f32).collect())
                    .unwrap(),
                1e-5,
                1e-5,
            )
            .unwrap();
        }
    }

    /// Conv with groups equals the concatenation of per-group convolutions.
    #[test]
    fn grouped_conv_is_per_group_convs() {
        let x = t(
            &[1, 4, 5, 5],
            (0..100).map(|i| (i % 7) as f32 - 3.0).collect(),
        );
        let w = t(
            &[6, 2, 3, 3],
            (0..108).map(|i| (i % 5) as f32 - 2.0).collect(),
        );
        let a = ConvAttrs {
            group: 2,
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        let whole = conv(&x, &w, None, &a).unwrap().to_f64_vec();
        let xv = x.to_f64_vec();
        let wv = w.to_f64_vec();
        let mut parts = vec![];
        for g in 0..2 {
            let xg = t(
                &[1, 2, 5, 5],
                xv[g * 50..(g + 1) * 50].iter().map(|&v| v as f32).collect(),
            );
            let wg = t(
                &[3, 2, 3, 3],
                wv[g * 54..(g + 1) * 54].iter().map(|&v| v as f32).collect(),
            );
            let a1 = ConvAttrs {
                pads: vec![1, 1, 1, 1],
                ..Default::default()
            };
            parts.extend(conv(&xg, &wg, None, &a1).unwrap().to_f64_vec());
        }
        assert_eq!(whole, parts);
    }

    #[test]
    fn conv_1d_3d_and_dtypes() {
        // 1-D: [1, 2, 3, 4] * [1, -1] = [-1, -1, -1].
        let y = conv(
            &t(&[1, 1, 4], vec![1., 2., 3., 4.]),
            &t(&[1, 1, 2], vec![1., -1.]),
            None,
            &ConvAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.to_f64_vec(), vec![-1., -1., -1.]);
        // 3-D with a 2x2x2 ones kernel sums each cube.
        let y = conv(
            &iota(&[1, 1, 2, 2, 2]),
            &t(&[1, 1, 2, 2, 2], vec![1.0; 8]),
            None,
            &ConvAttrs::default(),
        )
        .unwrap();
        assert_eq!(
            (y.shape(), y.to_f64_vec()),
            (&[1, 1, 1, 1, 1][..], vec![28.0])
        );
        let x = iota(&[1, 1, 5, 5]).cast(DType::F16);
        let w = t(&[1, 1, 3, 3], vec![1.0; 9]).cast(DType::F16);
        let y = conv(&x, &w, None, &ConvAttrs::default()).unwrap();
        assert_eq!(y.dtype(), DType::F16);
        assert_eq!(y.to_f64_vec()[0], 54.0);
        let e = conv(&x, &w.cast(DType::F32), None, &ConvAttrs::default()).unwrap_err();
        assert!(e.message.contains("same type"), "{e}");
        let e = conv(
            &iota(&[1, 3, 5, 5]),
            &iota(&[2, 4, 3, 3]),
            None,
            &ConvAttrs::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Conv: input has 3 channels but weight expects 4 (group=1)"
        );
        // Integers sum in i32 (wrapping) and i64; 8-bit ones must be widened first.
        let xi = iota(&[1, 1, 3, 3]).cast(DType::I32);
        let wi = t(&[1, 1, 2, 2], vec![1.0, -2.0, 3.0, 4.0]).cast(DType::I32);
        let bias = t(&[1], vec![-7.0]).cast(DType::I32);
        let y = conv(&xi, &wi, Some(&bias), &ConvAttrs::default()).unwrap();
        assert_eq!(y.dtype(), DType::I32);
        assert_eq!(y.to_f64_vec(), vec![16.0, 22.0, 34.0, 40.0]);
        let e = conv(&xi, &wi.cast(DType::I64), None, &ConvAttrs::default()).unwrap_err();
        assert!(e.message.contains("same type"), "{e}");
        let x8 = xi.cast(DType::U8);
        assert!(
            conv(&x8, &x8, None, &ConvAttrs::default())
                .unwrap_err()
                .message
                .contains("floating-point")
        );
    }

    #[test]
    fn onnx_conv_transpose_examples() {
        // ONNX ConvTranspose docs: x 3x3 0..8, w two 3x3 ones kernels -> 2 x 5x5.
        let x = iota(&[1, 1, 3, 3]);
        let w = t(&[1, 2, 3, 3], vec![1.0; 18]);
        let y = conv_transpose(&x, &w, None, &ConvTransposeAttrs::default()).unwrap();
        assert_eq!(y.shape(), &[1, 2, 5, 5]);
        let first = [
            0., 1., 3., 3., 2., 3., 8., 15., 12., 7., 9., 21., 36., 27., 15., 9., 20., 33., 24.,
            13., 6., 13., 21., 15., 8.,
        ];
        let v = y.to_f64_vec();
        assert_eq!(&v[..25], &first);
        assert_eq!(&v[25..], &first);
        // convtranspose_1d: x [0, 1, 2], w ones(1, 2, 3) -> [0, 1, 3, 3, 2] twice.
        let y = conv_transpose(
            &t(&[1, 1, 3], vec![0., 1., 2.]),
            &t(&[1, 2, 3], vec![1.0; 6]),
            None,
            &ConvTransposeAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.to_f64_vec(), vec![0., 1., 3., 3., 2., 0., 1., 3., 3., 2.]);
        // Strides 3x2 with output_shape 10x8 (convtranspose_output_shape): first row.
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![3, 2],
                ..Default::default()
            },
            output_shape: Some(vec![10, 8]),
            ..Default::default()
        };
        let y = conv_transpose(&x, &w, None, &a).unwrap();
        assert_eq!(y.shape(), &[1, 2, 10, 8]);
        let v = y.to_f64_vec();
        assert_eq!(&v[..8], &[0., 0., 1., 1., 3., 2., 2., 0.]);
        assert_eq!(&v[9 * 8..10 * 8], &[0.0; 8]); // the extra row past the full output
    }

    /// ConvTranspose is the adjoint of Conv: <conv(x, w), y> == <x, conv_transpose(y, w)>.
    #[test]
    fn conv_transpose_is_adjoint_of_conv() {
        let x = t(
            &[1, 4, 6, 5],
            (0..120)
                .map(|i| ((i * 7 % 13) as f32) / 3.0 - 2.0)
                .collect(),
        );
        let w = t(
            &[6, 2, 3, 2],
            (0..72).map(|i| ((i * 5 % 11) as f32) / 4.0 - 1.0).collect(),
        );
        let ca = ConvAttrs {
            strides: vec![2, 1],
            pads: vec![1, 0, 1, 1],
            dilations: vec![1, 2],
            group: 2,
            ..Default::default()
        };
        let y = conv(&x, &w, None, &ca).unwrap();
        let r = t(
            y.shape(),
            (0..y.numel()).map(|i| ((i * 3 % 7) as f32) - 3.0).collect(),
        );
        // The transposed conv's weight is [C_in_of_it = 6, M/group = 2, ...] == w's layout.
        // output_padding restores the input row that the strided conv never reads.
        let ta = ConvTransposeAttrs {
            conv: ca.clone(),
            output_padding: vec![1, 0],
            ..Default::default()
        };
        let xt = conv_transpose(&r, &w, None, &ta).unwrap();
        assert_eq!(xt.shape(), x.shape());
        let dot = |a: &Tensor, b: &Tensor| {
            a.to_f64_vec()
                .iter()
                .zip(b.to_f64_vec())
                .map(|(p, q)| p * q)
                .sum::<f64>()
        };
        let (l, rr) = (dot(&y, &r), dot(&x, &xt));
        assert!((l - rr).abs() < 1e-3 * l.abs().max(1.0), "{l} vs {rr}");
    }

    #[test]
    fn conv_transpose_bias_and_errors() {
        let x = iota(&[1, 1, 2]);
        let w = t(&[1, 1, 2], vec![1., 1.]);
        let y = conv_transpose(
            &x,
            &w,
            Some(&t(&[1], vec![10.])),
            &ConvTransposeAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.to_f64_vec(), vec![10., 11., 11.]);
        let e = conv_transpose(
            &x,
            &t(&[2, 1, 2], vec![1.; 4]),
            None,
            &ConvTransposeAttrs::default(),
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("input has 1 channels but weight expects 2"),
            "{e}"
        );
    }

    /// A ResNet-18-sized stem and 3x3 layer in f32 finish quickly in release builds.
    #[test]
    fn resnet_sized_convs() {
        let x = t(
            &[1, 3, 224, 224],
            (0..3 * 224 * 224).map(|i| (i % 17) as f32 / 17.0).collect(),
        );
        let w = t(
            &[64, 3, 7, 7],
            (0..64 * 147)
                .map(|i| (i % 13) as f32 / 13.0 - 0.5)
                .collect(),
        );
        let a = ConvAttrs {
            strides: vec![2, 2],
            pads: vec![3, 3, 3, 3],
            ..Default::default()
        };
        let start = std::time::Instant::now();
        let y = conv(&x, &w, None, &a).unwrap();
        assert_eq!(y.shape(), &[1, 64, 112, 112]);
        let x = t(
            &[1, 64, 56, 56],
            (0..64 * 56 * 56).map(|i| (i % 19) as f32 / 19.0).collect(),
        );
        let w = t(
            &[64, 64, 3, 3],
            (0..64 * 576).map(|i| (i % 7) as f32 / 7.0 - 0.5).collect(),
        );
        let a = ConvAttrs {
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        let y = conv(&x, &w, None, &a).unwrap();
        assert_eq!(y.shape(), &[1, 64, 56, 56]);
        let secs = start.elapsed().as_secs_f64();
        eprintln!("stem 7x7/2 + 3x3 64->64 at 56x56: {secs:.3}s");
        // Generous bound: also holds for unoptimized test builds on a busy machine.
        assert!(secs < 60.0, "two ResNet convs took {secs:.2}s");
    }
}
