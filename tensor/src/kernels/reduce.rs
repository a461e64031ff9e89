//! Reduce* (opset 18: axes as an input, keepdims, noop_with_empty_axes) and ArgMax/ArgMin.
//!
//! Float reductions accumulate in f64; integer ones in i128 and wrap back to the element
//! type (Mean truncates). Reducing an empty set gives the identity: 0 for sums, 1 for Prod,
//! the lowest/highest value for Max/Min, NaN for a float Mean.

use crate::shape;

use super::index::{Counter, numel, strides};
use super::{KernelResult, fail, make, output_count};
use crate::tensor::{DType, Element, Tensor, TensorData, with_data};

use crate::combiner::Combiner;
pub use crate::reduction::ReduceKind as ReduceOp;

/// ONNX's name of the operator, for messages.
fn onnx_name(op: ReduceOp) -> &'static str {
    {
        match op {
            ReduceOp::Sum => "ReduceSum",
            ReduceOp::Mean => "ReduceMean",
            ReduceOp::Max => "ReduceMax",
            ReduceOp::Min => "ReduceMin",
            ReduceOp::Prod => "ReduceProd",
            ReduceOp::L1 => "ReduceL1",
            ReduceOp::L2 => "ReduceL2",
            ReduceOp::LogSum => "ReduceLogSum",
            ReduceOp::LogSumExp => "ReduceLogSumExp",
            ReduceOp::SumSquare => "ReduceSumSquare",
        }
    }
}

/// For every input element (row-major), the flat index of the output element it reduces
/// into, walked by a counter whose strides are zero along the reduced axes.
fn output_strides(x: &[i64], axes: &[usize]) -> Vec<usize> {
    let kept: Vec<i64> = x
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect();
    let s = strides(&kept);
    (0..x.len())
        .map(|i| if axes.contains(&i) { 0 } else { s[i] })
        .collect()
}

/// The combiner of the reductions that are one (the others compose several steps).
fn combiner(op: ReduceOp) -> Option<Combiner> {
    match op {
        ReduceOp::Sum => Some(Combiner::Sum),
        ReduceOp::Max => Some(Combiner::Max),
        ReduceOp::Min => Some(Combiner::Min),
        ReduceOp::Prod => Some(Combiner::Prod),
        _ => None,
    }
}

fn reduce_float(
    op: ReduceOp,
    v: impl Iterator<Item = (usize, f64)> + Clone,
    n_out: usize,
    count: usize,
) -> Vec<f64> {
    let init = combiner(op).map_or(0.0, Combiner::float_identity);
    let mut acc = vec![init; n_out];
    // LogSumExp subtracts each output's maximum first, for stability.
    let mut shift = vec![0.0; n_out];
    if op == ReduceOp::LogSumExp {
        shift.fill(Combiner::Max.float_identity());
        for (o, x) in v.clone() {
            shift[o] = Combiner::Max.combine_floats(shift[o], x);
        }
        shift
            .iter_mut()
            .filter(|s| s.is_infinite())
            .for_each(|s| *s = 0.0);
    }
    for (o, x) in v {
        let a = &mut acc[o];
        match op {
            ReduceOp::Sum | ReduceOp::Mean | ReduceOp::LogSum => *a += x,
            ReduceOp::Max => *a = Combiner::Max.combine_floats(*a, x),
            ReduceOp::Min => *a = Combiner::Min.combine_floats(*a, x),
            ReduceOp::Prod => *a = Combiner::Prod.combine_floats(*a, x),
            ReduceOp::L1 => *a += x.abs(),
            ReduceOp::L2 | ReduceOp::SumSquare => *a += x * x,
            ReduceOp::LogSumExp => *a += (x - shift[o]).exp(),
        }
    }
    for (a, s) in acc.iter_mut().zip(&shift) {
        *a = match op {
            ReduceOp::Mean => *a / count as f64,
            ReduceOp::L2 => a.sqrt(),
            ReduceOp::LogSum => a.ln(),
            ReduceOp::LogSumExp => s + a.ln(),
            _ => *a,
        };
    }
    acc
}

fn reduce_int<T: Element>(
    op: ReduceOp,
    v: &[T],
    offsets: &[usize],
    n_out: usize,
    count: usize,
) -> Vec<T> {
    if matches!(op, ReduceOp::L2 | ReduceOp::LogSum | ReduceOp::LogSumExp) {
        let r = reduce_float(
            op,
            offsets.iter().copied().zip(v.iter().map(|x| x.to_f64())),
            n_out,
            count,
        );
        return r.into_iter().map(T::from_f64).collect();
    }
    // Elements are exact in i128 (sign- or zero-extended by their type), so max and min
    // compare them as signed 128-bit integers.
    let init = match op {
        ReduceOp::Max => T::lowest().to_i128(),
        ReduceOp::Min => T::highest().to_i128(),
        _ => combiner(op).map_or(0, |c| c.int_identity(128, false)),
    };
    let mut acc = vec![init; n_out];
    for (&o, x) in offsets.iter().zip(v) {
        let (a, x) = (&mut acc[o], x.to_i128());
        *a = match op {
            ReduceOp::Max => Combiner::Max.combine_ints(*a, x, 128, false),
            ReduceOp::Min => Combiner::Min.combine_ints(*a, x, 128, false),
            ReduceOp::Prod => Combiner::Prod.combine_ints(*a, x, 128, false),
            ReduceOp::L1 => a.wrapping_add(x.abs()),
            ReduceOp::SumSquare => a.wrapping_add(x.wrapping_mul(x)),
            _ => a.wrapping_add(x),
        };
    }
    acc.into_iter()
        .map(|a| {
            T::from_i128(if op == ReduceOp::Mean {
                a.checked_div(count as i128).unwrap_or(0)
            } else {
                a
            })
        })
        .collect()
}

/// Reduce* over `axes` (empty: all axes, or none with `noop_with_empty_axes`).
pub fn reduce(
    x: &Tensor,
    op: ReduceOp,
    axes: &[i64],
    keepdims: bool,
    noop_with_empty_axes: bool,
) -> KernelResult {
    let name = onnx_name(op);
    let g = shape::reduce_geometry(name, x.shape(), axes, keepdims, noop_with_empty_axes)?;
    output_count(name, &g.output)?;
    if x.dtype() == DType::Bool {
        return fail(name, "is not defined on bool tensors");
    }
    if g.axes.is_empty() && noop_with_empty_axes {
        return Ok(x.clone());
    }
    let n_out: usize = numel(&g.output);
    let count = x.numel().checked_div(n_out).unwrap_or(0);
    let os = output_strides(x.shape(), &g.axes);
    let mut c = Counter::new(x.shape(), [&os[..]]);
    let offsets: Vec<usize> = (0..x.numel())
        .map(|_| {
            let o = c.offsets[0];
            c.step();
            o
        })
        .collect();
    fn go<T: Element>(
        v: &[T],
        op: ReduceOp,
        offsets: &[usize],
        n_out: usize,
        count: usize,
    ) -> TensorData {
        if T::DTYPE.is_float() {
            let it = offsets.iter().copied().zip(v.iter().map(|x| x.to_f64()));
            T::into_data(
                reduce_float(op, it, n_out, count)
                    .into_iter()
                    .map(T::from_f64)
                    .collect(),
            )
        } else {
            T::into_data(reduce_int(op, v, offsets, n_out, count))
        }
    }
    let data = with_data!(x.data(), v => go(v, op, &offsets, n_out, count));
    make(name, g.output, data)
}

/// ArgMax or ArgMin along `axis` (i64 result). Ties go to the first index, or the last with
/// `select_last_index`; a NaN wins over numbers, as in numpy.
fn arg_reduce(
    op: &'static str,
    x: &Tensor,
    axis: i64,
    keepdims: bool,
    select_last_index: bool,
    is_max: bool,
) -> KernelResult {
    let out = shape::arg_reduce(op, x.shape(), axis, keepdims)?;
    output_count(op, &out)?;
    if x.dtype() == DType::Bool {
        return fail(op, "is not defined on bool tensors");
    }
    let a = shape::normalize_axis(op, axis, x.rank())?;
    let outer: usize = numel(&x.shape()[..a]);
    let len = x.shape()[a] as usize;
    let inner: usize = numel(&x.shape()[a + 1..]);
    fn go<T: Element>(
        v: &[T],
        outer: usize,
        len: usize,
        inner: usize,
        last: bool,
        is_max: bool,
    ) -> Vec<i64> {
        let mut res = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                let at = |j: usize| v[(o * len + j) * inner + i];
                let mut best = 0usize;
                for j in 1..len {
                    let (b, x) = (at(best), at(j));
                    let better = if b.is_nan() {
                        last && x.is_nan()
                    } else if x.is_nan() {
                        true
                    } else if x == b {
                        last
                    } else {
                        (x > b) == is_max
                    };
                    if better {
                        best = j;
                    }
                }
                res.push(best as i64);
            }
        }
        res
    }
    let r = with_data!(x.data(), v => go(v, outer, len, inner, select_last_index, is_max));
    make(op, out, TensorData::I64(r))
}

/// ArgMax along `axis`.
pub fn arg_max(x: &Tensor, axis: i64, keepdims: bool, select_last_index: bool) -> KernelResult {
    arg_reduce("ArgMax", x, axis, keepdims, select_last_index, true)
}

/// ArgMin along `axis`.
pub fn arg_min(x: &Tensor, axis: i64, keepdims: bool, select_last_index: bool) -> KernelResult {
    arg_reduce("ArgMin", x, axis, keepdims, select_last_index, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Tensor {
        // [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
        Tensor::from_vec(vec![2, 2, 2], (1..=8).map(|v| v as f32).collect()).unwrap()
    }

    fn run(t: &Tensor, op: ReduceOp, axes: &[i64], keep: bool) -> (Vec<i64>, Vec<f64>) {
        let y = reduce(t, op, axes, keep, false).unwrap();
        (y.shape().to_vec(), y.to_f64_vec())
    }

    #[test]
    fn reductions_over_axes() {
        let x = x();
        assert_eq!(
            run(&x, ReduceOp::Sum, &[1], true),
            (vec![2, 1, 2], vec![4., 6., 12., 14.])
        );
        assert_eq!(
            run(&x, ReduceOp::Sum, &[0, 2], false),
            (vec![2], vec![14., 22.])
        );
        assert_eq!(run(&x, ReduceOp::Mean, &[], false), (vec![], vec![4.5]));
        assert_eq!(run(&x, ReduceOp::Max, &[-1], false).1, vec![2., 4., 6., 8.]);
        assert_eq!(run(&x, ReduceOp::Min, &[0], false).1, vec![1., 2., 3., 4.]);
        assert_eq!(
            run(&x, ReduceOp::Prod, &[2], false).1,
            vec![2., 12., 30., 56.]
        );
        assert_eq!(
            run(&x, ReduceOp::SumSquare, &[2], false).1,
            vec![5., 25., 61., 113.]
        );
        assert_eq!(run(&x, ReduceOp::L1, &[2], false).1, vec![3., 7., 11., 15.]);
        let l2 = run(&x, ReduceOp::L2, &[2], false).1;
        assert!((l2[0] - 5f64.sqrt()).abs() < 1e-6);
        let ls = run(&x, ReduceOp::LogSum, &[2], false).1;
        assert!((ls[0] - 3f64.ln()).abs() < 1e-6);
        let lse = run(&x, ReduceOp::LogSumExp, &[2], false).1;
        assert!((lse[0] - (1f64.exp() + 2f64.exp()).ln()).abs() < 1e-6);
        // LogSumExp is stable for large values.
        let big = Tensor::vector(vec![1000.0f32, 1000.0]);
        assert!(
            (run(&big, ReduceOp::LogSumExp, &[], false).1[0] - (1000.0 + 2f64.ln())).abs() < 1e-3
        );
        // noop_with_empty_axes returns the input.
        assert_eq!(reduce(&x, ReduceOp::Sum, &[], true, true).unwrap(), x);
        let n = Tensor::vector(vec![1.0f32, f32::NAN]);
        assert!(run(&n, ReduceOp::Max, &[0], false).1[0].is_nan());
    }

    #[test]
    fn empty_and_integer_reductions() {
        let e = Tensor::zeros(DType::F32, vec![2, 0]).unwrap();
        assert_eq!(run(&e, ReduceOp::Sum, &[1], false).1, vec![0., 0.]);
        assert_eq!(run(&e, ReduceOp::Prod, &[1], false).1, vec![1., 1.]);
        assert_eq!(
            run(&e, ReduceOp::Max, &[1], false).1,
            vec![f64::NEG_INFINITY; 2]
        );
        assert!(run(&e, ReduceOp::Mean, &[1], false).1[0].is_nan());
        let i = Tensor::from_vec(vec![2, 3], vec![1i32, -7, 3, 4, 5, 6]).unwrap();
        let r = reduce(&i, ReduceOp::Mean, &[1], false, false).unwrap();
        assert_eq!(r.typed::<i32>().unwrap(), &[-1, 5]);
        let r = reduce(&i, ReduceOp::Min, &[0, 1], false, false).unwrap();
        assert_eq!(r.typed::<i32>().unwrap(), &[-7]);
        let u = Tensor::vector(vec![200u8, 100]);
        assert_eq!(
            reduce(&u, ReduceOp::Sum, &[], false, false)
                .unwrap()
                .typed::<u8>()
                .unwrap(),
            &[44]
        );
        let ie = Tensor::zeros(DType::I8, vec![0]).unwrap();
        assert_eq!(
            reduce(&ie, ReduceOp::Max, &[], false, false)
                .unwrap()
                .typed::<i8>()
                .unwrap(),
            &[i8::MIN]
        );
        assert_eq!(
            reduce(&ie, ReduceOp::Mean, &[], false, false)
                .unwrap()
                .typed::<i8>()
                .unwrap(),
            &[0]
        );
        assert_eq!(
            reduce(&i, ReduceOp::L2, &[1], false, false)
                .unwrap()
                .typed::<i32>()
                .unwrap(),
            &[7, 8]
        );
        assert!(
            reduce(
                &Tensor::vector(vec![true]),
                ReduceOp::Sum,
                &[],
                false,
                false
            )
            .is_err()
        );
        assert!(
            reduce(&i, ReduceOp::Sum, &[2], false, false)
                .unwrap_err()
                .to_string()
                .starts_with("ReduceSum: axis 2")
        );
    }

    #[test]
    fn arg_max_min() {
        let x = Tensor::from_vec(vec![2, 3], vec![1.0f32, 5.0, 5.0, 7.0, 2.0, 7.0]).unwrap();
        let y = arg_max(&x, 1, true, false).unwrap();
        assert_eq!(
            (y.shape(), y.typed::<i64>().unwrap()),
            (&[2, 1][..], &[1i64, 0][..])
        );
        assert_eq!(
            arg_max(&x, 1, false, true).unwrap().typed::<i64>().unwrap(),
            &[2, 2]
        );
        assert_eq!(
            arg_min(&x, 0, false, false)
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[0, 1, 0]
        );
        assert_eq!(
            arg_min(&x, -1, false, false)
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[0, 1]
        );
        let n = Tensor::vector(vec![1.0f32, f32::NAN, 3.0, f32::NAN]);
        assert_eq!(
            arg_max(&n, 0, false, false)
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[1]
        );
        assert_eq!(
            arg_min(&n, 0, false, true).unwrap().typed::<i64>().unwrap(),
            &[3]
        );
        let i = Tensor::vector(vec![3u16, 9, 9]);
        assert_eq!(
            arg_max(&i, 0, true, true).unwrap().typed::<i64>().unwrap(),
            &[2]
        );
        assert!(arg_max(&Tensor::vector(vec![true]), 0, true, false).is_err());
        assert!(arg_max(&x, 2, true, false).is_err());
    }
}
