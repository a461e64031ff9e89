//! Index arithmetic shared by the kernels: row-major strides, broadcasting strides, an
//! allocation-free multi-index counter and index-driven element copies.

use crate::tensor::{Element, Tensor, TensorData, with_data};

/// Row-major strides of `shape`, in elements.
pub(crate) fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(0) as usize;
    }
    s
}

/// Strides of an input of shape `shape` read as if broadcast to `out` (numpy alignment):
/// broadcast dimensions get stride 0.
pub(crate) fn broadcast_strides(shape: &[i64], out: &[i64]) -> Vec<usize> {
    let own = strides(shape);
    let lead = out.len() - shape.len();
    (0..out.len())
        .map(|i| {
            if i < lead || shape[i - lead] == 1 {
                0
            } else {
                own[i - lead]
            }
        })
        .collect()
}

/// Number of elements of `shape`, for shapes whose count a kernel has checked
/// ([`super::output_count`]) or that an existing tensor has, so that no product of their
/// dimensions overflows; it saturates rather than wraps all the same.
pub(crate) fn numel(shape: &[i64]) -> usize {
    shape
        .iter()
        .fold(1usize, |n, &d| n.saturating_mul(d.max(0) as usize))
}

/// A row-major multi-index over `shape` that tracks the matching flat offsets of several
/// strided operands, advanced one element at a time without allocating.
pub(crate) struct Counter<'a, const K: usize> {
    shape: &'a [i64],
    strides: [&'a [usize]; K],
    pub idx: Vec<i64>,
    pub offsets: [usize; K],
}

impl<'a, const K: usize> Counter<'a, K> {
    pub(crate) fn new(shape: &'a [i64], strides: [&'a [usize]; K]) -> Self {
        Counter {
            shape,
            strides,
            idx: vec![0; shape.len()],
            offsets: [0; K],
        }
    }

    /// Moves to the next multi-index (wrapping to all zeros after the last one).
    pub(crate) fn step(&mut self) {
        for d in (0..self.shape.len()).rev() {
            self.idx[d] += 1;
            for k in 0..K {
                self.offsets[k] += self.strides[k][d];
            }
            if self.idx[d] < self.shape[d] {
                return;
            }
            let back = self.idx[d] as usize;
            self.idx[d] = 0;
            for k in 0..K {
                self.offsets[k] -= back * self.strides[k][d];
            }
        }
    }
}

/// `f` applied elementwise to `a` and `b` broadcast to `out`.
pub(crate) fn broadcast_map2<A: Copy, B: Copy, O>(
    a: &[A],
    ash: &[i64],
    b: &[B],
    bsh: &[i64],
    out: &[i64],
    mut f: impl FnMut(A, B) -> O,
) -> Vec<O> {
    let n = numel(out);
    if ash == out && bsh == out {
        return a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect();
    }
    if bsh.iter().all(|&d| d == 1) && ash == out {
        let y = b[0];
        return a.iter().map(|&x| f(x, y)).collect();
    }
    let (sa, sb) = (broadcast_strides(ash, out), broadcast_strides(bsh, out));
    let mut v = Vec::with_capacity(n);
    // Walk all but the last dimension with a counter; the innermost loop is a strided run.
    let r = out.len();
    let inner = if r == 0 {
        1
    } else {
        out[r - 1].max(0) as usize
    };
    let (ia, ib) = if r == 0 {
        (0, 0)
    } else {
        (sa[r - 1], sb[r - 1])
    };
    let outer_shape = if r == 0 { &[][..] } else { &out[..r - 1] };
    let mut c = Counter::new(outer_shape, [&sa[..], &sb[..]]);
    for _ in 0..n.checked_div(inner).unwrap_or(0) {
        let [oa, ob] = c.offsets;
        for j in 0..inner {
            v.push(f(a[oa + j * ia], b[ob + j * ib]));
        }
        c.step();
    }
    v
}

/// `f` applied elementwise to three operands broadcast to `out` (Where).
pub(crate) fn broadcast_map3<A: Copy, B: Copy, C: Copy, O>(
    (a, ash): (&[A], &[i64]),
    (b, bsh): (&[B], &[i64]),
    (c, csh): (&[C], &[i64]),
    out: &[i64],
    mut f: impl FnMut(A, B, C) -> O,
) -> Vec<O> {
    let (sa, sb, sc) = (
        broadcast_strides(ash, out),
        broadcast_strides(bsh, out),
        broadcast_strides(csh, out),
    );
    let n = numel(out);
    let mut v = Vec::with_capacity(n);
    let mut k = Counter::new(out, [&sa[..], &sb[..], &sc[..]]);
    for _ in 0..n {
        let [oa, ob, oc] = k.offsets;
        v.push(f(a[oa], b[ob], c[oc]));
        k.step();
    }
    v
}

/// Marks an output element that is not copied from the source (e.g. constant padding).
pub(crate) const FILL: usize = usize::MAX;

/// A tensor of `shape` whose element `i` is `src[idx[i]]`, or `fill` where `idx[i] == FILL`.
/// `fill` must have the source's dtype (checked by callers); it defaults to zero.
pub(crate) fn take(src: &Tensor, idx: &[usize], fill: Option<&Tensor>) -> TensorData {
    fn go<T: Element>(v: &[T], idx: &[usize], fill: Option<&Tensor>) -> TensorData {
        let f = fill
            .and_then(|t| t.as_slice::<T>())
            .and_then(|s| s.first().copied())
            .unwrap_or_default();
        T::into_data(
            idx.iter()
                .map(|&i| if i == FILL { f } else { v[i] })
                .collect(),
        )
    }
    with_data!(src.data(), v => go(v, idx, fill))
}
