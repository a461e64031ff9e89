//! Operators whose result depends on where an element sits along an axis: Trilu (the upper
//! or lower triangle of each matrix), CumSum (running sums) and Hardmax (a one-hot of the
//! first maximum).

use super::{KernelResult, fail, make};
use crate::shape::normalize_axis;
use crate::tensor::{Element, Tensor, with_data};

/// The sizes before, along and after `axis`: element `(o, j, i)` is at `(o * n + j) * inner + i`.
fn split_at_axis(shape: &[i64], axis: usize) -> (usize, usize, usize) {
    let prod = |d: &[i64]| d.iter().map(|&x| x as usize).product::<usize>();
    (
        prod(&shape[..axis]),
        shape[axis] as usize,
        prod(&shape[axis + 1..]),
    )
}

/// Trilu: keeps the elements of each trailing matrix with `col - row >= k` (`upper`) or
/// `col - row <= k` (lower) and zeroes the others.
pub fn trilu(x: &Tensor, upper: bool, k: i64) -> KernelResult {
    const OP: &str = "Trilu";
    let rank = x.rank();
    if rank < 2 {
        return fail(
            OP,
            format!("expects a tensor of rank 2 or more, got rank {rank}"),
        );
    }
    let cols = x.shape()[rank - 1].max(0) as usize;
    let rows = x.shape()[rank - 2].max(0) as usize;
    let keep = |at: usize| {
        let (r, c) = ((at / cols.max(1)) % rows.max(1), at % cols.max(1));
        let d = c as i128 - r as i128;
        if upper {
            d >= k as i128
        } else {
            d <= k as i128
        }
    };
    fn go<T: Element>(v: &[T], keep: impl Fn(usize) -> bool) -> Vec<T> {
        v.iter()
            .enumerate()
            .map(|(at, &a)| if keep(at) { a } else { T::from_i128(0) })
            .collect()
    }
    let data = with_data!(x.data(), v => Element::into_data(go(v, keep)));
    make(OP, x.shape().to_vec(), data)
}

/// CumSum along `axis`: `exclusive` leaves the element itself out of its sum, `reverse`
/// sums from the end. Floats accumulate in f64; integers wrap in their type.
pub fn cum_sum(x: &Tensor, axis: i64, exclusive: bool, reverse: bool) -> KernelResult {
    const OP: &str = "CumSum";
    let dt = x.dtype();
    if !dt.is_float() && !dt.is_int() {
        return fail(OP, format!("expects a numeric tensor, got {dt}"));
    }
    let axis = normalize_axis(OP, axis, x.rank().max(1))?;
    let shape: Vec<i64> = if x.rank() == 0 {
        vec![1]
    } else {
        x.shape().to_vec()
    };
    let (outer, n, inner) = split_at_axis(&shape, axis);
    fn go<T: Element>(
        v: &[T],
        (outer, n, inner): (usize, usize, usize),
        exclusive: bool,
        reverse: bool,
    ) -> Vec<T> {
        let mut out = v.to_vec();
        let float = T::DTYPE.is_float();
        for o in 0..outer {
            for i in 0..inner {
                let (mut fsum, mut isum) = (0.0f64, 0i128);
                for step in 0..n {
                    let j = if reverse { n - 1 - step } else { step };
                    let at = (o * n + j) * inner + i;
                    let a = v[at];
                    if exclusive {
                        out[at] = if float {
                            T::from_f64(fsum)
                        } else {
                            T::from_i128(isum)
                        };
                    }
                    if float {
                        fsum += a.to_f64();
                    } else {
                        isum = isum.wrapping_add(a.to_i128());
                    }
                    if !exclusive {
                        out[at] = if float {
                            T::from_f64(fsum)
                        } else {
                            T::from_i128(isum)
                        };
                    }
                }
            }
        }
        out
    }
    let data =
        with_data!(x.data(), v => Element::into_data(go(v, (outer, n, inner), exclusive, reverse)));
    make(OP, x.shape().to_vec(), data)
}

/// Hardmax along `axis`: 1 at the first maximum of each slice, 0 elsewhere (NaN compares
/// as smaller than every number).
pub fn hardmax(x: &Tensor, axis: i64) -> KernelResult {
    const OP: &str = "Hardmax";
    let dt = x.dtype();
    if !dt.is_float() {
        return fail(OP, format!("expects a floating-point tensor, got {dt}"));
    }
    if x.rank() == 0 {
        return fail(OP, "expects a tensor of rank 1 or more, got a scalar");
    }
    let axis = normalize_axis(OP, axis, x.rank())?;
    let dims = split_at_axis(x.shape(), axis);
    fn go<T: Element>(v: &[T], (outer, n, inner): (usize, usize, usize)) -> Vec<T> {
        let mut out = vec![T::from_f64(0.0); v.len()];
        for o in 0..outer {
            for i in 0..inner {
                let at = |j: usize| (o * n + j) * inner + i;
                let mut best: Option<usize> = None;
                for j in 0..n {
                    let a = v[at(j)].to_f64();
                    if !a.is_nan() && best.is_none_or(|b| a > v[at(b)].to_f64()) {
                        best = Some(j);
                    }
                }
                if let Some(b) = best {
                    out[at(b)] = T::from_f64(1.0);
                }
            }
        }
        out
    }
    let data = with_data!(x.data(), v => Element::into_data(go(v, dims)));
    make(OP, x.shape().to_vec(), data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::TensorData;

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        Tensor::new(shape.to_vec(), TensorData::F32(v.to_vec())).unwrap()
    }

    fn values(t: &Tensor) -> Vec<f32> {
        t.as_slice::<f32>().unwrap().to_vec()
    }

    #[test]
    fn trilu_keeps_a_triangle_shifted_by_k() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            values(&trilu(&x, true, 0).unwrap()),
            [1.0, 2.0, 3.0, 0.0, 5.0, 6.0]
        );
        assert_eq!(
            values(&trilu(&x, true, 1).unwrap()),
            [0.0, 2.0, 3.0, 0.0, 0.0, 6.0]
        );
        assert_eq!(
            values(&trilu(&x, false, 0).unwrap()),
            [1.0, 0.0, 0.0, 4.0, 5.0, 0.0]
        );
        assert_eq!(
            values(&trilu(&x, false, -1).unwrap()),
            [0.0, 0.0, 0.0, 4.0, 0.0, 0.0]
        );
        assert!(trilu(&f32s(&[2], &[1.0, 2.0]), true, 0).is_err());
    }

    #[test]
    fn cum_sum_in_every_direction() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let run =
            |axis, exclusive, reverse| values(&cum_sum(&x, axis, exclusive, reverse).unwrap());
        assert_eq!(run(1, false, false), [1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
        assert_eq!(run(0, false, false), [1.0, 2.0, 3.0, 5.0, 7.0, 9.0]);
        assert_eq!(run(-1, true, false), [0.0, 1.0, 3.0, 0.0, 4.0, 9.0]);
        assert_eq!(run(1, false, true), [6.0, 5.0, 3.0, 15.0, 11.0, 6.0]);
        assert_eq!(run(1, true, true), [5.0, 3.0, 0.0, 11.0, 6.0, 0.0]);
        assert!(cum_sum(&x, 2, false, false).is_err());
    }

    #[test]
    fn hardmax_marks_the_first_maximum() {
        let x = f32s(&[2, 3], &[1.0, 3.0, 3.0, f32::NAN, -1.0, -2.0]);
        assert_eq!(
            values(&hardmax(&x, -1).unwrap()),
            [0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(
            values(&hardmax(&x, 0).unwrap()),
            [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
        );
    }
}
