//! Sizes at import time. Types carry 64-bit dimensions, and a hostile file can declare any
//! of them: every shape the importer computes or accepts must keep its element count in
//! 64 bits (an overflow is an error naming the value or node), and import-time evaluation
//! allocates at most [`FOLD_BUDGET`] elements per result (bigger results stay ops, as
//! MLIR's folders leave large constants alone).

/// The most elements one result of import-time evaluation may have (4 MiB of `f32`);
/// above it, the node is imported as an op instead of being evaluated.
pub const FOLD_BUDGET: i64 = 1 << 20;

/// The product of the non-zero dimensions, if it fits in `i64`. Bounding this product,
/// not just the element count, bounds every partial product a shape rule may form (a
/// `0` elsewhere in the shape does not make `[0, 2^40, 2^40]` harmless to Flatten).
pub fn nonzero_product(dims: impl IntoIterator<Item = i128>) -> Option<i64> {
    let mut product: i128 = 1;
    for d in dims {
        if d < 0 {
            return None;
        }
        if d != 0 {
            product = product.checked_mul(d).filter(|&p| p <= i64::MAX as i128)?;
        }
    }
    Some(product as i64)
}

/// The number of elements of `shape`, if every dimension is non-negative and the shape's
/// non-zero product fits in `i64`.
pub fn element_count(shape: &[i64]) -> Option<i64> {
    nonzero_product(shape.iter().map(|&d| d as i128))?;
    Some(shape.iter().product())
}

/// An error message unless `shape` has a representable element count.
pub fn check_shape(shape: &[i64]) -> Result<i64, String> {
    element_count(shape).ok_or_else(|| {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        format!(
            "shape [{}] has a negative dimension or more elements than fit in 64 bits",
            dims.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_overflows() {
        assert_eq!(element_count(&[]), Some(1));
        assert_eq!(element_count(&[2, 3, 4]), Some(24));
        assert_eq!(element_count(&[0, 1 << 40]), Some(0));
        assert_eq!(element_count(&[i64::MAX]), Some(i64::MAX));
        assert_eq!(element_count(&[1 << 62, 2]), None);
        assert_eq!(element_count(&[0, 1 << 40, 1 << 40]), None);
        assert_eq!(element_count(&[2, -1]), None);
        assert!(
            check_shape(&[1 << 62, 4])
                .unwrap_err()
                .contains("[4611686018427387904, 4]")
        );
    }
}
