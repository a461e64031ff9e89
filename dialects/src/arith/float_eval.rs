//! Float constant evaluation that gives LLVM's `APFloat` results bit for bit, on any host.
//!
//! Folding must not depend on the machine the compiler runs on: x86 hardware computes
//! `0.0 / 0.0` as the negative quiet NaN `0xFFC00000`, while `APFloat` (and so
//! `mlir-opt --canonicalize`) gives the positive `0x7FC00000`. Every float fold of `arith`
//! goes through [`eval_binary`], which decides NaN results from the operands' bits the way
//! `APFloat` does and uses hardware arithmetic only for ordered values, where IEEE 754
//! leaves no choice.

use tb_ir::FloatKind;
use tb_ir::float::{bits_from_f64, bits_to_f64};

/// The binary float ops `arith` folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatBinary {
    Add,
    Sub,
    Mul,
    Div,
    /// `fmod`: the remainder has the sign of the dividend (`APFloat::mod`).
    Rem,
    /// IEEE 754-2019 `maximum`: NaN-propagating, -0 below +0.
    Maximum,
    Minimum,
    /// IEEE 754-2008 `maxNum`: a quiet NaN yields the other operand.
    MaxNum,
    MinNum,
}

/// Fraction bits of the formats whose NaNs carry a quiet bit (the top fraction bit):
/// the IEEE-style formats. The others (`FN`, `FNUZ`, `E8M0FNU`) have one NaN code per
/// sign, or none, and nothing to quiet.
fn fraction_bits_with_quiet_bit(kind: FloatKind) -> Option<u32> {
    use FloatKind::*;
    Some(match kind {
        F16 | TF32 => 10,
        BF16 => 7,
        F32 => 23,
        F64 => 52,
        F80 => 63,
        F128 => 112,
        F8E5M2 => 2,
        F8E4M3 => 3,
        F8E3M4 => 4,
        _ => return None,
    })
}

fn quiet_bit(kind: FloatKind) -> Option<u128> {
    // x87's quiet bit is the one below its explicit integer bit: bit 62 of 63 fraction
    // bits, like the others' top fraction bit.
    fraction_bits_with_quiet_bit(kind).map(|f| 1u128 << (f - 1))
}

/// Whether `bits` is a NaN of `kind`.
pub fn is_nan(kind: FloatKind, bits: u128) -> bool {
    bits_to_f64(kind, bits).is_some_and(f64::is_nan)
}

/// Whether `bits` is a signaling NaN (a NaN whose quiet bit is clear).
pub fn is_signaling(kind: FloatKind, bits: u128) -> bool {
    is_nan(kind, bits) && quiet_bit(kind).is_some_and(|q| bits & q == 0)
}

/// `bits`, a NaN, made quiet with its sign and payload kept (`APFloat::makeQuiet`).
pub fn quiet(kind: FloatKind, bits: u128) -> u128 {
    bits | quiet_bit(kind).unwrap_or(0)
}

/// The NaN `APFloat` produces for an invalid operation: positive, quiet, no payload;
/// `None` for formats without NaN.
pub fn default_nan(kind: FloatKind) -> Option<u128> {
    let Some(fraction) = fraction_bits_with_quiet_bit(kind) else {
        // One NaN code per sign (or none): the positive one, as rounding a NaN finds it.
        return bits_from_f64(kind, f64::NAN).filter(|&b| is_nan(kind, b));
    };
    let exponent_bits = kind.width() - fraction - 1;
    let exponent = ((1u128 << exponent_bits) - 1) << fraction;
    let quiet = 1u128 << (fraction - 1);
    // x87 stores the integer bit explicitly; its NaNs have it set.
    let integer = if kind == FloatKind::F80 {
        1u128 << 63
    } else {
        0
    };
    Some(exponent | integer | quiet)
}

/// `a op b` in format `kind`, as raw bits, or `None` where `APFloat` would give a result
/// this evaluation cannot reproduce exactly (ordered arithmetic in `f80`/`f128`).
pub fn eval_binary(kind: FloatKind, op: FloatBinary, a: u128, b: u128) -> Option<u128> {
    let (x, y) = (bits_to_f64(kind, a), bits_to_f64(kind, b));
    let (a_nan, b_nan) = (is_nan(kind, a), is_nan(kind, b));
    use FloatBinary::*;
    match op {
        Add | Sub | Mul | Div | Rem => {
            // A NaN operand is the result, quieted: the left one when both are NaN,
            // whichever of them signals.
            if a_nan {
                return Some(quiet(kind, a));
            }
            if b_nan {
                return Some(quiet(kind, b));
            }
            let (x, y) = (x?, y?);
            // f64 holds every value of the formats up to 64 bits, and its 53 bits are
            // more than twice the precision of those up to f32 plus two, so one f64
            // operation rounded to the format is the correctly rounded result.
            let exact_in_f64 = kind == FloatKind::F64 || kind.width() <= 32;
            if !exact_in_f64 {
                return None;
            }
            let r = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                _ => x % y,
            };
            if r.is_nan() {
                return default_nan(kind);
            }
            bits_from_f64(kind, r)
        }
        Maximum | Minimum => {
            if a_nan {
                return Some(quiet(kind, a));
            }
            if b_nan {
                return Some(quiet(kind, b));
            }
            Some(pick_ordered(op == Maximum, a, x?, b, y?))
        }
        MaxNum | MinNum => {
            if is_signaling(kind, a) {
                return Some(quiet(kind, a));
            }
            if is_signaling(kind, b) {
                return Some(quiet(kind, b));
            }
            if a_nan {
                return Some(b);
            }
            if b_nan {
                return Some(a);
            }
            Some(pick_ordered(op == MaxNum, a, x?, b, y?))
        }
    }
}

/// `bits` of format `from` converted to format `to` when that loses nothing, as MLIR folds
/// `extf`/`truncf` (`APFloat::convert` reporting neither inexactness nor an invalid
/// operation): a quiet NaN keeps its sign and payload, shifted to the new fraction width,
/// unless payload bits would drop; a signaling NaN, a value the format cannot hold exactly,
/// or an infinity in a format without one, does not convert.
pub fn convert_exact(from: FloatKind, bits: u128, to: FloatKind) -> Option<u128> {
    if is_nan(from, bits) {
        let (f, t) = (
            fraction_bits_with_quiet_bit(from)?,
            fraction_bits_with_quiet_bit(to)?,
        );
        if is_signaling(from, bits) {
            return None;
        }
        let payload = bits & ((1u128 << f) - 1);
        let payload = if t >= f {
            payload << (t - f)
        } else {
            let dropped = f - t;
            if payload & ((1u128 << dropped) - 1) != 0 {
                return None;
            }
            payload >> dropped
        };
        let negative = (bits >> (from.width() - 1)) & 1 == 1;
        let sign = u128::from(negative) << (to.width() - 1);
        // The exponent field and (x87) integer bit of any NaN of `to`, without its payload.
        let nan = default_nan(to)? & !((1u128 << (t - 1)) | ((1u128 << t) - 1));
        return Some(sign | nan | payload);
    }
    let value = bits_to_f64(from, bits)?;
    let converted = bits_from_f64(to, value)?;
    let back = bits_to_f64(to, converted)?;
    (back.to_bits() == value.to_bits()).then_some(converted)
}

/// Precision and exponent range (`APFloat`'s semantics) of the wider IEEE-like formats.
fn semantics(kind: FloatKind) -> Option<(u32, i32, i32)> {
    Some(match kind {
        FloatKind::F16 => (11, 15, -14),
        FloatKind::BF16 => (8, 127, -126),
        FloatKind::TF32 => (11, 127, -126),
        FloatKind::F32 => (24, 127, -126),
        FloatKind::F64 => (53, 1023, -1022),
        FloatKind::F80 => (64, 16383, -16382),
        FloatKind::F128 => (113, 16383, -16382),
        _ => return None,
    })
}

/// Whether format `wide` holds every value of format `narrow` exactly (`APFloat`'s
/// `isRepresentableBy`); false for the small formats, which this does not model.
pub fn represents(wide: FloatKind, narrow: FloatKind) -> bool {
    match (semantics(wide), semantics(narrow)) {
        (Some((wp, wmax, wmin)), Some((np, nmax, nmin))) => {
            np <= wp && nmax <= wmax && nmin >= wmin
        }
        _ => false,
    }
}

/// The larger (or smaller) of two ordered values, +0 above -0; the left one on ties.
fn pick_ordered(max: bool, a: u128, x: f64, b: u128, y: f64) -> u128 {
    if x == 0.0 && y == 0.0 && x.is_sign_negative() != y.is_sign_negative() {
        let a_wins = x.is_sign_negative() != max;
        return if a_wins { a } else { b };
    }
    let b_wins = if max { x < y } else { y < x };
    if b_wins { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FloatBinary::*;
    use FloatKind::*;

    fn f32_op(op: FloatBinary, a: u32, b: u32) -> u32 {
        eval_binary(F32, op, a as u128, b as u128).unwrap() as u32
    }

    #[test]
    fn invalid_operations_give_the_positive_quiet_nan() {
        assert_eq!(f32_op(Div, 0, 0), 0x7FC0_0000);
        assert_eq!(f32_op(Sub, 0x7F80_0000, 0x7F80_0000), 0x7FC0_0000);
        assert_eq!(f32_op(Mul, 0, 0x7F80_0000), 0x7FC0_0000);
        assert_eq!(f32_op(Rem, 0x3F80_0000, 0), 0x7FC0_0000);
        let f16 = eval_binary(F16, Div, 0, 0);
        assert_eq!(f16, Some(0x7E00));
        assert_eq!(eval_binary(BF16, Div, 0, 0), Some(0x7FC0));
        assert_eq!(eval_binary(F64, Div, 0, 0), Some(0x7FF8_0000_0000_0000));
        assert_eq!(eval_binary(F8E5M2, Div, 0, 0), Some(0x7E));
        assert_eq!(eval_binary(F8E4M3FN, Div, 0, 0), Some(0x7F));
        assert_eq!(eval_binary(F8E4M3FNUZ, Div, 0, 0), Some(0x80));
    }

    #[test]
    fn nan_operands_propagate_quieted_left_first() {
        let one = 0x3F80_0000;
        assert_eq!(f32_op(Add, 0xFFC0_0001, one), 0xFFC0_0001);
        assert_eq!(f32_op(Sub, one, 0xFFC0_0001), 0xFFC0_0001);
        assert_eq!(f32_op(Add, 0x7F80_0001, one), 0x7FC0_0001);
        assert_eq!(f32_op(Add, 0xFF81_2345, 0x7FC0_0002), 0xFFC1_2345);
        assert_eq!(f32_op(Add, 0x7FC0_0002, 0xFF81_2345), 0x7FC0_0002);
        assert_eq!(eval_binary(F16, Add, 0x3C00, 0xFD01), Some(0xFF01));
    }

    #[test]
    fn min_max_follow_apfloat() {
        let one = 0x3F80_0000;
        assert_eq!(f32_op(Maximum, one, 0xFF81_2345), 0xFFC1_2345);
        assert_eq!(f32_op(Maximum, 0x7FC0_0002, 0xFFC0_0001), 0x7FC0_0002);
        assert_eq!(f32_op(MinNum, 0x7F80_0001, one), 0x7FC0_0001);
        assert_eq!(f32_op(MaxNum, 0x7FC0_0002, one), one);
        assert_eq!(f32_op(Minimum, 0, 0x8000_0000), 0x8000_0000);
        assert_eq!(f32_op(Maximum, 0x8000_0000, 0), 0);
        assert_eq!(f32_op(MinNum, 0x4000_0000, one), one);
    }

    #[test]
    fn conversions_fold_only_when_exact() {
        // 1/3 in f32 is not an f16; 0.5 is.
        assert_eq!(convert_exact(F32, 0x3EAA_AAAB, F16), None);
        assert_eq!(convert_exact(F32, 0x3F00_0000, F16), Some(0x3800));
        assert_eq!(convert_exact(F16, 0x3800, F32), Some(0x3F00_0000));
        // Quiet NaNs keep sign and payload; signaling ones and lost payload bits do not fold.
        assert_eq!(convert_exact(F16, 0xFE01, F32), Some(0xFFC0_2000));
        assert_eq!(convert_exact(F32, 0x7FC0_2000, F16), Some(0x7E01));
        assert_eq!(convert_exact(F32, 0x7FC0_0001, F16), None);
        assert_eq!(convert_exact(F16, 0x7D00, F32), None);
        assert_eq!(
            convert_exact(F32, 0x7FC0_0000, F64),
            Some(0x7FF8_0000_0000_0000)
        );
        // No infinity in f8E4M3FN.
        assert_eq!(convert_exact(F32, 0x7F80_0000, F8E4M3FN), None);
    }

    #[test]
    fn ordered_arithmetic_rounds_once_to_the_format() {
        // 0.1 + 0.1 in f16: 0x2E66 + 0x2E66 = 0x3266.
        assert_eq!(eval_binary(F16, Add, 0x2E66, 0x2E66), Some(0x3266));
        assert_eq!(f32_op(Rem, 0xBF80_0000, 0x3F80_0000), 0x8000_0000);
        // f128 ordered arithmetic is left to a wider evaluation.
        assert_eq!(eval_binary(F128, Add, 0, 0), None);
    }
}
