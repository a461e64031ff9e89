//! Interval evaluation of affine expressions: the range an expression takes when each dim
//! ranges over an interval, for bound checks and dependence tests.

use super::{AffineExpr, checked_ceil_div, checked_floor_div};

/// A closed integer interval `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: i64,
    pub hi: i64,
}

/// The range of `expr` when each dim `d<i>` ranges over `dims[i]` (`None` for an unknown
/// range); `None` when it cannot be bounded (symbols, unknown dims, non-constant
/// multipliers or divisors, overflow). The result contains every value the expression
/// takes on the box; it is exact for sums of distinct dims with constant factors.
pub fn expr_interval(expr: &AffineExpr, dims: &[Option<Interval>]) -> Option<Interval> {
    let both =
        |a: &AffineExpr, b: &AffineExpr| Some((expr_interval(a, dims)?, expr_interval(b, dims)?));
    let hull = |values: [Option<i64>; 4]| {
        let values: Option<Vec<i64>> = values.into_iter().collect();
        let values = values?;
        Some(Interval {
            lo: *values.iter().min()?,
            hi: *values.iter().max()?,
        })
    };
    match expr {
        AffineExpr::Dim(d) => dims.get(*d as usize).copied().flatten(),
        AffineExpr::Symbol(_) => None,
        AffineExpr::Constant(c) => Some(Interval { lo: *c, hi: *c }),
        AffineExpr::Add(a, b) => {
            let (x, y) = both(a, b)?;
            Some(Interval {
                lo: x.lo.checked_add(y.lo)?,
                hi: x.hi.checked_add(y.hi)?,
            })
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = both(a, b)?;
            hull([
                x.lo.checked_mul(y.lo),
                x.lo.checked_mul(y.hi),
                x.hi.checked_mul(y.lo),
                x.hi.checked_mul(y.hi),
            ])
        }
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) => {
            let x = expr_interval(a, dims)?;
            let c = b.constant_value().filter(|&c| c > 0)?;
            let div = if matches!(expr, AffineExpr::FloorDiv(..)) {
                checked_floor_div
            } else {
                checked_ceil_div
            };
            Some(Interval {
                lo: div(x.lo, c)?,
                hi: div(x.hi, c)?,
            })
        }
        AffineExpr::Mod(a, b) => {
            let c = b.constant_value().filter(|&c| c > 0)?;
            match expr_interval(a, dims) {
                Some(x) if x.lo >= 0 && x.hi < c => Some(x),
                _ => Some(Interval { lo: 0, hi: c - 1 }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::affine::parse_affine_expr;

    fn range(text: &str, dims: &[Option<Interval>]) -> Option<Interval> {
        let e = parse_affine_expr(text, &["d0", "d1"], &["s0"]).unwrap();
        expr_interval(&e, dims)
    }

    fn i(lo: i64, hi: i64) -> Option<Interval> {
        Some(Interval { lo, hi })
    }

    #[test]
    fn sums_products_and_divisions_of_bounded_dims() {
        let box_ = [i(0, 7), i(0, 2)];
        assert_eq!(range("d0 * 2 + d1 - 1", &box_), i(-1, 15));
        assert_eq!(range("d0 * -3", &box_), i(-21, 0));
        assert_eq!(range("d0 floordiv 4", &box_), i(0, 1));
        assert_eq!(range("(d0 - 1) ceildiv 2", &box_), i(0, 3));
        assert_eq!(range("d1 mod 4", &box_), i(0, 2), "already inside [0, 4)");
        assert_eq!(range("d0 mod 4", &box_), i(0, 3));
    }

    #[test]
    fn unknown_ranges_symbols_and_overflow_are_unbounded() {
        assert_eq!(range("d0 + d1", &[i(0, 1), None]), None);
        assert_eq!(range("d0 + s0", &[i(0, 1), i(0, 1)]), None);
        assert_eq!(range("d0 * 2", &[i(0, i64::MAX), None]), None);
    }
}
