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
    // Formats wider than f64 round the decimal itself, not an f64 near it: only an exact
    // decimal reads back for sure (the long form has enough digits to round-trip).
    if matches!(kind, FloatKind::F80 | FloatKind::F128) {
        return bits_to_f64(kind, bits).is_some_and(|v| decimal_is_exact(v, text));
    }
    // Round the decimal straight to the target format, as MLIR's check does; going through
    // f64 first can round differently (double rounding).
    if kind == FloatKind::F32 {
        return text.parse::<f32>().ok().map(|v| v.to_bits() as u128) == Some(bits);
    }
    text.parse::<f64>()
        .ok()
        .and_then(|v| bits_from_f64(kind, v))
        == Some(bits)
}

/// Formats a float attribute value the way MLIR does: six significant digits as
/// `d.dddddde+XX` when they read back exactly, else as many digits as the format's precision
/// needs (`0.333333343`, `8.99999984E-4`), else the hex bit pattern.
pub fn format_bits(kind: FloatKind, bits: u128) -> String {
    if let Some(v) = bits_to_f64(kind, bits)
        && v.is_finite()
        && bits_from_f64(kind, v) == Some(bits)
    {
        let (digits, exp) = decimal_digits(v, 6);
        let short = scientific_six(v.is_sign_negative(), &digits, exp);
        if reads_back(kind, &short, bits) {
            return short;
        }
        let precision = 2 + precision(kind) * 59 / 196;
        let (digits, exp) = decimal_digits(v, precision);
        let full = natural_form(v.is_sign_negative(), &digits, exp, precision);
        // The long form has enough digits to round-trip; for formats wider than f64 the
        // check below would need exact decimal arithmetic, so trust the digit count there.
        let wide = matches!(kind, FloatKind::F80 | FloatKind::F128);
        if full.contains('.') && (wide || reads_back(kind, &full, bits)) {
            return full;
        }
    }
    let digits = (kind.width() as usize).div_ceil(4);
    format!("0x{bits:0digits$X}")
}

/// The decimal digits of |value| (most significant first, no trailing zeros) and the power
/// of ten of the last one, limited to `precision` significant digits the way LLVM's float
/// printing limits them: low digits are first cut off while the exact integer is too wide,
/// then the rest rounds half up on the first dropped digit. Matching this rounding is what
/// makes our choice between the short and the long form the same as MLIR's.
fn decimal_digits(value: f64, precision: u32) -> (String, i64) {
    let bits = value.abs().to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i64;
    let raw_man = bits & ((1 << 52) - 1);
    let (mut man, mut exp2) = if raw_exp == 0 {
        (raw_man, -1074)
    } else {
        (raw_man | 1 << 52, raw_exp - 1075)
    };
    if man == 0 {
        return ("0".to_string(), 0);
    }
    let tz = man.trailing_zeros();
    man >>= tz;
    exp2 += i64::from(tz);
    // value = man * 2^exp2 = D * 10^exp10 with D an integer.
    let mut big = BigUint::from_u64(man);
    let mut exp10 = 0i64;
    if exp2 > 0 {
        big.shift_left(exp2 as u32);
    } else {
        for _ in 0..-exp2 {
            big.mul_small(5);
        }
        exp10 = exp2;
    }
    let mut digits = big.to_decimal();
    let bits_required = (precision as usize * 196).div_ceil(59);
    let active_bits = big.bit_len();
    if active_bits > bits_required {
        let removable = ((active_bits - bits_required) * 59 / 196).min(digits.len() - 1);
        digits.truncate(digits.len() - removable);
        exp10 += removable as i64;
    }
    let trimmed = digits.trim_end_matches('0').len();
    exp10 += (digits.len() - trimmed) as i64;
    digits.truncate(trimmed);
    let precision = precision as usize;
    if digits.len() > precision {
        let dropped = digits.len() - precision;
        let round_up = digits.as_bytes()[precision] >= b'5';
        digits.truncate(precision);
        exp10 += dropped as i64;
        if round_up {
            // Decimal add-with-carry; carried-out nines become trailing zeros and vanish.
            while digits.ends_with('9') {
                digits.pop();
                exp10 += 1;
            }
            match digits.pop() {
                Some(d) => digits.push((d as u8 + 1) as char),
                None => digits.push('1'),
            }
        }
        let trimmed = digits.trim_end_matches('0').len();
        exp10 += (digits.len() - trimmed) as i64;
        digits.truncate(trimmed);
    }
    (digits, exp10)
}

/// Whether `text` spells exactly `value` (rather than a decimal that merely rounds to it).
fn decimal_is_exact(value: f64, text: &str) -> bool {
    let (exact, exact_exp) = decimal_digits(value, 10_000);
    let mantissa_end = text.find(['e', 'E']).unwrap_or(text.len());
    let written_exp: i64 = text
        .get(mantissa_end + 1..)
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let mantissa = &text[..mantissa_end];
    let frac_len = mantissa.find('.').map_or(0, |p| mantissa.len() - p - 1) as i64;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_start_matches('0');
    let kept = trimmed.trim_end_matches('0');
    let exp = written_exp - frac_len + (trimmed.len() - kept.len()) as i64;
    (kept.is_empty() && exact == "0") || (kept == exact && exp == exact_exp)
}

/// `d.dddddde+XX`: exactly seven digits, zero-padded, and a two-digit exponent at least.
fn scientific_six(negative: bool, digits: &str, exp10: i64) -> String {
    let sign = if negative { "-" } else { "" };
    let e = exp10 + digits.len() as i64 - 1;
    let frac = format!("{:0<6}", &digits[1..]);
    format!(
        "{sign}{}.{frac}e{}{:02}",
        &digits[..1],
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

/// Plain notation when it needs at most three padding zeros, else `d.dddE+X`.
fn natural_form(negative: bool, digits: &str, exp: i64, precision: u32) -> String {
    let sign = if negative { "-" } else { "" };
    let n = digits.len() as i64;
    let msd = exp + n - 1;
    let scientific = if exp >= 0 {
        exp > 3 || n + exp > i64::from(precision)
    } else {
        msd < 0 && -msd > 3
    };
    if scientific {
        let rest = &digits[1..];
        return format!(
            "{sign}{}.{rest}E{}{}",
            &digits[..1],
            if msd < 0 { '-' } else { '+' },
            msd.abs()
        );
    }
    if exp >= 0 {
        return format!("{sign}{digits}{}", "0".repeat(exp as usize));
    }
    let whole = exp + n;
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

/// Just enough unsigned big-integer arithmetic for exact decimal expansion of an f64.
struct BigUint {
    /// Little-endian 32-bit limbs.
    limbs: Vec<u32>,
}

impl BigUint {
    fn from_u64(v: u64) -> BigUint {
        BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let p = u64::from(*limb) * u64::from(m) + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn shift_left(&mut self, bits: u32) {
        let (words, rest) = ((bits / 32) as usize, bits % 32);
        if rest != 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs {
                let next = *limb >> (32 - rest);
                *limb = (*limb << rest) | carry;
                carry = next;
            }
            if carry != 0 {
                self.limbs.push(carry);
            }
        }
        self.limbs.splice(0..0, std::iter::repeat_n(0, words));
    }

    fn bit_len(&self) -> usize {
        let top = self
            .limbs
            .iter()
            .rposition(|&l| l != 0)
            .map_or(0, |i| i + 1);
        if top == 0 {
            0
        } else {
            (top - 1) * 32 + (32 - self.limbs[top - 1].leading_zeros() as usize)
        }
    }

    /// Decimal digits, most significant first.
    fn to_decimal(&self) -> String {
        let mut limbs = self.limbs.clone();
        let mut chunks = Vec::new();
        while limbs.iter().any(|&l| l != 0) {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let cur = (rem << 32) | u64::from(*limb);
                *limb = (cur / 1_000_000_000) as u32;
                rem = cur % 1_000_000_000;
            }
            chunks.push(rem as u32);
        }
        let mut out = chunks
            .pop()
            .map_or_else(|| "0".to_string(), |c| c.to_string());
        for c in chunks.iter().rev() {
            out.push_str(&format!("{c:09}"));
        }
        out
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
    fn attribute_floats_print_like_mlir() {
        let f64_bits = |v: f64| v.to_bits() as u128;
        assert_eq!(format_bits(FloatKind::F64, f64_bits(1.0)), "1.000000e+00");
        assert_eq!(format_bits(FloatKind::F64, f64_bits(0.1)), "1.000000e-01");
        assert_eq!(
            format_bits(FloatKind::F64, f64_bits(std::f64::consts::PI)),
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
