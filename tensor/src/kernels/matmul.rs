//! MatMul (numpy semantics, batched with broadcasting) and Gemm, over one cache-blocked
//! matrix-multiply loop that Conv and ConvTranspose reuse.

use crate::shape;

use super::float::{Real, float_apply};
use super::index::{broadcast_strides, numel};
use super::{KernelResult, fail, make, output_count, same_dtype};
use crate::tensor::{DType, Element, Tensor};

/// Element types of the matrix-multiply loop: floats, and integers with wrapping arithmetic.
pub(crate) trait Ring: Element {
    fn zero() -> Self;
    /// `self + a * b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `self + a` (wrapping for integers).
    fn plus(self, a: Self) -> Self;
}

impl Ring for f32 {
    fn zero() -> f32 {
        0.0
    }
    #[inline(always)]
    fn mul_add(self, a: f32, b: f32) -> f32 {
        self + a * b
    }
    #[inline(always)]
    fn plus(self, a: f32) -> f32 {
        self + a
    }
}

impl Ring for f64 {
    fn zero() -> f64 {
        0.0
    }
    #[inline(always)]
    fn mul_add(self, a: f64, b: f64) -> f64 {
        self + a * b
    }
    #[inline(always)]
    fn plus(self, a: f64) -> f64 {
        self + a
    }
}

macro_rules! int_ring {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            fn zero() -> $t {
                0
            }
            #[inline(always)]
            fn mul_add(self, a: $t, b: $t) -> $t {
                self.wrapping_add(a.wrapping_mul(b))
            }
            #[inline(always)]
            fn plus(self, a: $t) -> $t {
                self.wrapping_add(a)
            }
        }
    )*};
}
int_ring!(i32, i64, u32, u64);

/// A read-only matrix view: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy)]
pub(crate) struct MatRef<'a, T> {
    pub data: &'a [T],
    pub rs: usize,
    pub cs: usize,
}

/// `c[m x n] += a[m x k] * b[k x n]`, with `b` and `c` row-major (row strides `ldb`, `n`).
/// Columns are processed in blocks so that a panel of `b` stays in cache across the rows of
/// `a`; the innermost loop runs over contiguous memory and vectorizes.
pub(crate) fn gemm_acc<T: Ring>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: &[T],
    ldb: usize,
    c: &mut [T],
) {
    const NB: usize = 256;
    const KB: usize = 128;
    for j0 in (0..n).step_by(NB) {
        let j1 = (j0 + NB).min(n);
        for p0 in (0..k).step_by(KB) {
            let p1 = (p0 + KB).min(k);
            for i in 0..m {
                let crow = &mut c[i * n + j0..i * n + j1];
                for p in p0..p1 {
                    let aip = a.data[i * a.rs + p * a.cs];
                    let brow = &b[p * ldb + j0..p * ldb + j1];
                    for (cv, &bv) in crow.iter_mut().zip(brow) {
                        *cv = cv.mul_add(aip, bv);
                    }
                }
            }
        }
    }
}

/// Batched matmul of row-major operands already promoted to rank >= 2.
fn batched<T: Ring>(a: &[T], ash: &[i64], b: &[T], bsh: &[i64], batch: &[i64]) -> Vec<T> {
    let (ra, rb) = (ash.len(), bsh.len());
    let (m, k, n) = (
        ash[ra - 2] as usize,
        ash[ra - 1] as usize,
        bsh[rb - 1] as usize,
    );
    let sa = broadcast_strides(&ash[..ra - 2], batch);
    let sb = broadcast_strides(&bsh[..rb - 2], batch);
    let nbatch: usize = numel(batch);
    let mut out = vec![T::zero(); nbatch * m * n];
    let mut c = super::index::Counter::new(batch, [&sa[..], &sb[..]]);
    for bi in 0..nbatch {
        let [oa, ob] = c.offsets;
        let am = MatRef {
            data: &a[oa * m * k..(oa + 1) * m * k],
            rs: k,
            cs: 1,
        };
        gemm_acc(
            m,
            n,
            k,
            am,
            &b[ob * k * n..(ob + 1) * k * n],
            n,
            &mut out[bi * m * n..(bi + 1) * m * n],
        );
        c.step();
    }
    out
}

/// MatMul with numpy semantics: 1-D operands are promoted, batch dimensions broadcast.
/// Float (f16/bf16 via f32), i32, i64, u32 and u64.
pub fn matmul(a: &Tensor, b: &Tensor) -> KernelResult {
    const OP: &str = "MatMul";
    let out = shape::matmul(a.shape(), b.shape())?;
    output_count(OP, &out)?;
    let dt = same_dtype(OP, &[a, b])?;
    // Promote 1-D operands to matrices; the shape rule already dropped the added dims.
    let ash: Vec<i64> = if a.rank() == 1 {
        vec![1, a.shape()[0]]
    } else {
        a.shape().to_vec()
    };
    let bsh: Vec<i64> = if b.rank() == 1 {
        vec![b.shape()[0], 1]
    } else {
        b.shape().to_vec()
    };
    let batch = shape::broadcast(OP, &[&ash[..ash.len() - 2], &bsh[..bsh.len() - 2]])?;
    fn ints<T: Ring>(a: &Tensor, b: &Tensor, ash: &[i64], bsh: &[i64], batch: &[i64]) -> Vec<T> {
        batched(
            a.as_slice::<T>().unwrap_or_default(),
            ash,
            b.as_slice::<T>().unwrap_or_default(),
            bsh,
            batch,
        )
    }
    let data = match dt {
        DType::I32 => i32::into_data(ints::<i32>(a, b, &ash, &bsh, &batch)),
        DType::I64 => i64::into_data(ints::<i64>(a, b, &ash, &bsh, &batch)),
        DType::U32 => u32::into_data(ints::<u32>(a, b, &ash, &bsh, &batch)),
        DType::U64 => u64::into_data(ints::<u64>(a, b, &ash, &bsh, &batch)),
        _ => {
            let (mut outs, _) = float_apply!(OP, &[a, b], |xs| Ok::<_, super::KernelError>(vec![
                batched(xs[0], &ash, xs[1], &bsh, &batch)
            ]));
            outs.remove(0)
        }
    };
    make(OP, out, data)
}

/// Gemm attributes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmAttrs {
    pub alpha: f32,
    pub beta: f32,
    pub trans_a: bool,
    pub trans_b: bool,
}

impl Default for GemmAttrs {
    fn default() -> Self {
        GemmAttrs {
            alpha: 1.0,
            beta: 1.0,
            trans_a: false,
            trans_b: false,
        }
    }
}

/// Gemm: `alpha * A' * B' + beta * C` (floats), C unidirectionally broadcast to `[M, N]`.
pub fn gemm(a: &Tensor, b: &Tensor, c: Option<&Tensor>, attrs: &GemmAttrs) -> KernelResult {
    const OP: &str = "Gemm";
    let out = shape::gemm(
        a.shape(),
        b.shape(),
        c.map(|c| c.shape()),
        attrs.trans_a,
        attrs.trans_b,
    )?;
    output_count(OP, &out)?;
    let (m, n) = (out[0] as usize, out[1] as usize);
    let k = if attrs.trans_a {
        a.shape()[0]
    } else {
        a.shape()[1]
    } as usize;
    let csh: Vec<i64> = c.map_or(vec![], |c| c.shape().to_vec());
    let mut inputs = vec![a, b];
    inputs.extend(c);
    if !a.dtype().is_float() {
        return fail(
            OP,
            format!("expected floating-point inputs, got {}", a.dtype()),
        );
    }
    fn run<T: Real + Ring>(
        xs: &[&[T]],
        m: usize,
        n: usize,
        k: usize,
        csh: &[i64],
        attrs: &GemmAttrs,
    ) -> Vec<T> {
        let a = if attrs.trans_a {
            MatRef {
                data: xs[0],
                rs: 1,
                cs: m,
            }
        } else {
            MatRef {
                data: xs[0],
                rs: k,
                cs: 1,
            }
        };
        // The loop wants B row-major; materialize B' when transposed.
        let bt: Vec<T>;
        let b = if attrs.trans_b {
            bt = (0..k * n).map(|i| xs[1][(i % n) * k + i / n]).collect();
            &bt[..]
        } else {
            xs[1]
        };
        let mut y = vec![T::ZERO; m * n];
        gemm_acc(m, n, k, a, b, n, &mut y);
        let alpha = T::from_f64(attrs.alpha as f64);
        let beta = T::from_f64(attrs.beta as f64);
        let cs = if xs.len() > 2 {
            broadcast_strides(csh, &[m as i64, n as i64])
        } else {
            vec![0, 0]
        };
        for i in 0..m {
            for j in 0..n {
                let v = &mut y[i * n + j];
                *v = alpha * *v;
                if xs.len() > 2 {
                    *v += beta * xs[2][i * cs[0] + j * cs[1]];
                }
            }
        }
        y
    }
    let (mut outs, _) = float_apply!(OP, &inputs, |xs| Ok::<_, super::KernelError>(vec![run(
        &xs, m, n, k, &csh, attrs
    )]));
    make(OP, out, outs.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn matmul_2d_and_1d() {
        let a = Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let b = Tensor::from_vec(vec![3, 2], vec![7.0f32, 8.0, 9.0, 10.0, 11.0, 12.0]).unwrap();
        let c = matmul(&a, &b).unwrap();
        assert_eq!(c.shape(), &[2, 2]);
        assert_eq!(c.to_f64_vec(), vec![58.0, 64.0, 139.0, 154.0]);
        let v = Tensor::vector(vec![1.0f32, 1.0, 1.0]);
        let av = matmul(&a, &v).unwrap();
        assert_eq!((av.shape(), av.to_f64_vec()), (&[2][..], vec![6.0, 15.0]));
        let va = matmul(&Tensor::vector(vec![1.0f32, 1.0]), &a).unwrap();
        assert_eq!(
            (va.shape(), va.to_f64_vec()),
            (&[3][..], vec![5.0, 7.0, 9.0])
        );
        let dot = matmul(&v, &v).unwrap();
        assert_eq!((dot.shape(), dot.to_f64_vec()), (&[][..], vec![3.0]));
        assert!(
            matmul(&a, &a)
                .unwrap_err()
                .to_string()
                .starts_with("MatMul: inner dimensions differ")
        );
        assert!(
            matmul(&a, &b.cast(DType::F64))
                .unwrap_err()
                .message
                .contains("same type")
        );
        assert!(
            matmul(&a.cast(DType::I8), &b.cast(DType::I8))
                .unwrap_err()
                .message
                .contains("floating-point")
        );
    }

    #[test]
    fn matmul_batched_broadcast_and_ints() {
        // [2, 1, 2, 2] x [3, 2, 1] -> [2, 3, 2, 1].
        let a = Tensor::from_vec(vec![2, 1, 2, 2], (0..8).map(|x| x as i64).collect()).unwrap();
        let b = Tensor::from_vec(vec![3, 2, 1], (0..6).map(|x| x as i64).collect()).unwrap();
        let c = matmul(&a, &b).unwrap();
        assert_eq!(c.shape(), &[2, 3, 2, 1]);
        let want: Vec<i64> = vec![1, 3, 3, 13, 5, 23, 5, 7, 23, 33, 41, 59];
        assert_eq!(c.typed::<i64>().unwrap(), &want[..]);
        let w = matmul(
            &Tensor::vector(vec![u32::MAX, 2]),
            &Tensor::vector(vec![2u32, 1]),
        )
        .unwrap();
        assert_eq!(w.typed::<u32>().unwrap(), &[0]);
    }

    #[test]
    fn matmul_matches_naive_on_random_sizes() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 1000) as f64 / 500.0 - 1.0
        };
        for &(m, k, n) in &[
            (1, 1, 1),
            (3, 5, 7),
            (17, 300, 33),
            (64, 129, 513),
            (2, 1, 600),
        ] {
            let av: Vec<f64> = (0..m * k).map(|_| rnd()).collect();
            let bv: Vec<f64> = (0..k * n).map(|_| rnd()).collect();
            let want = naive(&av, &bv, m, k, n);
            let a = Tensor::from_vec(vec![m as i64, k as i64], av.clone()).unwrap();
            let b = Tensor::from_vec(vec![k as i64, n as i64], bv.clone()).unwrap();
            let got = matmul(&a, &b).unwrap();
            let w = Tensor::from_vec(vec![m as i64, n as i64], want).unwrap();
            got.allclose(&w, 1e-12, 1e-12).unwrap();
            let got32 = matmul(&a.cast(DType::F32), &b.cast(DType::F32)).unwrap();
            got32.allclose(&w.cast(DType::F32), 1e-4, 1e-5).unwrap();
        }
    }

    #[test]
    fn gemm_variants() {
        let a = Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let b = Tensor::from_vec(vec![3, 2], vec![7.0f32, 8.0, 9.0, 10.0, 11.0, 12.0]).unwrap();
        let c = Tensor::vector(vec![1.0f32, 2.0]);
        let attrs = GemmAttrs {
            alpha: 2.0,
            beta: 0.5,
            ..Default::default()
        };
        let y = gemm(&a, &b, Some(&c), &attrs).unwrap();
        assert_eq!(y.to_f64_vec(), vec![116.5, 129.0, 278.5, 309.0]);
        // A' and B' given transposed.
        let at = Tensor::from_vec(vec![3, 2], vec![1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0]).unwrap();
        let bt = Tensor::from_vec(vec![2, 3], vec![7.0f32, 9.0, 11.0, 8.0, 10.0, 12.0]).unwrap();
        let attrs = GemmAttrs {
            trans_a: true,
            trans_b: true,
            ..Default::default()
        };
        let cc = Tensor::from_vec(vec![2, 1], vec![1.0f32, -1.0]).unwrap();
        let y = gemm(&at, &bt, Some(&cc), &attrs).unwrap();
        assert_eq!(y.to_f64_vec(), vec![59.0, 65.0, 138.0, 153.0]);
        let y = gemm(
            &a.cast(DType::BF16),
            &b.cast(DType::BF16),
            None,
            &GemmAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.dtype(), DType::BF16);
        assert_eq!(y.as_slice::<bf16>().unwrap()[0], bf16::from_f32(58.0));
        assert!(
            gemm(
                &a,
                &b,
                Some(&Tensor::vector(vec![1.0f32; 3])),
                &GemmAttrs::default()
            )
            .unwrap_err()
            .message
            .contains("C: ")
        );
        assert!(
            gemm(
                &a.cast(DType::I32),
                &b.cast(DType::I32),
                None,
                &GemmAttrs::default()
            )
            .unwrap_err()
            .message
            .contains("floating-point")
        );
    }
}
