//! Bit-exact float formats for attributes.
//!
//! Float attribute values are stored as raw bit patterns of their type, as MLIR's
//! `APFloat` does. Decimal literals are read as `f64` and rounded into the target format
//! (what MLIR does too), and a value prints as a decimal only when that decimal reads back
//! to the same bits; everything else (NaN payloads, infinities, wide values) prints as hex.

use crate::types::FloatKind;

/// Layout of an IEEE-754-style binary format.
#[derive(Clone, Copy, Debug)]
struct Layout {
    exp_bits: u32,
    man_bits: u32,
    /// x87 extended precision stores the leading integer bit explicitly.
    explicit_int_bit: bool,
}

fn ieee_layout(kind: FloatKind) -> Option<Layout> {
    let (exp_bits, man_bits) = match kind {
        FloatKind::F16 => (5, 10),
        FloatKind::BF16 => (8, 7),
        FloatKind::TF32 => (8, 10),
        FloatKind::F32 => (8, 23),
        FloatKind::F64 => (11, 52),
        FloatKind::F128 => (15, 112),
        FloatKind::F80 => {
            return Some(Layout {
                exp_bits: 15,
                man_bits: 63,
                explicit_int_bit: true,
            });
        }
        _ => return None,
    };
    Some(Layout {
        exp_bits,
        man_bits,
        explicit_int_bit: false,
    })
}

/// How a small (4 to 8 bit) format spends its special encodings.
#[derive(Clone, Copy, PartialEq)]
enum Specials {
    /// IEEE: all-ones exponent is infinity or NaN.
    Ieee,
    /// "FN": no infinity; only the all-ones code (per sign) is NaN.
    FiniteAllOnesNan,
    /// "FNUZ": no infinity, no negative zero; the negative-zero code is NaN.
    FiniteNegZeroNan,
    /// Finite values only.
    Finite,
    /// E8M0FNU: unsigned powers of two; all-ones is NaN.
    UnsignedExponent,
}

fn small_layout(kind: FloatKind) -> Option<(u32, u32, i32, Specials)> {
    use FloatKind::*;
    Some(match kind {
        F8E5M2 => (5, 2, 15, Specials::Ieee),
        F8E4M3 => (4, 3, 7, Specials::Ieee),
        F8E3M4 => (3, 4, 3, Specials::Ieee),
        F8E4M3FN => (4, 3, 7, Specials::FiniteAllOnesNan),
        F8E5M2FNUZ => (5, 2, 16, Specials::FiniteNegZeroNan),
        F8E4M3FNUZ => (4, 3, 8, Specials::FiniteNegZeroNan),
        F8E4M3B11FNUZ => (4, 3, 11, Specials::FiniteNegZeroNan),
        F4E2M1FN => (2, 1, 1, Specials::Finite),
        F6E2M3FN => (2, 3, 1, Specials::Finite),
        F6E3M2FN => (3, 2, 3, Specials::Finite),
        F8E8M0FNU => (8, 0, 127, Specials::UnsignedExponent),
        _ => return None,
    })
}

/// The value of a small-format code; NaN for NaN codes.
fn small_value(kind: FloatKind, code: u32) -> Option<f64> {
    let (exp_bits, man_bits, bias, specials) = small_layout(kind)?;
    if specials == Specials::UnsignedExponent {
        return Some(if code == 0xff {
            f64::NAN
        } else {
            2f64.powi(code as i32 - bias)
        });
    }
    let sign = code >> (exp_bits + man_bits) & 1 == 1;
    let exp = (code >> man_bits) & ((1 << exp_bits) - 1);
    let man = code & ((1 << man_bits) - 1);
    let exp_max = (1 << exp_bits) - 1;
    match specials {
        Specials::Ieee if exp == exp_max => {
            return Some(if man == 0 {
                if sign {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                f64::NAN
            });
        }
        Specials::FiniteAllOnesNan if exp == exp_max && man == (1 << man_bits) - 1 => {
            return Some(f64::NAN);
        }
        Specials::FiniteNegZeroNan if sign && exp == 0 && man == 0 => return Some(f64::NAN),
        _ => {}
    }
    let magnitude = if exp == 0 {
        man as f64 * 2f64.powi(1 - bias - man_bits as i32)
    } else {
        (man | (1 << man_bits)) as f64 * 2f64.powi(exp as i32 - bias - man_bits as i32)
    };
    Some(if sign { -magnitude } else { magnitude })
}

/// Rounds to the nearest code of a small format (ties to the even code); out-of-range
/// values become infinity, NaN or the largest value, whichever the format has.
fn small_from_f64(kind: FloatKind, value: f64) -> Option<u128> {
    let (_, _, _, specials) = small_layout(kind)?;
    let codes = 1u32 << kind.width();
    let nan_code = (0..codes).find(|&c| small_value(kind, c).is_some_and(f64::is_nan));
    if value.is_nan() {
        return nan_code.map(u128::from);
    }
    let mut best: Option<(u32, f64)> = None;
    let mut max_finite = 0f64;
    for code in 0..codes {
        let v = small_value(kind, code)?;
        if v.is_nan()
            || v.is_infinite()
            || (v == 0.0 && v.is_sign_negative() != value.is_sign_negative() && value == 0.0)
        {
            continue;
        }
        max_finite = max_finite.max(v.abs());
        let d = (v - value).abs();
        best = match best {
            Some((c, bd)) if bd < d || (bd == d && c & 1 == 0) => Some((c, bd)),
            _ => Some((code, d)),
        };
    }
    // Beyond the largest value plus half an ulp the format overflows.
    if value.abs() > max_finite {
        let overflow = (0..codes).find(|&c| {
            small_value(kind, c).is_some_and(|v| {
                v.is_infinite() && v.is_sign_negative() == value.is_sign_negative()
            })
        });
        if let Some(c) = overflow.or(if specials == Specials::Finite {
            None
        } else {
            nan_code
        }) {
            let (_, d) = best?;
            if specials != Specials::Ieee || d > 0.0 {
                let ulp_half = max_finite
                    - small_value(kind, best?.0.saturating_sub(1))
                        .unwrap_or(0.0)
                        .abs();
                if (value.abs() - max_finite) >= ulp_half / 2.0 || specials != Specials::Ieee {
                    return Some(c as u128);
                }
            }
        }
    }
    best.map(|(c, _)| c as u128)
}

/// Rounds `value` to the nearest value of `kind` (ties to even) and returns its bits.
pub fn bits_from_f64(kind: FloatKind, value: f64) -> Option<u128> {
    if small_layout(kind).is_some() {
        return small_from_f64(kind, value);
    }
    let layout = ieee_layout(kind)?;
    if kind == FloatKind::F64 {
        return Some(value.to_bits() as u128);
    }
    let sign = (value.is_sign_negative() as u128)
        << (layout.exp_bits + layout.man_bits + layout.explicit_int_bit as u32);
    let exp_max = (1u128 << layout.exp_bits) - 1;
    let int_bit = if layout.explicit_int_bit {
        1u128 << layout.man_bits
    } else {
        0
    };
    if value.is_nan() {
        let quiet = 1u128 << (layout.man_bits - 1);
        return Some(
            sign | (exp_max << (layout.man_bits + layout.explicit_int_bit as u32))
                | int_bit
                | quiet,
        );
    }
    let exp_shift = layout.man_bits + layout.explicit_int_bit as u32;
    if value.is_infinite() {
        return Some(sign | (exp_max << exp_shift) | int_bit);
    }
    if value == 0.0 {
        return Some(sign);
    }
    // Decompose |value| = mant * 2^exp with mant a 53-bit integer.
    let bits = value.abs().to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i64;
    let raw_man = bits & ((1u64 << 52) - 1);
    let (mant, exp) = if raw_exp == 0 {
        (raw_man as u128, -1074i64)
    } else {
        ((raw_man | (1u64 << 52)) as u128, raw_exp - 1075)
    };
    let bias = (1i64 << (layout.exp_bits - 1)) - 1;
    let p = layout.man_bits as i64; // fraction bits
    // Position of the leading one: value in [2^e, 2^(e+1)).
    let lead = 127 - mant.leading_zeros() as i64 + exp;
    let min_normal_exp = 1 - bias;
    let target_exp = lead.max(min_normal_exp);
    // The unit in the last place of the result is 2^(target_exp - p).
    let ulp_exp = target_exp - p;
    let shift = ulp_exp - exp;
    let mut q: u128 = if shift <= 0 {
        mant << (-shift) as u32
    } else if shift >= 128 {
        0
    } else {
        let s = shift as u32;
        let truncated = mant >> s;
        let rem = mant & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        if rem > half || (rem == half && truncated & 1 == 1) {
            truncated + 1
        } else {
            truncated
        }
    };
    let mut biased = target_exp + bias;
    if q >> (p + 1) != 0 {
        // Rounding carried into a new binade.
        q >>= 1;
        biased += 1;
    }
    let normal = q >> p != 0;
    if !normal {
        biased = 0;
    }
    if biased >= exp_max as i64 {
        return Some(sign | (exp_max << exp_shift) | int_bit);
    }
    let frac = q & ((1u128 << p) - 1);
    let int = if layout.explicit_int_bit && normal {
        int_bit
    } else {
        0
    };
    Some(sign | ((biased as u128) << exp_shift) | int | frac)
}

/// The exact `f64` value of `bits`, when it has one (always for formats up to f64).
pub fn bits_to_f64(kind: FloatKind, bits: u128) -> Option<f64> {
    if small_layout(kind).is_some() {
        return if bits >> kind.width() == 0 {
            small_value(kind, bits as u32)
        } else {
            None
        };
    }
    let layout = ieee_layout(kind)?;
    if kind == FloatKind::F64 {
        return Some(f64::from_bits(bits as u64));
    }
    let exp_shift = layout.man_bits + layout.explicit_int_bit as u32;
    let sign = (bits >> (exp_shift + layout.exp_bits)) & 1 == 1;
    let biased = ((bits >> exp_shift) & ((1u128 << layout.exp_bits) - 1)) as i64;
    let frac = bits & ((1u128 << layout.man_bits) - 1);
    let exp_max = (1i64 << layout.exp_bits) - 1;
    let bias = (1i64 << (layout.exp_bits - 1)) - 1;
    let signed = |v: f64| if sign { -v } else { v };
    if biased == exp_max {
        return Some(if frac == 0 {
            signed(f64::INFINITY)
        } else {
            f64::NAN
        });
    }
    let (mant, e) = if biased == 0 {
        (frac, 1 - bias - layout.man_bits as i64)
    } else {
        (
            frac | (1u128 << layout.man_bits),
            biased - bias - layout.man_bits as i64,
        )
    };
    if mant == 0 {
        return Some(signed(0.0));
    }
    // Exact only if the significand fits in 53 bits and the exponent is in range.
    let significant = 128 - mant.leading_zeros() - mant.trailing_zeros();
    if significant > 53 {
        return None;
    }
    let tz = mant.trailing_zeros();
    let m = (mant >> tz) as f64;
    let e = e + tz as i64;
    if !(-1074..=971).contains(&e) {
        return None;
    }
    let v = m * 2f64.powi(e as i32);
    (v.is_finite() && v != 0.0).then(|| signed(v))
}

/// Formats an `f64` as the shortest MLIR float literal that reads back to the same value:
/// always with a `.` so it lexes as a float (`1.0`, `-2.5e-07`).
pub fn format_decimal(value: f64) -> String {
    let sci = format!("{value:e}"); // shortest round-trip digits, e.g. "1.5e-7"
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    if (-5..=15).contains(&exp) {
        // Plain positional notation reads better for everyday magnitudes.
        let plain = format!("{value}");
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

/// Significand precision in bits (including the implicit bit) of each format.
fn precision(kind: FloatKind) -> u32 {
    match kind {
        FloatKind::F16 | FloatKind::TF32 => 11,
        FloatKind::BF16 => 8,
        FloatKind::F32 => 24,
        FloatKind::F64 => 53,
        FloatKind::F80 => 64,
        FloatKind::F128 => 113,
        FloatKind::F8E8M0FNU => 1,
        k => small_layout(k).map_or(1, |(_, man, _, _)| man + 1),
    }
}

/// Whether decimal text reads back to exactly `bits` in `kind`.
fn reads_back(kind: FloatKind, text: &str, bits: u128) -> bool {
    text.parse::<f64>()
        .ok()
        .and_then(|v| bits_from_f64(kind, v))
        == Some(bits)
}

/// Formats a float attribute value the way MLIR does: `d.dddddde+XX` when six decimals
/// read back exactly, else the shortest digits the format's precision needs, else hex.
pub fn format_bits(kind: FloatKind, bits: u128) -> String {
    if let Some(v) = bits_to_f64(kind, bits)
        && v.is_finite()
        && bits_from_f64(kind, v) == Some(bits)
    {
        let short = exponent_form(&format!("{v:.6e}"), true);
        if reads_back(kind, &short, bits) {
            return short;
        }
        let digits = 2 + precision(kind) * 59 / 196;
        let full = significant_digits_form(v, digits as usize);
        if full.contains('.') && reads_back(kind, &full, bits) {
            return full;
        }
    }
    let digits = (kind.width() as usize).div_ceil(4);
    format!("0x{bits:0digits$X}")
}

/// Rust's `1.5e-7` exponent to MLIR's `1.5e-07` (or `E` without padding).
fn exponent_form(rust: &str, pad: bool) -> String {
    let (mantissa, exp) = rust.split_once('e').expect("exponent present");
    let exp: i32 = exp.parse().expect("integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    if pad {
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{mantissa}E{sign}{}", exp.abs())
    }
}

/// `value` with at most `precision` significant digits, trailing zeros dropped, in plain
/// notation when that needs at most three padding zeros, else as `d.dddE+X`.
fn significant_digits_form(value: f64, precision: usize) -> String {
    let sci = format!("{:.*e}", precision - 1, value.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent present");
    let exp10: i32 = exp.parse().expect("integer exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let n = digits.len() as i32;
    // `exp` is the power of ten of the last digit, as in LLVM's formatting.
    let exp = exp10 - (n - 1);
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let scientific = if exp >= 0 {
        exp > 3 || (n + exp) as usize > precision
    } else {
        exp10 < 0 && -exp10 > 3
    };
    if scientific {
        let rest = if n > 1 { &digits[1..] } else { "" };
        return format!(
            "{sign}{}.{rest}E{}{}",
            &digits[..1],
            if exp10 < 0 { '-' } else { '+' },
            exp10.abs()
        );
    }
    if exp >= 0 {
        return format!("{sign}{digits}{}", "0".repeat(exp as usize));
    }
    let whole = exp10 + 1;
    if whole > 0 {
        format!(
            "{sign}{}.{}",
            &digits[..whole as usize],
            &digits[whole as usize..]
        )
    } else {
        format!("{sign}0.{}{digits}", "0".repeat((-whole) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_through_f64() {
        for bits in 0u128..0x10000 {
            let v = bits_to_f64(FloatKind::F16, bits).unwrap();
            if v.is_nan() {
                continue;
            }
            assert_eq!(
                bits_from_f64(FloatKind::F16, v),
                Some(bits),
                "bits {bits:#x}"
            );
        }
    }

    #[test]
    fn f32_rounding_matches_hardware() {
        for v in [
            0.1f64,
            1.0 / 3.0,
            1e-40,
            3.4e38,
            3.5e38,
            -7.25,
            1e-46,
            2.0f64.powi(-149),
        ] {
            assert_eq!(
                bits_from_f64(FloatKind::F32, v),
                Some((v as f32).to_bits() as u128),
                "{v}"
            );
        }
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(bits_from_f64(FloatKind::BF16, 1.0), Some(0x3F80));
        assert_eq!(bits_from_f64(FloatKind::BF16, 1.00390625), Some(0x3F80)); // tie -> even
        assert_eq!(bits_from_f64(FloatKind::BF16, 1.01171875), Some(0x3F82)); // tie -> even (up)
    }

    #[test]
    fn f80_has_explicit_integer_bit() {
        assert_eq!(
            bits_from_f64(FloatKind::F80, 1.0),
            Some(0x3FFF_8000_0000_0000_0000)
        );
        assert_eq!(
            bits_to_f64(FloatKind::F80, 0x3FFF_8000_0000_0000_0000),
            Some(1.0)
        );
    }

    #[test]
    fn small_formats_round_trip_every_code() {
        for kind in FloatKind::ALL.into_iter().filter(|k| k.width() <= 8) {
            for code in 0..1u128 << kind.width() {
                let v = bits_to_f64(kind, code).unwrap();
                if v.is_nan() || (v == 0.0 && v.is_sign_negative()) {
                    continue;
                }
                assert_eq!(
                    bits_from_f64(kind, v),
                    Some(code),
                    "{kind:?} code {code:#x} value {v}"
                );
            }
        }
    }

    #[test]
    fn f8e4m3fn_has_no_infinity() {
        assert_eq!(bits_to_f64(FloatKind::F8E4M3FN, 0x7E), Some(448.0));
        assert!(bits_to_f64(FloatKind::F8E4M3FN, 0x7F).unwrap().is_nan());
        assert_eq!(bits_from_f64(FloatKind::F8E4M3FN, 448.0), Some(0x7E));
    }

    #[test]
    fn decimal_literals_always_have_a_point() {
        assert_eq!(format_decimal(1.0), "1.0");
        assert_eq!(format_decimal(-0.5), "-0.5");
        assert_eq!(format_decimal(1e-7), "1.0e-07");
        assert_eq!(format_decimal(1.5e300), "1.5e+300");
        assert_eq!(format_bits(FloatKind::F32, 0x7FC00000), "0x7FC00000");
    }

    #[test]
    fn attribute_floats_print_like_mlir() {
        let f64_bits = |v: f64| v.to_bits() as u128;
        assert_eq!(format_bits(FloatKind::F64, f64_bits(1.0)), "1.000000e+00");
        assert_eq!(format_bits(FloatKind::F64, f64_bits(0.1)), "1.000000e-01");
        assert_eq!(
            format_bits(FloatKind::F64, f64_bits(3.141592653589793)),
            "3.1415926535897931"
        );
        assert_eq!(format_bits(FloatKind::F32, 0x3DCCCCCD), "1.000000e-01");
        assert_eq!(
            format_bits(FloatKind::F64, f64_bits(1e-300)),
            "1.000000e-300"
        );
        assert_eq!(
            format_bits(FloatKind::F64, f64_bits(16777217.0)),
            "0x4170000010000000"
        );
    }
}
