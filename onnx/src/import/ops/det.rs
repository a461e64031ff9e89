//! Det of matrices up to 4×4, imported as the Leibniz sum over permutations of products of
//! gathered elements (at most 24 products of 4): exact arithmetic order, no pivoting on
//! data. Larger matrices are reported as unsupported.

use tb_interpreter::Tensor;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr};
use super::super::node::{Lowering, NodeCx};

/// The permutations of 0..n with their signs.
fn permutations(n: usize) -> Vec<(Vec<usize>, bool)> {
    if n == 1 {
        return vec![(vec![0], true)];
    }
    let mut out = Vec::new();
    for (rest, even) in permutations(n - 1) {
        // Insert n - 1 at position p: moving it past n - 1 - p elements flips the sign as
        // many times.
        for p in 0..n {
            let mut perm = rest.clone();
            perm.insert(p, n - 1);
            out.push((perm, even == (n - 1 - p).is_multiple_of(2)));
        }
    }
    out
}

pub fn det(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    let shape = cx.shape(0)?.to_vec();
    let rank = shape.len();
    if !dtype.is_float() || rank < 2 || shape[rank - 1] != shape[rank - 2] {
        return Err(Problem::invalid(format!(
            "expects floating-point square matrices [..., n, n], got {dtype} {shape:?}"
        )));
    }
    let size = shape[rank - 1];
    if !(1..=4).contains(&size) {
        return Err(Problem::unsupported(format!(
            "Det of {size}×{size} matrices is not supported (up to 4×4 are)"
        )));
    }
    let size = size as usize;
    let mut e = Expander::new(n);
    let mut flat_shape = shape[..rank - 2].to_vec();
    flat_shape.push((size * size) as i64);
    let flat_shape = e.ints(&flat_shape);
    let flat = e.op("Reshape", &[&n.input[0], &flat_shape], vec![]);
    let last = rank as i64 - 2;
    let elements: Vec<String> = (0..size * size)
        .map(|k| {
            let at = e.constant(Tensor::scalar(k as i64));
            e.op("Gather", &[&flat, &at], vec![int_attr("axis", last)])
        })
        .collect();
    let mut sum: Option<String> = None;
    for (perm, even) in permutations(size) {
        let mut product = elements[perm[0]].clone();
        for (row, &col) in perm.iter().enumerate().skip(1) {
            product = e.op("Mul", &[&product, &elements[row * size + col]], vec![]);
        }
        sum = Some(match (sum, even) {
            (None, true) => product,
            (None, false) => e.op("Neg", &[&product], vec![]),
            (Some(s), true) => e.op("Add", &[&s, &product], vec![]),
            (Some(s), false) => e.op("Sub", &[&s, &product], vec![]),
        });
    }
    let sum = sum.expect("at least one permutation");
    e.op_to("Identity", &[&sum], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}

#[cfg(test)]
mod tests {
    use super::permutations;

    #[test]
    fn permutations_carry_their_parity() {
        let perms = permutations(3);
        assert_eq!(perms.len(), 6);
        // Parity by counting inversions.
        for (p, even) in perms {
            let inversions = (0..3)
                .flat_map(|i| (i + 1..3).map(move |j| (i, j)))
                .filter(|&(i, j)| p[i] > p[j])
                .count();
            assert_eq!(even, inversions % 2 == 0, "{p:?}");
        }
    }
}
