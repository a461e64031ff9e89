//! Reduction combiners — sum, max, min and product — and what they compute: the one
//! definition that the te dialect's `#te.combiner` attribute (and through it the lowerings,
//! the interpreter and the backends) and the ONNX reduction kernels share.
//!
//! Integer sums and products wrap; max and min of unsigned values compare unsigned; float
//! max and min propagate NaN (as `arith.maximumf`/`minimumf` and ONNX's ReduceMax/Min do).

/// A reduction combiner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    Sum,
    Max,
    Min,
    Prod,
}

impl Combiner {
    pub const ALL: &'static [Combiner] =
        &[Combiner::Sum, Combiner::Max, Combiner::Min, Combiner::Prod];

    /// The neutral element for floats.
    pub fn float_identity(self) -> f64 {
        match self {
            Combiner::Sum => 0.0,
            Combiner::Prod => 1.0,
            Combiner::Max => f64::NEG_INFINITY,
            Combiner::Min => f64::INFINITY,
        }
    }

    /// The neutral element for `width`-bit integers, sign-extended (`i1` as 0/1);
    /// `unsigned` selects the unsigned extremes (0 and all ones) for max/min.
    pub fn int_identity(self, width: u32, unsigned: bool) -> i128 {
        let width = width.clamp(1, 128);
        let signed_min = if width == 128 {
            i128::MIN
        } else {
            -(1i128 << (width - 1))
        };
        let value = match (self, unsigned) {
            (Combiner::Sum, _) => 0,
            (Combiner::Prod, _) => 1,
            (Combiner::Max, true) => 0,
            (Combiner::Min, true) => -1,
            (Combiner::Max, false) => signed_min,
            (Combiner::Min, false) => -(signed_min + 1),
        };
        if width == 1 { value & 1 } else { value }
    }

    /// `acc` combined with `v` as floats (before rounding to the element format).
    pub fn combine_floats(self, acc: f64, v: f64) -> f64 {
        match self {
            Combiner::Sum => acc + v,
            Combiner::Prod => acc * v,
            _ if acc.is_nan() || v.is_nan() => f64::NAN,
            Combiner::Max => acc.max(v),
            Combiner::Min => acc.min(v),
        }
    }

    /// `acc` combined with `v` as `width`-bit integers (before wrapping to the width); max
    /// and min compare unsigned when `unsigned`.
    pub fn combine_ints(self, acc: i128, v: i128, width: u32, unsigned: bool) -> i128 {
        let less = if unsigned {
            low_bits(acc, width) < low_bits(v, width)
        } else {
            acc < v
        };
        match self {
            Combiner::Sum => acc.wrapping_add(v),
            Combiner::Prod => acc.wrapping_mul(v),
            Combiner::Max if less => v,
            Combiner::Min if less => acc,
            Combiner::Max => acc,
            Combiner::Min => v,
        }
    }
}

/// The low `width` bits of `v`, as an unsigned number.
fn low_bits(v: i128, width: u32) -> u128 {
    if width >= 128 {
        v as u128
    } else {
        (v as u128) & ((1u128 << width) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Combiner;

    #[test]
    fn identities_are_neutral() {
        for &c in Combiner::ALL {
            for v in [-3.5, 0.0, 7.25] {
                assert_eq!(c.combine_floats(c.float_identity(), v), v, "{c:?}");
            }
            for unsigned in [false, true] {
                for v in [-128i128, -1, 0, 5, 127] {
                    let v = if unsigned { v & 0xff } else { v };
                    let r = c.combine_ints(c.int_identity(8, unsigned), v, 8, unsigned);
                    assert_eq!(low(r), low(v), "{c:?} unsigned={unsigned} v={v}");
                }
            }
        }
    }

    fn low(v: i128) -> u128 {
        (v as u128) & 0xff
    }

    #[test]
    fn float_max_and_min_propagate_nan() {
        assert!(Combiner::Max.combine_floats(1.0, f64::NAN).is_nan());
        assert!(Combiner::Min.combine_floats(f64::NAN, 1.0).is_nan());
    }

    #[test]
    fn unsigned_max_compares_unsigned() {
        // -1 is 255 as an unsigned byte.
        assert_eq!(Combiner::Max.combine_ints(-1, 3, 8, true), -1);
        assert_eq!(Combiner::Max.combine_ints(-1, 3, 8, false), 3);
    }
}
