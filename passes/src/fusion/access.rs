//! How a consumer reads a producer: the class of one dependence edge.
//!
//! A `te.read %p[map]` inside a consumer maps the consumer's iteration domain onto the
//! producer's elements. Whether each producer element is read once (one-relies-on-one) or
//! by many consumer points (one-relies-on-many, "reuse") decides whether inlining the
//! producer recomputes it. The class only drives cost decisions: inlining by map
//! composition keeps the meaning for every class it is allowed on.

use tb_ir::affine::{AffineMap, Interval, expr_interval};

/// The class of a dependence edge from a producer `te.compute` to a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeClass {
    /// Every consumer point reads a distinct producer element (elementwise, transpose,
    /// slice, broadcast-free reshape).
    OneToOne,
    /// A producer element is read by `factor` consumer points on average (broadcast,
    /// matmul operands, convolution windows). `across_parallel` says whether the points
    /// that share an element differ in a result dimension of the consumer (data reuse a
    /// schedule exploits, as in a contraction) rather than only in its reduction axes.
    Reuse { factor: u64, across_parallel: bool },
    /// The producer reduces: its elements exist only after its reduction loops, so it
    /// cannot be recomputed inside a consumer by map composition.
    ReductionBoundary,
    /// A padded read (`{padding = ...}`): outside the producer the read yields the padding,
    /// which the producer's own body would not.
    Padded,
    /// `te.read_at`: the element read depends on data, not on an affine map.
    Indirect,
}

impl EdgeClass {
    /// A short name for remarks and tests.
    pub fn name(self) -> &'static str {
        match self {
            EdgeClass::OneToOne => "one-to-one",
            EdgeClass::Reuse { .. } => "reuse",
            EdgeClass::ReductionBoundary => "reduction",
            EdgeClass::Padded => "padded",
            EdgeClass::Indirect => "indirect",
        }
    }
}

/// Classifies an affine read `map` from a consumer domain with extents `domain` (the
/// first `parallel_rank` are result dimensions) onto a producer of `producer_elements`
/// elements.
///
/// The read is one-to-one when every non-unit domain dimension appears in the map and the
/// box of values the map's results can take holds at least as many points as the domain
/// (a map that dropped a dimension, or folds several into fewer values, reads some element
/// more than once). Otherwise the reuse factor is the domain size over the number of
/// distinct elements the map can reach.
pub fn classify_map(
    map: &AffineMap,
    domain: &[i64],
    parallel_rank: usize,
    producer_elements: u64,
) -> EdgeClass {
    let points = elements(domain);
    let mut dropped_parallel = false;
    let mut dropped_any = false;
    for (d, &extent) in domain.iter().enumerate() {
        if extent > 1 && !map.results.iter().any(|r| r.is_function_of_dim(d as u32)) {
            dropped_any = true;
            dropped_parallel |= d < parallel_rank;
        }
    }
    let boxes: Vec<Option<Interval>> = domain
        .iter()
        .map(|&e| (e > 0).then(|| Interval { lo: 0, hi: e - 1 }))
        .collect();
    let reachable = map
        .results
        .iter()
        .map(|r| {
            expr_interval(&r.simplify(), &boxes)
                .map_or(u64::MAX, |i| (i.hi - i.lo + 1).max(1) as u64)
        })
        .try_fold(1u64, |acc, n| acc.checked_mul(n))
        .unwrap_or(u64::MAX)
        .min(producer_elements.max(1));
    if !dropped_any && reachable >= points {
        return EdgeClass::OneToOne;
    }
    // Folding several dimensions into fewer values (windows) shares elements between
    // result points as well.
    let folds_parallel = !dropped_any || dropped_parallel;
    EdgeClass::Reuse {
        factor: points.div_ceil(reachable.max(1)).max(1),
        across_parallel: dropped_parallel || (folds_parallel && reachable < points),
    }
}

/// The number of points of a static box (0 for an empty one, saturating).
pub fn elements(extents: &[i64]) -> u64 {
    extents
        .iter()
        .try_fold(1u64, |acc, &e| acc.checked_mul(e.max(0) as u64))
        .unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tb_ir::affine::parse_affine_map;

    fn classify(map: &str, domain: &[i64], parallel: usize, producer: &[i64]) -> EdgeClass {
        let map = parse_affine_map(map).unwrap();
        classify_map(&map, domain, parallel, elements(producer))
    }

    #[test]
    fn identity_and_transpose_are_one_to_one() {
        assert_eq!(
            classify("(d0, d1) -> (d0, d1)", &[4, 8], 2, &[4, 8]),
            EdgeClass::OneToOne
        );
        assert_eq!(
            classify("(d0, d1) -> (d1, d0)", &[4, 8], 2, &[8, 4]),
            EdgeClass::OneToOne
        );
    }

    #[test]
    fn slices_and_reshapes_are_one_to_one() {
        assert_eq!(
            classify("(d0) -> (d0 * 2 + 1)", &[4], 1, &[9]),
            EdgeClass::OneToOne
        );
        assert_eq!(
            classify("(d0, d1) -> (d0 * 4 + d1)", &[3, 4], 2, &[12]),
            EdgeClass::OneToOne
        );
    }

    #[test]
    fn broadcast_reuses_across_result_dimensions() {
        assert_eq!(
            classify("(d0, d1) -> (d1)", &[4, 8], 2, &[8]),
            EdgeClass::Reuse {
                factor: 4,
                across_parallel: true
            }
        );
    }

    #[test]
    fn matmul_operand_reuses_across_result_dimensions() {
        assert_eq!(
            classify("(d0, d1, d2) -> (d0, d2)", &[4, 8, 16], 2, &[4, 16]),
            EdgeClass::Reuse {
                factor: 8,
                across_parallel: true
            }
        );
    }

    #[test]
    fn row_statistic_reused_along_the_reduction_only() {
        assert_eq!(
            classify("(d0, d1, d2) -> (d0, 0)", &[2, 1, 8], 2, &[2, 1]),
            EdgeClass::Reuse {
                factor: 8,
                across_parallel: false
            }
        );
    }

    #[test]
    fn windows_fold_dimensions_into_shared_elements() {
        // A 1-d convolution window: output position d0, tap d1.
        let class = classify("(d0, d1) -> (d0 + d1)", &[6, 3], 1, &[8]);
        assert_eq!(
            class,
            EdgeClass::Reuse {
                factor: 3,
                across_parallel: true
            }
        );
    }

    #[test]
    fn unit_dimensions_do_not_count_as_dropped() {
        assert_eq!(
            classify("(d0, d1) -> (d1)", &[1, 8], 2, &[8]),
            EdgeClass::OneToOne
        );
    }
}
