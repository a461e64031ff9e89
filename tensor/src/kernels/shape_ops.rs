//! Data-movement operators: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat, Split,
//! Slice, Gather, GatherElements, Expand, Pad, Tile, DepthToSpace, SpaceToDepth, and the
//! shape/constant producers Range, Shape, ConstantOfShape, Cast, Identity.
//!
//! They work on every dtype: most compute, for each output element, the flat index of the
//! input element it copies, then gather those elements in one pass.

use crate::shape;

use super::index::{FILL, numel, strides, take};
use super::{KernelError, KernelResult, fail, make, output_count, same_dtype, tensor_err};
use crate::tensor::{DType, Element, Tensor, TensorData, with_data};

/// Flat source indices for every output position: `f(multi_index)` per element, row-major.
fn map_indices(out: &[i64], mut f: impl FnMut(&[i64]) -> usize) -> Vec<usize> {
    let n: usize = numel(out);
    let mut idx = vec![0i64; out.len()];
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(f(&idx));
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    v
}

/// Source index `base + sum(i_d * delta_d)` (deltas may be negative, as in reversed slices).
fn affine_indices(out: &[i64], base: i64, deltas: &[i64]) -> Vec<usize> {
    map_indices(out, |i| {
        (base + i.iter().zip(deltas).map(|(a, b)| a * b).sum::<i64>()) as usize
    })
}

fn gathered(op: &'static str, x: &Tensor, out: Vec<i64>, idx: &[usize]) -> KernelResult {
    make(op, out, take(x, idx, None))
}

/// Same data, another shape.
fn with_shape(op: &'static str, x: &Tensor, out: Vec<i64>) -> KernelResult {
    x.clone().reshape(out).map_err(tensor_err(op))
}

/// Reshape (0 copies a dimension unless `allowzero`, -1 is inferred).
pub fn reshape(x: &Tensor, shape: &[i64], allowzero: bool) -> KernelResult {
    with_shape("Reshape", x, shape::reshape(x.shape(), shape, allowzero)?)
}

/// Flatten to 2-D at `axis`.
pub fn flatten(x: &Tensor, axis: i64) -> KernelResult {
    with_shape("Flatten", x, shape::flatten(x.shape(), axis)?)
}

/// Squeeze the listed (or all) size-1 axes.
pub fn squeeze(x: &Tensor, axes: Option<&[i64]>) -> KernelResult {
    with_shape("Squeeze", x, shape::squeeze(x.shape(), axes)?)
}

/// Unsqueeze: insert size-1 axes.
pub fn unsqueeze(x: &Tensor, axes: &[i64]) -> KernelResult {
    with_shape("Unsqueeze", x, shape::unsqueeze(x.shape(), axes)?)
}

/// Identity.
pub fn identity(x: &Tensor) -> KernelResult {
    Ok(x.clone())
}

/// Cast with ONNX semantics (see [`crate::tensor::Element`]).
pub fn cast(x: &Tensor, to: DType) -> KernelResult {
    Ok(x.cast(to))
}

/// Transpose by `perm` (default: reversed dimensions).
pub fn transpose(x: &Tensor, perm: Option<&[i64]>) -> KernelResult {
    const OP: &str = "Transpose";
    let out = shape::transpose(x.shape(), perm)?;
    output_count(OP, &out)?;
    let p = shape::transpose_perm(x.shape(), perm)?;
    let s = strides(x.shape());
    let deltas: Vec<i64> = p.iter().map(|&d| s[d] as i64).collect();
    gathered(OP, x, out.clone(), &affine_indices(&out, 0, &deltas))
}

/// Slice with ONNX clamping and negative steps.
pub fn slice(
    x: &Tensor,
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> KernelResult {
    const OP: &str = "Slice";
    let g = shape::slice_geometry(x.shape(), starts, ends, axes, steps)?;
    output_count(OP, &g.output)?;
    let s = strides(x.shape());
    let base: i64 = g.starts.iter().zip(&s).map(|(a, &b)| a * b as i64).sum();
    let deltas: Vec<i64> = g.steps.iter().zip(&s).map(|(a, &b)| a * b as i64).collect();
    let idx = affine_indices(&g.output, base, &deltas);
    gathered(OP, x, g.output, &idx)
}

/// Expand: broadcast to `shape` (multidirectionally).
pub fn expand(x: &Tensor, shape: &[i64]) -> KernelResult {
    const OP: &str = "Expand";
    let out = shape::expand(x.shape(), shape)?;
    output_count(OP, &out)?;
    let s = super::index::broadcast_strides(x.shape(), &out);
    let deltas: Vec<i64> = s.iter().map(|&v| v as i64).collect();
    gathered(OP, x, out.clone(), &affine_indices(&out, 0, &deltas))
}

/// Tile: repeat each dimension.
pub fn tile(x: &Tensor, repeats: &[i64]) -> KernelResult {
    const OP: &str = "Tile";
    let out = shape::tile(x.shape(), repeats)?;
    output_count(OP, &out)?;
    let (xs, s) = (x.shape(), strides(x.shape()));
    let idx = map_indices(&out, |i| {
        i.iter()
            .enumerate()
            .map(|(d, &v)| (v % xs[d]) as usize * s[d])
            .sum()
    });
    gathered(OP, x, out, &idx)
}

/// Concat along `axis`; all inputs share one dtype.
pub fn concat(inputs: &[&Tensor], axis: i64) -> KernelResult {
    const OP: &str = "Concat";
    let shapes: Vec<&[i64]> = inputs.iter().map(|t| t.shape()).collect();
    let out = shape::concat(&shapes, axis)?;
    output_count(OP, &out)?;
    same_dtype(OP, inputs)?;
    let a = shape::normalize_axis(OP, axis, out.len())?;
    let outer: usize = numel(&out[..a]);
    let inner: usize = numel(&out[a + 1..]);
    fn go<T: Element>(
        _: &[T],
        inputs: &[&Tensor],
        outer: usize,
        inner: usize,
        a: usize,
    ) -> TensorData {
        let parts: Vec<(&[T], usize)> = inputs
            .iter()
            .map(|t| {
                (
                    t.as_slice::<T>().unwrap_or_default(),
                    t.shape()[a] as usize * inner,
                )
            })
            .collect();
        let mut v = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
        for o in 0..outer {
            for &(p, chunk) in &parts {
                v.extend_from_slice(&p[o * chunk..(o + 1) * chunk]);
            }
        }
        T::into_data(v)
    }
    let data = with_data!(inputs[0].data(), v => go(v, inputs, outer, inner, a));
    make(OP, out, data)
}

/// Split along `axis` into the given sizes or `num_outputs` equal chunks.
pub fn split(
    x: &Tensor,
    axis: i64,
    split: Option<&[i64]>,
    num_outputs: Option<i64>,
) -> KernelResult<Vec<Tensor>> {
    const OP: &str = "Split";
    let (a, sizes) = shape::split_sizes(x.shape(), axis, split, num_outputs)?;
    let mut off = 0;
    let mut outs = Vec::with_capacity(sizes.len());
    for s in sizes {
        outs.push(
            slice(x, &[off], &[off + s], Some(&[a as i64]), None)
                .map_err(|e| KernelError::new(OP, e.message))?,
        );
        off += s;
    }
    Ok(outs)
}

/// Reads integer indices, making negative ones count from the end of a `dim`-sized axis.
fn indices(op: &'static str, t: &Tensor, dim: i64) -> KernelResult<Vec<usize>> {
    if !matches!(t.dtype(), DType::I32 | DType::I64) {
        return fail(op, format!("indices must be i32 or i64, got {}", t.dtype()));
    }
    let v = t.to_i64_vec().map_err(tensor_err(op))?;
    v.iter()
        .map(|&i| {
            let j = if i < 0 { i + dim } else { i };
            if j < 0 || j >= dim {
                return fail(
                    op,
                    format!("index {i} is out of bounds for an axis of size {dim}"),
                );
            }
            Ok(j as usize)
        })
        .collect()
}

/// Gather along `axis`.
pub fn gather(data: &Tensor, idx: &Tensor, axis: i64) -> KernelResult {
    const OP: &str = "Gather";
    let out = shape::gather(data.shape(), idx.shape(), axis)?;
    output_count(OP, &out)?;
    let a = shape::normalize_axis(OP, axis, data.rank())?;
    let dim = data.shape()[a];
    let ind = indices(OP, idx, dim)?;
    let outer: usize = numel(&data.shape()[..a]);
    let inner: usize = numel(&data.shape()[a + 1..]);
    let mut src = Vec::with_capacity(outer * ind.len() * inner);
    for o in 0..outer {
        for &k in &ind {
            let base = (o * dim as usize + k) * inner;
            src.extend(base..base + inner);
        }
    }
    gathered(OP, data, out, &src)
}

/// GatherElements along `axis`: `out[i] = data[i with i[axis] replaced by indices[i]]`.
pub fn gather_elements(data: &Tensor, idx: &Tensor, axis: i64) -> KernelResult {
    const OP: &str = "GatherElements";
    let out = shape::gather_elements(data.shape(), idx.shape(), axis)?;
    output_count(OP, &out)?;
    let a = shape::normalize_axis(OP, axis, data.rank())?;
    let ind = indices(OP, idx, data.shape()[a])?;
    let s = strides(data.shape());
    let mut k = 0;
    let src = map_indices(&out, |i| {
        let off: usize = i
            .iter()
            .enumerate()
            .map(|(d, &v)| if d == a { ind[k] } else { v as usize } * s[d])
            .sum();
        k += 1;
        off
    });
    gathered(OP, data, out, &src)
}

/// Pad modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    /// Mirror without repeating the edge (numpy "reflect").
    Reflect,
    /// Repeat the edge value.
    Edge,
    /// Wrap around (opset 19).
    Wrap,
}

impl PadMode {
    pub fn parse(s: &str) -> Result<PadMode, String> {
        match s {
            "" | "constant" => Ok(PadMode::Constant),
            "reflect" => Ok(PadMode::Reflect),
            "edge" => Ok(PadMode::Edge),
            "wrap" => Ok(PadMode::Wrap),
            _ => Err(format!(
                "unknown pad mode '{s}' (expected constant, reflect, edge or wrap)"
            )),
        }
    }
}

/// Pad (opset 18/19): `pads` is `[begins..., ends...]` over `axes` (default all); negative
/// pads crop. `value` is the optional scalar for constant mode (default 0).
pub fn pad(
    x: &Tensor,
    pads: &[i64],
    mode: PadMode,
    value: Option<&Tensor>,
    axes: Option<&[i64]>,
) -> KernelResult {
    const OP: &str = "Pad";
    let g = shape::pad_geometry(x.shape(), pads, axes)?;
    output_count(OP, &g.output)?;
    if let Some(v) = value {
        same_dtype(OP, &[x, v])?;
        if v.numel() != 1 {
            return fail(
                OP,
                format!("constant_value must be a scalar, got shape {:?}", v.shape()),
            );
        }
    }
    let xs = x.shape();
    for (d, &n) in xs.iter().enumerate() {
        let padded = g.begin[d] > 0 || g.end[d] > 0;
        if padded && mode != PadMode::Constant && n == 0 {
            return fail(
                OP,
                format!("cannot pad the empty axis {d} in {mode:?} mode"),
            );
        }
    }
    let s = strides(xs);
    let idx = map_indices(&g.output, |o| {
        let mut off = 0usize;
        for d in 0..o.len() {
            let n = xs[d];
            let i = o[d] - g.begin[d];
            let j = if (0..n).contains(&i) {
                i
            } else {
                match mode {
                    PadMode::Constant => return FILL,
                    PadMode::Edge => i.clamp(0, n - 1),
                    PadMode::Wrap => i.rem_euclid(n),
                    PadMode::Reflect if n == 1 => 0,
                    PadMode::Reflect => {
                        let r = i.rem_euclid(2 * (n - 1));
                        if r >= n { 2 * (n - 1) - r } else { r }
                    }
                }
            };
            off += j as usize * s[d];
        }
        off
    });
    make(OP, g.output, take(x, &idx, value))
}

/// DepthToSpace modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthToSpaceMode {
    /// depth-column-row (the default): channels are ordered (block row, block column, C).
    Dcr,
    /// column-row-depth: channels are ordered (C, block row, block column).
    Crd,
}

/// DepthToSpace: `[N, C, H, W]` to `[N, C/b², H·b, W·b]`.
pub fn depth_to_space(x: &Tensor, blocksize: i64, mode: DepthToSpaceMode) -> KernelResult {
    const OP: &str = "DepthToSpace";
    let out = shape::depth_to_space(x.shape(), blocksize)?;
    output_count(OP, &out)?;
    let (b, c_out) = (blocksize, out[1]);
    let s = strides(x.shape());
    let idx = map_indices(&out, |o| {
        let (bh, bw) = (o[2] % b, o[3] % b);
        let c = match mode {
            DepthToSpaceMode::Dcr => (bh * b + bw) * c_out + o[1],
            DepthToSpaceMode::Crd => o[1] * b * b + bh * b + bw,
        };
        o[0] as usize * s[0]
            + c as usize * s[1]
            + (o[2] / b) as usize * s[2]
            + (o[3] / b) as usize * s[3]
    });
    gathered(OP, x, out, &idx)
}

/// SpaceToDepth: `[N, C, H, W]` to `[N, C·b², H/b, W/b]`, channels ordered (block row,
/// block column, C).
pub fn space_to_depth(x: &Tensor, blocksize: i64) -> KernelResult {
    const OP: &str = "SpaceToDepth";
    let out = shape::space_to_depth(x.shape(), blocksize)?;
    output_count(OP, &out)?;
    let (b, c_in) = (blocksize, x.shape()[1]);
    let s = strides(x.shape());
    let idx = map_indices(&out, |o| {
        let (c, blk) = (o[1] % c_in, o[1] / c_in);
        let (h, w) = (o[2] * b + blk / b, o[3] * b + blk % b);
        o[0] as usize * s[0] + c as usize * s[1] + h as usize * s[2] + w as usize * s[3]
    });
    gathered(OP, x, out, &idx)
}

/// Range(start, limit, delta): scalars of one numeric dtype; element i is `start + i*delta`.
pub fn range(start: &Tensor, limit: &Tensor, delta: &Tensor) -> KernelResult {
    const OP: &str = "Range";
    let dt = same_dtype(OP, &[start, limit, delta])?;
    for (name, t) in [("start", start), ("limit", limit), ("delta", delta)] {
        if t.numel() != 1 || t.rank() > 1 {
            return fail(
                OP,
                format!("{name} must be a scalar, got shape {:?}", t.shape()),
            );
        }
    }
    if dt == DType::Bool {
        return fail(OP, "is not defined on bool tensors");
    }
    fn go<T: Element>(s: &[T], l: &Tensor, d: &Tensor) -> KernelResult<(Vec<i64>, TensorData)> {
        let (s, l, d) = (
            s[0],
            l.as_slice::<T>().unwrap_or_default()[0],
            d.as_slice::<T>().unwrap_or_default()[0],
        );
        if T::DTYPE.is_float() {
            let (a, b, c) = (s.to_f64(), l.to_f64(), d.to_f64());
            let out = shape::range(a, b, c)?;
            output_count(OP, &out)?;
            Ok((
                out.clone(),
                T::into_data((0..out[0]).map(|i| T::from_f64(a + i as f64 * c)).collect()),
            ))
        } else {
            let (a, b, c) = (s.to_i128() as i64, l.to_i128() as i64, d.to_i128() as i64);
            let out = shape::range_int(a, b, c)?;
            output_count(OP, &out)?;
            Ok((
                out.clone(),
                T::into_data(
                    (0..out[0] as i128)
                        .map(|i| T::from_i128(a as i128 + i * c as i128))
                        .collect(),
                ),
            ))
        }
    }
    let (out, data) = with_data!(start.data(), v => go(v, limit, delta)?);
    make(OP, out, data)
}

/// Shape (opset 15): the dimensions `start..end` of `x` as an i64 vector.
pub fn shape_of(x: &Tensor, start: Option<i64>, end: Option<i64>) -> KernelResult {
    let out = shape::shape_op(x.shape(), start, end)?;
    let (s, e) = shape::shape_bounds(x.shape(), start, end);
    make("Shape", out, TensorData::I64(x.shape()[s..e].to_vec()))
}

/// ConstantOfShape: a tensor of `shape` filled with the one-element `value` (default f32 0).
pub fn constant_of_shape(shape: &[i64], value: Option<&Tensor>) -> KernelResult {
    const OP: &str = "ConstantOfShape";
    let out = shape::constant_of_shape(shape)?;
    output_count(OP, &out)?;
    let zero = Tensor::scalar(0.0f32);
    let v = value.unwrap_or(&zero);
    if v.numel() != 1 {
        return fail(
            OP,
            format!("value must hold one element, got shape {:?}", v.shape()),
        );
    }
    let n: usize = numel(&out);
    make(OP, out, take(v, &vec![0; n], None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[i64]) -> Tensor {
        let n: i64 = shape.iter().product();
        Tensor::from_vec(shape.to_vec(), (0..n).collect::<Vec<i64>>()).unwrap()
    }

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_i64_vec().unwrap()
    }

    #[test]
    fn reshape_family() {
        let x = iota(&[2, 3, 4]);
        assert_eq!(reshape(&x, &[4, 0, -1], false).unwrap().shape(), &[4, 3, 2]);
        assert_eq!(ints(&reshape(&x, &[-1], false).unwrap()), ints(&x));
        assert_eq!(flatten(&x, 2).unwrap().shape(), &[6, 4]);
        assert_eq!(squeeze(&iota(&[1, 3, 1]), None).unwrap().shape(), &[3]);
        assert_eq!(unsqueeze(&x, &[0, -1]).unwrap().shape(), &[1, 2, 3, 4, 1]);
        assert!(
            reshape(&x, &[5, -1], false)
                .unwrap_err()
                .to_string()
                .starts_with("Reshape: cannot infer")
        );
        assert_eq!(identity(&x).unwrap(), x);
        assert_eq!(cast(&x, DType::F32).unwrap().dtype(), DType::F32);
    }

    #[test]
    fn transpose_slice_expand_tile() {
        let x = iota(&[2, 3]);
        let t = transpose(&x, None).unwrap();
        assert_eq!((t.shape(), ints(&t)), (&[3, 2][..], vec![0, 3, 1, 4, 2, 5]));
        let y = iota(&[2, 3, 4]);
        let t = transpose(&y, Some(&[1, 2, 0])).unwrap();
        assert_eq!(t.shape(), &[3, 4, 2]);
        assert_eq!(ints(&t)[..4], [0, 12, 1, 13]);
        assert!(transpose(&y, Some(&[0, 1])).is_err());
        // data [[0..3],[4..7]], starts [1, 0], ends [2, 3], steps [1, 2] -> [[4, 6]].
        let d = iota(&[2, 4]);
        let s = slice(&d, &[1, 0], &[2, 3], Some(&[0, 1]), Some(&[1, 2])).unwrap();
        assert_eq!((s.shape(), ints(&s)), (&[1, 2][..], vec![4, 6]));
        // Reversal with a negative step.
        let s = slice(&d, &[-1], &[i64::MIN], Some(&[1]), Some(&[-1])).unwrap();
        assert_eq!(ints(&s), vec![3, 2, 1, 0, 7, 6, 5, 4]);
        let s = slice(&d, &[3], &[0], Some(&[-1]), Some(&[-2])).unwrap();
        assert_eq!(ints(&s), vec![3, 1, 7, 5]);
        let e = expand(
            &Tensor::from_vec(vec![3, 1], vec![1i32, 2, 3]).unwrap(),
            &[2, 1, 2],
        )
        .unwrap();
        assert_eq!(
            (e.shape(), ints(&e)),
            (&[2, 3, 2][..], vec![1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3])
        );
        let t = tile(&x, &[2, 2]).unwrap();
        assert_eq!(t.shape(), &[4, 6]);
        assert_eq!(ints(&t)[..6], [0, 1, 2, 0, 1, 2]);
        assert_eq!(ints(&t)[18..], [3, 4, 5, 3, 4, 5]);
    }

    #[test]
    fn concat_and_split() {
        let a = iota(&[2, 2]);
        let b = Tensor::from_vec(vec![2, 1], vec![10i64, 11]).unwrap();
        let c = concat(&[&a, &b], 1).unwrap();
        assert_eq!(
            (c.shape(), ints(&c)),
            (&[2, 3][..], vec![0, 1, 10, 2, 3, 11])
        );
        let c0 = concat(&[&a, &a], 0).unwrap();
        assert_eq!(ints(&c0), vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert!(
            concat(&[&a, &a.cast(DType::I32)], 0)
                .unwrap_err()
                .message
                .contains("same type")
        );
        assert!(concat(&[&a, &b], 0).is_err());
        let parts = split(&iota(&[2, 5]), 1, Some(&[2, 3]), None).unwrap();
        assert_eq!(
            (parts[0].shape(), ints(&parts[0])),
            (&[2, 2][..], vec![0, 1, 5, 6])
        );
        assert_eq!(ints(&parts[1]), vec![2, 3, 4, 7, 8, 9]);
        let parts = split(&iota(&[5]), 0, None, Some(2)).unwrap();
        assert_eq!(
            (ints(&parts[0]), ints(&parts[1])),
            (vec![0, 1, 2], vec![3, 4])
        );
        assert!(split(&iota(&[5]), 0, Some(&[1, 1]), None).is_err());
    }

    #[test]
    fn gathers() {
        // Gather axis 0: data [[1, 1.2], [2.3, 3.4], [4.5, 5.7]] with [[0, 1], [1, 2]].
        let data = Tensor::from_vec(vec![3, 2], vec![1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap();
        let idx = Tensor::from_vec(vec![2, 2], vec![0i64, 1, 1, 2]).unwrap();
        let g = gather(&data, &idx, 0).unwrap();
        assert_eq!(g.shape(), &[2, 2, 2]);
        assert_eq!(
            g.as_slice::<f32>().unwrap(),
            &[1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7]
        );
        let g = gather(&iota(&[2, 3]), &Tensor::vector(vec![-1i32, 0]), 1).unwrap();
        assert_eq!((g.shape(), ints(&g)), (&[2, 2][..], vec![2, 0, 5, 3]));
        let g = gather(&iota(&[3]), &Tensor::scalar(1i64), 0).unwrap();
        assert_eq!((g.shape(), ints(&g)), (&[][..], vec![1]));
        assert_eq!(
            gather(&iota(&[3]), &Tensor::scalar(3i64), 0)
                .unwrap_err()
                .to_string(),
            "Gather: index 3 is out of bounds for an axis of size 3"
        );
        assert!(
            gather(&iota(&[3]), &Tensor::scalar(1.0f32), 0)
                .unwrap_err()
                .message
                .contains("i32 or i64")
        );
        // GatherElements (ONNX example): [[1, 2], [3, 4]], indices [[0, 0], [1, 0]], axis 1 -> [[1, 1], [4, 3]].
        let d = Tensor::from_vec(vec![2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let i = Tensor::from_vec(vec![2, 2], vec![0i64, 0, 1, 0]).unwrap();
        assert_eq!(ints(&gather_elements(&d, &i, 1).unwrap()), vec![1, 1, 4, 3]);
        // axis 0 with negative indices: [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[-1, -2, 0], [2, 0, 0]].
        let d = Tensor::from_vec(vec![3, 3], (1..=9).collect::<Vec<i64>>()).unwrap();
        let i = Tensor::from_vec(vec![2, 3], vec![-1i32, -2, 0, 2, 0, 0]).unwrap();
        assert_eq!(
            ints(&gather_elements(&d, &i, 0).unwrap()),
            vec![7, 5, 3, 7, 2, 3]
        );
        assert!(
            gather_elements(&d, &Tensor::from_vec(vec![1, 1], vec![3i64]).unwrap(), 0).is_err()
        );
    }

    #[test]
    fn pads() {
        let x = Tensor::from_vec(vec![3, 2], vec![1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap();
        let pads = [0, 2, 0, 0];
        let c = pad(
            &x,
            &pads,
            PadMode::Constant,
            Some(&Tensor::scalar(0.5f32)),
            None,
        )
        .unwrap();
        assert_eq!(c.shape(), &[3, 4]);
        assert_eq!(c.as_slice::<f32>().unwrap()[..4], [0.5, 0.5, 1.0, 1.2]);
        let r = pad(&x, &pads, PadMode::Reflect, None, None).unwrap();
        assert_eq!(r.as_slice::<f32>().unwrap()[..4], [1.0, 1.2, 1.0, 1.2]);
        let e = pad(&x, &pads, PadMode::Edge, None, None).unwrap();
        assert_eq!(e.as_slice::<f32>().unwrap()[..4], [1.0, 1.0, 1.0, 1.2]);
        // 1-D reflect/wrap beyond the edge: [1, 2, 3] padded by 4 on the left.
        let v = Tensor::vector(vec![1i64, 2, 3]);
        assert_eq!(
            ints(&pad(&v, &[4, 0], PadMode::Reflect, None, None).unwrap()),
            vec![1, 2, 3, 2, 1, 2, 3]
        );
        assert_eq!(
            ints(&pad(&v, &[4, 1], PadMode::Wrap, None, None).unwrap()),
            vec![3, 1, 2, 3, 1, 2, 3, 1]
        );
        assert_eq!(
            ints(&pad(&v, &[-1, 2], PadMode::Constant, None, None).unwrap()),
            vec![2, 3, 0, 0]
        );
        assert_eq!(
            ints(&pad(&iota(&[2, 2]), &[1, 0], PadMode::Edge, None, Some(&[-1])).unwrap()),
            vec![0, 0, 1, 2, 2, 3]
        );
        assert!(
            pad(
                &v,
                &[1, 1],
                PadMode::Constant,
                Some(&Tensor::scalar(1.0f32)),
                None
            )
            .unwrap_err()
            .message
            .contains("same type")
        );
        assert!(
            pad(
                &Tensor::zeros(DType::F32, vec![0]).unwrap(),
                &[1, 1],
                PadMode::Reflect,
                None,
                None
            )
            .is_err()
        );
        assert_eq!(PadMode::parse("edge"), Ok(PadMode::Edge));
        assert!(PadMode::parse("mirror").is_err());
    }

    #[test]
    fn depth_space() {
        // DCR example from the ONNX docs: x = arange(48).reshape(1, 8, 2, 3), blocksize 2.
        let x = iota(&[1, 8, 2, 3]);
        let y = depth_to_space(&x, 2, DepthToSpaceMode::Dcr).unwrap();
        assert_eq!(y.shape(), &[1, 2, 4, 6]);
        assert_eq!(
            ints(&y)[..12],
            [0, 12, 1, 13, 2, 14, 24, 36, 25, 37, 26, 38]
        );
        let y = depth_to_space(&x, 2, DepthToSpaceMode::Crd).unwrap();
        assert_eq!(ints(&y)[..12], [0, 6, 1, 7, 2, 8, 12, 18, 13, 19, 14, 20]);
        // SpaceToDepth inverts DCR DepthToSpace.
        let back =
            space_to_depth(&depth_to_space(&x, 2, DepthToSpaceMode::Dcr).unwrap(), 2).unwrap();
        assert_eq!(back, x);
        assert!(depth_to_space(&iota(&[1, 3, 2, 2]), 2, DepthToSpaceMode::Dcr).is_err());
    }

    #[test]
    fn producers() {
        let r = range(
            &Tensor::scalar(3i32),
            &Tensor::scalar(9i32),
            &Tensor::scalar(3i32),
        )
        .unwrap();
        assert_eq!((r.shape(), ints(&r)), (&[2][..], vec![3, 6]));
        let r = range(
            &Tensor::scalar(10.0f32),
            &Tensor::scalar(4.0f32),
            &Tensor::scalar(-3.0f32),
        )
        .unwrap();
        assert_eq!(r.to_f64_vec(), vec![10.0, 7.0]);
        assert!(
            range(
                &Tensor::scalar(0i64),
                &Tensor::scalar(1i64),
                &Tensor::scalar(0i64)
            )
            .unwrap_err()
            .message
            .contains("delta")
        );
        assert!(
            range(
                &Tensor::scalar(0i64),
                &Tensor::scalar(1i32),
                &Tensor::scalar(1i64)
            )
            .is_err()
        );
        let s = shape_of(&iota(&[2, 3, 4]), Some(1), None).unwrap();
        assert_eq!((s.dtype(), ints(&s)), (DType::I64, vec![3, 4]));
        let c = constant_of_shape(&[2, 2], Some(&Tensor::vector(vec![7i32]))).unwrap();
        assert_eq!(c.typed::<i32>().unwrap(), &[7, 7, 7, 7]);
        let z = constant_of_shape(&[3], None).unwrap();
        assert_eq!((z.dtype(), z.to_f64_vec()), (DType::F32, vec![0.0; 3]));
        assert!(constant_of_shape(&[-1], None).is_err());
        assert!(constant_of_shape(&[1], Some(&Tensor::vector(vec![1i32, 2]))).is_err());
    }
}
