//! Reads and writes at index tuples: GatherND, ScatterND and ScatterElements (Scatter is
//! ScatterElements without a reduction). Negative indices count from the end of their
//! axis; an index out of range is an error. Without a reduction, a position written more
//! than once keeps the last update (in row-major order of the updates), as onnxruntime
//! and ONNX's reference do.

use super::index::strides;
use super::{KernelResult, fail, make, output_count, same_dtype, tensor_err};
use crate::tensor::{DType, Element, Tensor, with_data};

/// How ScatterND and ScatterElements combine an update with the element already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduction {
    None,
    Add,
    Mul,
    Max,
    Min,
}

impl ScatterReduction {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "none" => ScatterReduction::None,
            "add" => ScatterReduction::Add,
            "mul" => ScatterReduction::Mul,
            "max" => ScatterReduction::Max,
            "min" => ScatterReduction::Min,
            _ => return None,
        })
    }

    fn apply<T: Element>(self, old: T, new: T) -> T {
        let float = T::DTYPE.is_float();
        match self {
            ScatterReduction::None => new,
            ScatterReduction::Add if float => T::from_f64(old.to_f64() + new.to_f64()),
            ScatterReduction::Add => T::from_i128(old.to_i128().wrapping_add(new.to_i128())),
            ScatterReduction::Mul if float => T::from_f64(old.to_f64() * new.to_f64()),
            ScatterReduction::Mul => T::from_i128(old.to_i128().wrapping_mul(new.to_i128())),
            // NaN propagates, as in the compiled code's maximumf/minimumf.
            ScatterReduction::Max => {
                if new > old || new.is_nan() {
                    new
                } else {
                    old
                }
            }
            ScatterReduction::Min => {
                if new < old || new.is_nan() {
                    new
                } else {
                    old
                }
            }
        }
    }
}

fn index_values(op: &'static str, t: &Tensor) -> KernelResult<Vec<i64>> {
    if !matches!(t.dtype(), DType::I32 | DType::I64) {
        return fail(op, format!("indices must be i32 or i64, got {}", t.dtype()));
    }
    t.to_i64_vec().map_err(tensor_err(op))
}

/// `i` as a position on an axis of `dim` (negative from the end), or an error.
fn wrap(op: &'static str, i: i64, dim: i64) -> KernelResult<usize> {
    let j = if i < 0 { i + dim } else { i };
    if j < 0 || j >= dim {
        return fail(
            op,
            format!("index {i} is out of bounds for an axis of size {dim}"),
        );
    }
    Ok(j as usize)
}

/// The shape GatherND gives, after checking the operands.
pub fn gather_nd_shape(data: &[i64], indices: &[i64], batch_dims: i64) -> Result<Vec<i64>, String> {
    let (r, q) = (data.len(), indices.len());
    let b =
        usize::try_from(batch_dims).map_err(|_| format!("batch_dims {batch_dims} is negative"))?;
    if q < 1 || r < 1 {
        return Err("data and indices must have rank 1 or more".into());
    }
    let k = indices[q - 1];
    if b >= q || b >= r || data[..b] != indices[..b] {
        return Err(format!(
            "the first batch_dims = {b} dimensions of data {data:?} and indices {indices:?} \
             must agree"
        ));
    }
    if k < 1 || b + k as usize > r {
        return Err(format!(
            "indices' last dimension {k} must be between 1 and the rank of data less \
             batch_dims ({})",
            r - b
        ));
    }
    let mut out = indices[..q - 1].to_vec();
    out.extend_from_slice(&data[b + k as usize..]);
    Ok(out)
}

/// GatherND with `batch_dims` leading dimensions shared by data and indices.
pub fn gather_nd(data: &Tensor, indices: &Tensor, batch_dims: i64) -> KernelResult {
    const OP: &str = "GatherND";
    let out =
        gather_nd_shape(data.shape(), indices.shape(), batch_dims).or_else(|m| fail(OP, m))?;
    let count = output_count(OP, &out)?;
    let idx = index_values(OP, indices)?;
    let (ds, is) = (data.shape(), indices.shape());
    let b = batch_dims as usize;
    let k = is[is.len() - 1] as usize;
    let ds_strides = strides(ds);
    let slice: usize = ds[b + k..].iter().map(|&d| d as usize).product();
    let tuples: usize = is[..is.len() - 1].iter().map(|&d| d as usize).product();
    let per_batch: usize = is[b..is.len() - 1].iter().map(|&d| d as usize).product();
    let mut src = Vec::with_capacity(count);
    for t in 0..tuples {
        let batch = t / per_batch.max(1);
        // The batch coordinates, row-major over data's first b dims.
        let mut base = 0usize;
        let mut rest = batch;
        for d in (0..b).rev() {
            base += (rest % ds[d] as usize) * ds_strides[d];
            rest /= ds[d] as usize;
        }
        for j in 0..k {
            base += wrap(OP, idx[t * k + j], ds[b + j])? * ds_strides[b + j];
        }
        src.extend(base..base + slice);
    }
    make(OP, out, super::index::take(data, &src, None))
}

/// ScatterND: `out = data` with `updates[i, ...]` written (or combined by `reduction`) at
/// the index tuple `indices[i, :]`.
pub fn scatter_nd(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    reduction: ScatterReduction,
) -> KernelResult {
    const OP: &str = "ScatterND";
    same_dtype(OP, &[data, updates])?;
    let (ds, is) = (data.shape(), indices.shape());
    let q = is.len();
    let k = is.last().copied().unwrap_or(0);
    if q < 1 || k < 1 || k as usize > ds.len() {
        return fail(
            OP,
            format!("indices {is:?} must end in a dimension between 1 and the rank of data"),
        );
    }
    let k = k as usize;
    let mut expected = is[..q - 1].to_vec();
    expected.extend_from_slice(&ds[k..]);
    if updates.shape() != expected.as_slice() {
        return fail(
            OP,
            format!(
                "updates must have shape {expected:?}, got {:?}",
                updates.shape()
            ),
        );
    }
    let idx = index_values(OP, indices)?;
    let ds_strides = strides(ds);
    let slice: usize = ds[k..].iter().map(|&d| d as usize).product();
    let tuples: usize = is[..q - 1].iter().map(|&d| d as usize).product();
    let mut targets = Vec::with_capacity(tuples);
    for t in 0..tuples {
        let mut base = 0usize;
        for j in 0..k {
            base += wrap(OP, idx[t * k + j], ds[j])? * ds_strides[j];
        }
        targets.push(base);
    }
    fn go<T: Element>(
        v: &[T],
        u: &Tensor,
        targets: &[usize],
        slice: usize,
        reduction: ScatterReduction,
    ) -> Vec<T> {
        let u = u.as_slice::<T>().unwrap_or_default();
        let mut out = v.to_vec();
        for (t, &base) in targets.iter().enumerate() {
            for s in 0..slice {
                out[base + s] = reduction.apply(out[base + s], u[t * slice + s]);
            }
        }
        out
    }
    let data_out = with_data!(data.data(), v => Element::into_data(go(v, updates, &targets, slice, reduction)));
    make(OP, ds.to_vec(), data_out)
}

/// ScatterElements along `axis`: `updates[p]` goes to `p` with its `axis` coordinate
/// replaced by `indices[p]`.
pub fn scatter_elements(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: i64,
    reduction: ScatterReduction,
) -> KernelResult {
    const OP: &str = "ScatterElements";
    same_dtype(OP, &[data, updates])?;
    let (ds, is) = (data.shape(), indices.shape());
    let a = crate::shape::normalize_axis(OP, axis, ds.len())?;
    if updates.shape() != is || is.len() != ds.len() || is.iter().zip(ds).any(|(&i, &d)| i > d) {
        return fail(
            OP,
            format!(
                "indices {is:?} and updates {:?} must have one shape, of data's rank and \
                 within data {ds:?}",
                updates.shape()
            ),
        );
    }
    let idx = index_values(OP, indices)?;
    let ds_strides = strides(ds);
    let rank = is.len();
    let mut targets = Vec::with_capacity(idx.len());
    let mut coord = vec![0i64; rank];
    for &i in &idx {
        let mut at = 0usize;
        for d in 0..rank {
            let c = if d == a {
                wrap(OP, i, ds[a])?
            } else {
                coord[d] as usize
            };
            at += c * ds_strides[d];
        }
        targets.push(at);
        for d in (0..rank).rev() {
            coord[d] += 1;
            if coord[d] < is[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    fn go<T: Element>(
        v: &[T],
        u: &Tensor,
        targets: &[usize],
        reduction: ScatterReduction,
    ) -> Vec<T> {
        let u = u.as_slice::<T>().unwrap_or_default();
        let mut out = v.to_vec();
        for (p, &at) in targets.iter().enumerate() {
            out[at] = reduction.apply(out[at], u[p]);
        }
        out
    }
    let data_out =
        with_data!(data.data(), v => Element::into_data(go(v, updates, &targets, reduction)));
    make(OP, ds.to_vec(), data_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::TensorData;

    fn i64s(shape: &[i64], v: &[i64]) -> Tensor {
        Tensor::new(shape.to_vec(), TensorData::I64(v.to_vec())).unwrap()
    }

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        Tensor::new(shape.to_vec(), TensorData::F32(v.to_vec())).unwrap()
    }

    #[test]
    fn gather_nd_reads_tuples_and_slices() {
        let data = f32s(&[2, 2], &[0.0, 1.0, 2.0, 3.0]);
        let y = gather_nd(&data, &i64s(&[2, 2], &[0, 0, 1, 1]), 0).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [0.0, 3.0]);
        let y = gather_nd(&data, &i64s(&[2, 1], &[1, -2]), 0).unwrap();
        assert_eq!(y.shape(), [2, 2]);
        assert_eq!(y.as_slice::<f32>().unwrap(), [2.0, 3.0, 0.0, 1.0]);
        // batch_dims = 1: each batch row picks from its own data row.
        let y = gather_nd(&data, &i64s(&[2, 1], &[1, 0]), 1).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [1.0, 2.0]);
        assert!(gather_nd(&data, &i64s(&[1, 1], &[2]), 0).is_err());
    }

    #[test]
    fn scatter_nd_writes_and_reduces() {
        let data = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let idx = i64s(&[3, 1], &[3, 1, 3]);
        let upd = f32s(&[3], &[10.0, 20.0, 30.0]);
        let y = scatter_nd(&data, &idx, &upd, ScatterReduction::None).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [1.0, 20.0, 3.0, 30.0]);
        let y = scatter_nd(&data, &idx, &upd, ScatterReduction::Add).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [1.0, 22.0, 3.0, 44.0]);
        let y = scatter_nd(&data, &idx, &upd, ScatterReduction::Min).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn scatter_elements_along_an_axis() {
        let data = f32s(&[2, 3], &[0.0; 6]);
        let idx = i64s(&[2, 2], &[1, 0, -1, 1]);
        let upd = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let y = scatter_elements(&data, &idx, &upd, 1, ScatterReduction::None).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [2.0, 1.0, 0.0, 0.0, 4.0, 3.0]);
        let y = scatter_elements(&data, &idx, &upd, 0, ScatterReduction::Mul).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [0.0; 6]);
        assert!(
            scatter_elements(
                &data,
                &i64s(&[1, 1], &[3]),
                &f32s(&[1, 1], &[1.0]),
                1,
                ScatterReduction::None
            )
            .is_err()
        );
    }
}
