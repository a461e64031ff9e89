//! Kernels whose output element count overflows `usize` report an error before allocating
//! anything. The shapes below wrap to 2^32 elements in 64-bit arithmetic, so a wrapped
//! count would try to allocate tens of GiB instead.

use tb_tensor::Tensor;
use tb_tensor::kernels::shape_ops;

/// 2^32 * (2^32 + 1) = 2^64 + 2^32: wraps to 2^32.
const WRAPPING: [i64; 2] = [1 << 32, (1 << 32) + 1];

fn is_count_error(e: &impl std::fmt::Display) -> bool {
    e.to_string().contains("too many elements")
}

#[test]
fn expand_beyond_usize_is_an_error() {
    let x = Tensor::from_vec(vec![1, 1], vec![7i64]).unwrap();
    let e = shape_ops::expand(&x, &WRAPPING).unwrap_err();
    assert!(is_count_error(&e), "{e}");
}

#[test]
fn tile_beyond_usize_is_an_error() {
    let x = Tensor::from_vec(vec![1, 1], vec![7i64]).unwrap();
    let e = shape_ops::tile(&x, &WRAPPING).unwrap_err();
    assert!(is_count_error(&e), "{e}");
}

#[test]
fn constant_of_shape_beyond_usize_is_an_error() {
    let e = shape_ops::constant_of_shape(&WRAPPING, None).unwrap_err();
    assert!(is_count_error(&e), "{e}");
}

#[test]
fn output_counts_within_usize_still_compute() {
    let x = Tensor::from_vec(vec![1, 2], vec![1i64, 2]).unwrap();
    let t = shape_ops::tile(&x, &[2, 2]).unwrap();
    assert_eq!(t.shape(), &[2, 4]);
    assert_eq!(t.to_i64_vec().unwrap(), vec![1, 2, 1, 2, 1, 2, 1, 2]);
}
