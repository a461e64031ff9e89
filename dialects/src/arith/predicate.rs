//! The meaning of `arith.cmpi` and `arith.cmpf` predicates, shared by the folder and the
//! reference interpreter so that folding a comparison never changes its result.
//!
//! Predicates are the attribute's integer values, in MLIR's order.

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

/// `arith.cmpi` predicate `pred` (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge) on two
/// `width`-bit integers; `None` for an unknown predicate.
pub fn compare_ints(pred: i64, a: i128, b: i128, width: u32) -> Option<bool> {
    let (ua, ub) = (unsigned_value(a, width), unsigned_value(b, width));
    let (sa, sb) = (signed_value(a, width), signed_value(b, width));
    Some(match pred {
        0 => ua == ub,
        1 => ua != ub,
        2 => sa < sb,
        3 => sa <= sb,
        4 => sa > sb,
        5 => sa >= sb,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        9 => ua >= ub,
        _ => return None,
    })
}

/// `arith.cmpf` predicate `pred` (false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge,
/// ult, ule, une, uno, true): ordered predicates are false on NaN, unordered ones true.
pub fn compare_floats(pred: i64, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    Some(match pred {
        0 => false,
        1 => !unordered && a == b,
        2 => !unordered && a > b,
        3 => !unordered && a >= b,
        4 => !unordered && a < b,
        5 => !unordered && a <= b,
        6 => !unordered && a != b,
        7 => !unordered,
        8 => unordered || a == b,
        9 => unordered || a > b,
        10 => unordered || a >= b,
        11 => unordered || a < b,
        12 => unordered || a <= b,
        13 => unordered || a != b,
        14 => unordered,
        15 => true,
        _ => return None,
    })
}
