//! TopK: the `k` largest (or smallest) elements along an axis, with their indices.
//! Elements are ordered by value, NaN beyond every number (the largest for `largest`,
//! last otherwise, as numpy sorts), equal values by index; the result is sorted.

use std::cmp::Ordering;

use super::{KernelResult, fail, make};
use crate::shape::normalize_axis;
use crate::tensor::{Element, Tensor, TensorData, with_data};

/// Whether the element `a` at index `i` comes before `b` at index `j` in TopK's order.
pub fn top_k_before(a: f64, i: usize, b: f64, j: usize, largest: bool) -> bool {
    let by_value = match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    };
    let by_value = if largest {
        by_value.reverse()
    } else {
        by_value
    };
    by_value.then(i.cmp(&j)) == Ordering::Less
}

/// The values and (i64) indices of the `k` first elements along `axis`.
pub fn top_k(x: &Tensor, k: i64, axis: i64, largest: bool) -> KernelResult<Vec<Tensor>> {
    const OP: &str = "TopK";
    if x.rank() == 0 {
        return fail(OP, "expects a tensor of rank 1 or more, got a scalar");
    }
    let a = normalize_axis(OP, axis, x.rank())?;
    let n = x.shape()[a];
    if k < 0 || k > n {
        return fail(
            OP,
            format!("k = {k} is not between 0 and the axis size {n}"),
        );
    }
    if x.dtype() == crate::tensor::DType::Bool {
        return fail(OP, "is not defined on bool tensors");
    }
    let mut out = x.shape().to_vec();
    out[a] = k;
    let prod = |d: &[i64]| d.iter().map(|&v| v as usize).product::<usize>();
    let (outer, inner) = (prod(&x.shape()[..a]), prod(&x.shape()[a + 1..]));
    let (n, k) = (n as usize, k as usize);
    fn go<T: Element>(
        v: &[T],
        (outer, n, inner, k): (usize, usize, usize, usize),
        largest: bool,
    ) -> (Vec<T>, Vec<i64>) {
        let mut values = vec![T::from_f64(0.0); outer * k * inner];
        let mut indices = vec![0i64; outer * k * inner];
        let mut order: Vec<usize> = Vec::with_capacity(n);
        for o in 0..outer {
            for i in 0..inner {
                let at = |j: usize| (o * n + j) * inner + i;
                order.clear();
                order.extend(0..n);
                order.sort_by(|&p, &q| {
                    let (a, b) = (v[at(p)].to_f64(), v[at(q)].to_f64());
                    if top_k_before(a, p, b, q, largest) {
                        Ordering::Less
                    } else if top_k_before(b, q, a, p, largest) {
                        Ordering::Greater
                    } else {
                        Ordering::Equal
                    }
                });
                for (r, &j) in order.iter().take(k).enumerate() {
                    let to = (o * k + r) * inner + i;
                    values[to] = v[at(j)];
                    indices[to] = j as i64;
                }
            }
        }
        (values, indices)
    }
    let (values, indices) = with_data!(x.data(), v => {
        let (values, indices) = go(v, (outer, n, inner, k), largest);
        (Element::into_data(values), indices)
    });
    Ok(vec![
        make(OP, out.clone(), values)?,
        make(OP, out, TensorData::I64(indices))?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_and_smallest_with_ties_by_index() {
        let x = Tensor::new(
            vec![2, 4],
            TensorData::F32(vec![1.0, 3.0, 3.0, 2.0, 5.0, f32::NAN, 0.0, 5.0]),
        )
        .unwrap();
        let r = top_k(&x, 2, -1, true).unwrap();
        assert_eq!(r[1].as_slice::<i64>().unwrap(), [1, 2, 1, 0]);
        let r = top_k(&x, 3, 1, false).unwrap();
        assert_eq!(
            r[0].as_slice::<f32>().unwrap(),
            [1.0, 2.0, 3.0, 0.0, 5.0, 5.0]
        );
        assert_eq!(r[1].as_slice::<i64>().unwrap(), [0, 3, 1, 2, 0, 3]);
        assert!(top_k(&x, 5, 1, true).is_err());
    }
}
