//! MaxPool (with its Indices output), AveragePool, GlobalAveragePool and GlobalMaxPool over
//! any number of spatial dimensions.
//!
//! Window geometry (pads, auto_pad, ceil_mode) comes from `shape::pool_geometry`. In
//! ceil mode the last window may hang past the end pad; those positions never count.

use crate::shape::{self, PoolAttrs, WindowGeometry};

use super::float::{Real, float_apply};
use super::index::{Counter, numel, strides};
use super::{KernelError, KernelResult, fail, make, output_count};
use crate::tensor::{DType, Element, Tensor, TensorData, with_data};

/// Visits every window: `f(plane, out_flat, taps)` where `taps` lists, for each kernel
/// position, `Some(input offset within the plane)` when it reads the input, or `None` when
/// it falls in the explicit padding. Positions beyond the padded input are left out.
fn for_each_window(
    g: &WindowGeometry,
    planes: usize,
    mut f: impl FnMut(usize, usize, &[Option<usize>]),
) {
    let nsp = g.kernel.len();
    let istr = strides(&g.input_spatial);
    let ksize: usize = numel(&g.kernel);
    let out_sp: usize = numel(&g.output_spatial);
    let mut kc = Counter::new(&g.kernel, []);
    let kpos: Vec<Vec<i64>> = (0..ksize)
        .map(|_| {
            let p = kc.idx.clone();
            kc.step();
            p
        })
        .collect();
    let mut taps: Vec<Option<usize>> = Vec::with_capacity(ksize);
    let mut oc = Counter::new(&g.output_spatial, []);
    for o in 0..out_sp {
        taps.clear();
        'k: for kp in &kpos {
            let mut off = 0usize;
            let mut inside = true;
            for d in 0..nsp {
                let i = oc.idx[d] * g.strides[d] + kp[d] * g.dilations[d] - g.pads_begin[d];
                if i < -g.pads_begin[d] || i >= g.input_spatial[d] + g.pads_end[d] {
                    continue 'k;
                }
                if i < 0 || i >= g.input_spatial[d] {
                    inside = false;
                } else {
                    off += i as usize * istr[d];
                }
            }
            taps.push(if inside { Some(off) } else { None });
        }
        for p in 0..planes {
            f(p, o, &taps);
        }
        oc.step();
    }
}

fn planes(x: &Tensor) -> usize {
    (x.shape()[0] * x.shape()[1]) as usize
}

/// MaxPool: returns `(Y, Indices)`. Indices (i64) are flat positions in the input tensor,
/// row-major (`storage_order = 0`) or column-major within each plane (`storage_order = 1`).
/// NaNs count as -inf, so they are skipped: a window of NaNs only yields -inf and, as in
/// onnxruntime, the index of its first element in the input. Ties go to the first element;
/// a window wholly in the padding yields -inf (the lowest integer) and index -1.
pub fn max_pool(
    x: &Tensor,
    attrs: &PoolAttrs,
    storage_order: i64,
) -> KernelResult<(Tensor, Tensor)> {
    const OP: &str = "MaxPool";
    let g = shape::pool_geometry(OP, x.shape(), attrs)?;
    output_count(OP, &g.output)?;
    output_count(OP, &g.kernel)?;
    if x.dtype() == DType::Bool
        || !(x.dtype().is_float() || matches!(x.dtype(), DType::I8 | DType::U8))
    {
        return fail(
            OP,
            format!(
                "expected a floating-point, i8 or ui8 tensor, got {}",
                x.dtype()
            ),
        );
    }
    if !(0..=1).contains(&storage_order) {
        return fail(
            OP,
            format!("storage_order must be 0 or 1, got {storage_order}"),
        );
    }
    let in_sp: usize = numel(&g.input_spatial);
    let out_sp: usize = numel(&g.output_spatial);
    // Column-major offsets within a plane, for storage_order = 1.
    let mut col_major = vec![0usize; in_sp];
    if storage_order == 1 {
        let mut c = Counter::new(&g.input_spatial, []);
        for v in col_major.iter_mut() {
            let mut stride = 1usize;
            for (d, &i) in c.idx.iter().enumerate() {
                *v += i as usize * stride;
                stride *= g.input_spatial[d] as usize;
            }
            c.step();
        }
    }
    let np = planes(x);
    let mut indices = vec![-1i64; np * out_sp];
    fn go<T: Element>(
        v: &[T],
        g: &WindowGeometry,
        np: usize,
        in_sp: usize,
        out_sp: usize,
        col: &[usize],
        idx: &mut [i64],
    ) -> Vec<T> {
        // A window wholly in the padding gives -inf (the lowest integer), the max's
        // identity, as compiled code does.
        let mut y = vec![T::lowest(); np * out_sp];
        for_each_window(g, np, |p, o, taps| {
            let plane = &v[p * in_sp..(p + 1) * in_sp];
            let mut best: Option<(T, usize)> = None;
            for &off in taps.iter().flatten() {
                let val = if plane[off].is_nan() {
                    T::lowest()
                } else {
                    plane[off]
                };
                if best.is_none_or(|(b, _)| val > b) {
                    best = Some((val, off));
                }
            }
            if let Some((b, off)) = best {
                y[p * out_sp + o] = b;
                let within = if col.is_empty() { off } else { col[off] };
                idx[p * out_sp + o] = (p * in_sp + within) as i64;
            }
        });
        y
    }
    let col = if storage_order == 1 {
        &col_major[..]
    } else {
        &[][..]
    };
    let data = with_data!(x.data(), v => Element::into_data(go(v, &g, np, in_sp, out_sp, col, &mut indices)));
    let y = make(OP, g.output.clone(), data)?;
    let i = make(OP, g.output.clone(), TensorData::I64(indices))?;
    Ok((y, i))
}

/// AveragePool (float types). With `count_include_pad`, explicit padding counts in the
/// divisor; positions past the padded input (ceil mode) never do.
pub fn average_pool(x: &Tensor, attrs: &PoolAttrs, count_include_pad: bool) -> KernelResult {
    const OP: &str = "AveragePool";
    let g = shape::pool_geometry(OP, x.shape(), attrs)?;
    output_count(OP, &g.output)?;
    output_count(OP, &g.kernel)?;
    let in_sp: usize = numel(&g.input_spatial);
    let out_sp: usize = numel(&g.output_spatial);
    let np = planes(x);
    fn go<T: Real>(
        v: &[T],
        g: &WindowGeometry,
        np: usize,
        in_sp: usize,
        out_sp: usize,
        include_pad: bool,
    ) -> Vec<T> {
        let mut y = vec![T::ZERO; np * out_sp];
        for_each_window(g, np, |p, o, taps| {
            let plane = &v[p * in_sp..(p + 1) * in_sp];
            let sum: f64 = taps.iter().flatten().map(|&off| plane[off].to_f64()).sum();
            let count = if include_pad {
                taps.len()
            } else {
                taps.iter().flatten().count()
            };
            y[p * out_sp + o] = T::from_f64(sum / count as f64);
        });
        y
    }
    let (mut outs, _) = float_apply!(OP, &[x], |xs| Ok::<_, KernelError>(vec![go(
        xs[0],
        &g,
        np,
        in_sp,
        out_sp,
        count_include_pad
    )]));
    make(OP, g.output.clone(), outs.remove(0))
}

/// GlobalAveragePool (float types): the mean of each `[N, C]` plane.
pub fn global_average_pool(x: &Tensor) -> KernelResult {
    const OP: &str = "GlobalAveragePool";
    let out = shape::global_pool(OP, x.shape())?;
    output_count(OP, &out)?;
    let sp = numel(&x.shape()[2..]);
    fn go<T: Real>(v: &[T], sp: usize) -> Vec<T> {
        v.chunks(sp.max(1))
            .map(|c| T::from_f64(c.iter().map(|x| x.to_f64()).sum::<f64>() / sp as f64))
            .collect()
    }
    let (mut outs, _) = float_apply!(OP, &[x], |xs| Ok::<_, KernelError>(vec![go(xs[0], sp)]));
    make(OP, out, outs.remove(0))
}

/// GlobalMaxPool (float types): the maximum of each `[N, C]` plane (NaN propagates).
pub fn global_max_pool(x: &Tensor) -> KernelResult {
    const OP: &str = "GlobalMaxPool";
    let out = shape::global_pool(OP, x.shape())?;
    output_count(OP, &out)?;
    let sp = numel(&x.shape()[2..]);
    fn go<T: Real>(v: &[T], sp: usize) -> Vec<T> {
        v.chunks(sp.max(1))
            .map(|c| {
                c.iter().fold(T::lowest(), |m, &x| {
                    if m.is_nan() || x.is_nan() {
                        T::from_f64(f64::NAN)
                    } else if x > m {
                        x
                    } else {
                        m
                    }
                })
            })
            .collect()
    }
    let (mut outs, _) = float_apply!(OP, &[x], |xs| Ok::<_, KernelError>(vec![go(xs[0], sp)]));
    make(OP, out, outs.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::AutoPad;

    fn iota(shape: &[i64]) -> Tensor {
        let n: i64 = shape.iter().product();
        Tensor::from_vec(shape.to_vec(), (1..=n).map(|i| i as f32).collect()).unwrap()
    }

    fn k(kernel: &[i64]) -> PoolAttrs {
        PoolAttrs {
            kernel_shape: kernel.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn max_pool_basic_pads_and_indices() {
        // ONNX maxpool_2d_pads: 5x5 (1..25), k5, pads 2 -> 5x5 of window maxima.
        let x = iota(&[1, 1, 5, 5]);
        let a = PoolAttrs {
            pads: vec![2, 2, 2, 2],
            ..k(&[5, 5])
        };
        let (y, _) = max_pool(&x, &a, 0).unwrap();
        let want = [
            13., 14., 15., 15., 15., 18., 19., 20., 20., 20., 23., 24., 25., 25., 25., 23., 24.,
            25., 25., 25., 23., 24., 25., 25., 25.,
        ];
        assert_eq!(y.to_f64_vec(), want.to_vec());
        // maxpool_with_argmax_2d_precomputed_strides: k2 s2 on 5x5 -> [7, 9, 17, 19], indices [6, 8, 16, 18];
        // storage_order 1 gives [6, 16, 8, 18].
        let a = PoolAttrs {
            strides: vec![2, 2],
            ..k(&[2, 2])
        };
        let (y, i) = max_pool(&x, &a, 0).unwrap();
        assert_eq!(y.to_f64_vec(), vec![7., 9., 17., 19.]);
        assert_eq!(i.typed::<i64>().unwrap(), &[6, 8, 16, 18]);
        let (_, i) = max_pool(&x, &a, 1).unwrap();
        assert_eq!(i.typed::<i64>().unwrap(), &[6, 16, 8, 18]);
        // Indices include the plane offset.
        let (_, i) = max_pool(&iota(&[1, 2, 2, 2]), &k(&[2, 2]), 0).unwrap();
        assert_eq!(i.typed::<i64>().unwrap(), &[3, 7]);
    }

    #[test]
    fn max_pool_ceil_dilation_same_and_dtypes() {
        // maxpool_2d_ceil: 4x4 (1..16), k3 s2 ceil -> [[11, 12], [15, 16]].
        let x = iota(&[1, 1, 4, 4]);
        let a = PoolAttrs {
            strides: vec![2, 2],
            ceil_mode: true,
            ..k(&[3, 3])
        };
        assert_eq!(
            max_pool(&x, &a, 0).unwrap().0.to_f64_vec(),
            vec![11., 12., 15., 16.]
        );
        // maxpool_2d_dilations: k2 d2 on 4x4 -> [[11, 12], [15, 16]].
        let a = PoolAttrs {
            dilations: vec![2, 2],
            ..k(&[2, 2])
        };
        assert_eq!(
            max_pool(&x, &a, 0).unwrap().0.to_f64_vec(),
            vec![11., 12., 15., 16.]
        );
        // maxpool_2d_same_upper on 5x5 with k3 s2: pads (1, 1): [[7, 9, 10], [17, 19, 20], [22, 24, 25]].
        let x5 = iota(&[1, 1, 5, 5]);
        let a = PoolAttrs {
            strides: vec![2, 2],
            auto_pad: AutoPad::SameUpper,
            ..k(&[3, 3])
        };
        assert_eq!(
            max_pool(&x5, &a, 0).unwrap().0.to_f64_vec(),
            vec![7., 9., 10., 17., 19., 20., 22., 24., 25.]
        );
        // 1-D with a NaN and uint8.
        let v = Tensor::from_vec(vec![1, 1, 4], vec![1.0f32, f32::NAN, 3.0, 2.0]).unwrap();
        assert_eq!(
            max_pool(&v, &k(&[2]), 0).unwrap().0.to_f64_vec(),
            vec![1., 3., 3.]
        );
        let u = Tensor::from_vec(vec![1, 1, 3], vec![5u8, 200, 7]).unwrap();
        assert_eq!(
            max_pool(&u, &k(&[2]), 0).unwrap().0.typed::<u8>().unwrap(),
            &[200, 200]
        );
        assert!(
            max_pool(&u.cast(DType::I32), &k(&[2]), 0)
                .unwrap_err()
                .message
                .contains("i8 or ui8")
        );
        assert!(
            max_pool(&u, &k(&[2]), 2)
                .unwrap_err()
                .message
                .contains("storage_order")
        );
        assert!(
            max_pool(&u, &k(&[2, 2]), 0)
                .unwrap_err()
                .to_string()
                .starts_with("MaxPool: kernel_shape has 2 values")
        );
    }

    /// The windows onnxruntime 1.31 was asked about: its Indices for
    /// `[NaN, -inf, NaN, 3, NaN, NaN, -inf]`, kernel 2, stride 2, pads 1 are `[0, 1, 3, 5]`,
    /// the first element of an all-NaN window included. (Its values there are NaN, where
    /// NaNs are skipped here.)
    #[test]
    fn max_pool_nan_windows_index_their_first_element() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let x = Tensor::from_vec(vec![1, 1, 7], vec![nan, -inf, nan, 3.0, nan, nan, -inf]).unwrap();
        let attrs = PoolAttrs {
            strides: vec![2],
            pads: vec![1, 1],
            ..k(&[2])
        };
        let (y, i) = max_pool(&x, &attrs, 0).unwrap();
        assert_eq!(
            y.to_f64_vec(),
            vec![f64::NEG_INFINITY, f64::NEG_INFINITY, 3.0, f64::NEG_INFINITY]
        );
        assert_eq!(i.typed::<i64>().unwrap(), &[0, 1, 3, 5]);
        // All NaN in two dimensions, row- and column-major.
        let x = Tensor::from_vec(vec![1, 1, 2, 3], vec![nan; 6]).unwrap();
        let attrs = PoolAttrs {
            pads: vec![1, 1, 1, 1],
            ..k(&[2, 2])
        };
        let (_, i) = max_pool(&x, &attrs, 0).unwrap();
        assert_eq!(
            i.typed::<i64>().unwrap(),
            &[0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5]
        );
        let (_, i) = max_pool(&x, &attrs, 1).unwrap();
        assert_eq!(
            i.typed::<i64>().unwrap(),
            &[0, 0, 2, 4, 0, 0, 2, 4, 1, 1, 3, 5]
        );
    }

    #[test]
    fn average_pool_padding_rules() {
        // averagepool_2d_pads: 5x5 (1..25), k5, pads 2, count_include_pad=0.
        let x = iota(&[1, 1, 5, 5]);
        let a = PoolAttrs {
            pads: vec![2, 2, 2, 2],
            ..k(&[5, 5])
        };
        let y = average_pool(&x, &a, false).unwrap().to_f64_vec();
        assert_eq!(&y[..3], &[7.0, 7.5, 8.0]);
        assert_eq!(y[12], 13.0);
        // count_include_pad=1 (averagepool_2d_pads_count_include_pad): corner = 63 / 25.
        let y = average_pool(&x, &a, true).unwrap().to_f64_vec();
        assert!((y[0] - 2.52).abs() < 1e-6, "{}", y[0]);
        // ceil mode: 4x4 k3 s2 -> [[6, 7.5], [12, 13.5]]; the overhang never counts.
        let x4 = iota(&[1, 1, 4, 4]);
        let a = PoolAttrs {
            strides: vec![2, 2],
            ceil_mode: true,
            ..k(&[3, 3])
        };
        assert_eq!(
            average_pool(&x4, &a, true).unwrap().to_f64_vec(),
            vec![6., 7.5, 12., 13.5]
        );
        // SAME_UPPER 1-D: [1, 2, 3] k2 -> windows [1,2], [2,3], [3, pad].
        let v = Tensor::from_vec(vec![1, 1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
        let a = PoolAttrs {
            auto_pad: AutoPad::SameUpper,
            ..k(&[2])
        };
        assert_eq!(
            average_pool(&v, &a, false).unwrap().to_f64_vec(),
            vec![1.5, 2.5, 3.0]
        );
        assert_eq!(
            average_pool(&v, &a, true).unwrap().to_f64_vec(),
            vec![1.5, 2.5, 1.5]
        );
        assert!(
            average_pool(&v.cast(DType::I32), &k(&[2]), false)
                .unwrap_err()
                .message
                .contains("floating-point")
        );
    }

    #[test]
    fn global_pools() {
        let x = iota(&[1, 2, 2, 2]);
        let y = global_average_pool(&x).unwrap();
        assert_eq!(
            (y.shape(), y.to_f64_vec()),
            (&[1, 2, 1, 1][..], vec![2.5, 6.5])
        );
        let y = global_max_pool(&x.cast(DType::F64)).unwrap();
        assert_eq!(
            (y.shape(), y.to_f64_vec()),
            (&[1, 2, 1, 1][..], vec![4.0, 8.0])
        );
        let n = Tensor::from_vec(vec![1, 1, 2], vec![f32::NAN, 1.0]).unwrap();
        assert!(global_max_pool(&n).unwrap().to_f64_vec()[0].is_nan());
        assert!(global_average_pool(&Tensor::zeros(DType::F32, vec![2, 2]).unwrap()).is_err());
    }
}
