//! The meaning of `arith.cmpi` and `arith.cmpf` predicates, shared by the folder and the
//! reference interpreter so that folding a comparison never changes its result.
//!
//! Predicates are the typed [`CmpIPredicate`]/[`CmpFPredicate`], whose discriminants are
//! the attribute's integer values in MLIR's order.

use super::attrs::{CmpFPredicate, CmpIPredicate};

/// `v`, a `width`-bit integer in the form attributes keep (sign-extended, but i1 as 0/1),
/// read as a signed number: i1 `true` is -1.
pub fn signed_value(v: i128, width: u32) -> i128 {
    if width == 1 { -(v & 1) } else { v }
}

/// `v` read as an unsigned `width`-bit number.
pub fn unsigned_value(v: i128, width: u32) -> u128 {
    if width >= 128 {
        v as u128
    } else {
        (v as u128) & ((1u128 << width) - 1)
    }
}

/// `arith.cmpi` predicate `pred` on two `width`-bit integers.
pub fn compare_ints(pred: CmpIPredicate, a: i128, b: i128, width: u32) -> bool {
    let (ua, ub) = (unsigned_value(a, width), unsigned_value(b, width));
    let (sa, sb) = (signed_value(a, width), signed_value(b, width));
    match pred {
        CmpIPredicate::Eq => ua == ub,
        CmpIPredicate::Ne => ua != ub,
        CmpIPredicate::Slt => sa < sb,
        CmpIPredicate::Sle => sa <= sb,
        CmpIPredicate::Sgt => sa > sb,
        CmpIPredicate::Sge => sa >= sb,
        CmpIPredicate::Ult => ua < ub,
        CmpIPredicate::Ule => ua <= ub,
        CmpIPredicate::Ugt => ua > ub,
        CmpIPredicate::Uge => ua >= ub,
    }
}

/// `arith.cmpf` predicate `pred`: ordered predicates are false on NaN, unordered ones true.
pub fn compare_floats(pred: CmpFPredicate, a: f64, b: f64) -> bool {
    use CmpFPredicate as P;
    let unordered = a.is_nan() || b.is_nan();
    match pred {
        P::False => false,
        P::Oeq => !unordered && a == b,
        P::Ogt => !unordered && a > b,
        P::Oge => !unordered && a >= b,
        P::Olt => !unordered && a < b,
        P::Ole => !unordered && a <= b,
        P::One => !unordered && a != b,
        P::Ord => !unordered,
        P::Ueq => unordered || a == b,
        P::Ugt => unordered || a > b,
        P::Uge => unordered || a >= b,
        P::Ult => unordered || a < b,
        P::Ule => unordered || a <= b,
        P::Une => unordered || a != b,
        P::Uno => unordered,
        P::True => true,
    }
}
