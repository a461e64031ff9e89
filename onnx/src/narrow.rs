//! ONNX's narrow element types — the 8-bit floats, FLOAT4E2M1 and the 2- and 4-bit
//! integers — which the interpreter and the IR have no tensors of. They are emulated: a
//! narrow tensor is carried in a wider type the IR has (f32 for the floats, i8 or ui8 for the
//! integers) holding exactly the values the narrow type can hold. Reading one decodes each
//! element into its carrier; a `Cast` (or `QuantizeLinear`) to one rounds and saturates as
//! ONNX specifies, so every value a program computes is one the narrow type has.

use tb_interpreter::DType;
use tb_ir::FloatKind;

use crate::proto::tensor_proto::DataType;

/// A narrow ONNX element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NarrowType {
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E8M0,
    Float4E2M1,
    Int4,
    Uint4,
    Int2,
    Uint2,
}

/// What ONNX's rounding to a narrow float format needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatFormat {
    /// Explicit mantissa bits.
    pub mantissa_bits: i32,
    /// Exponent of the smallest normal number.
    pub min_exponent: i32,
    /// The largest finite value.
    pub max: f64,
    /// Whether the format has infinities (an overflow without saturation gives ±inf, else NaN).
    pub has_inf: bool,
    /// Whether the format has NaN (FLOAT4E2M1 has none: ONNX casts NaN to 0).
    pub has_nan: bool,
}

impl NarrowType {
    /// The narrow type of an ONNX data-type code, if it is one.
    pub fn from_onnx(code: i32) -> Option<NarrowType> {
        Some(match DataType::try_from(code).ok()? {
            DataType::Float8e4m3fn => NarrowType::Float8E4M3FN,
            DataType::Float8e4m3fnuz => NarrowType::Float8E4M3FNUZ,
            DataType::Float8e5m2 => NarrowType::Float8E5M2,
            DataType::Float8e5m2fnuz => NarrowType::Float8E5M2FNUZ,
            DataType::Float8e8m0 => NarrowType::Float8E8M0,
            DataType::Float4e2m1 => NarrowType::Float4E2M1,
            DataType::Int4 => NarrowType::Int4,
            DataType::Uint4 => NarrowType::Uint4,
            DataType::Int2 => NarrowType::Int2,
            DataType::Uint2 => NarrowType::Uint2,
            _ => return None,
        })
    }

    /// ONNX's name (`FLOAT8E4M3FN`, `INT4` ...).
    pub fn name(self) -> &'static str {
        match self {
            NarrowType::Float8E4M3FN => "FLOAT8E4M3FN",
            NarrowType::Float8E4M3FNUZ => "FLOAT8E4M3FNUZ",
            NarrowType::Float8E5M2 => "FLOAT8E5M2",
            NarrowType::Float8E5M2FNUZ => "FLOAT8E5M2FNUZ",
            NarrowType::Float8E8M0 => "FLOAT8E8M0",
            NarrowType::Float4E2M1 => "FLOAT4E2M1",
            NarrowType::Int4 => "INT4",
            NarrowType::Uint4 => "UINT4",
            NarrowType::Int2 => "INT2",
            NarrowType::Uint2 => "UINT2",
        }
    }

    /// The type whose tensors carry this type's values.
    pub fn carrier(self) -> DType {
        match self {
            NarrowType::Int4 | NarrowType::Int2 => DType::I8,
            NarrowType::Uint4 | NarrowType::Uint2 => DType::U8,
            _ => DType::F32,
        }
    }

    /// Bits per element in ONNX's packed storage.
    pub fn bits(self) -> usize {
        match self {
            NarrowType::Int2 | NarrowType::Uint2 => 2,
            NarrowType::Int4 | NarrowType::Uint4 | NarrowType::Float4E2M1 => 4,
            _ => 8,
        }
    }

    /// The smallest and largest value of an integer type.
    pub fn int_range(self) -> Option<(i64, i64)> {
        Some(match self {
            NarrowType::Int4 => (-8, 7),
            NarrowType::Uint4 => (0, 15),
            NarrowType::Int2 => (-2, 1),
            NarrowType::Uint2 => (0, 3),
            _ => return None,
        })
    }

    /// The rounding parameters of a float type that `Cast` can produce (all but FLOAT8E8M0,
    /// whose power-of-two rounding modes are not emulated).
    pub fn float_format(self) -> Option<FloatFormat> {
        let format = |mantissa_bits, min_exponent, max, has_inf, has_nan| FloatFormat {
            mantissa_bits,
            min_exponent,
            max,
            has_inf,
            has_nan,
        };
        Some(match self {
            NarrowType::Float8E4M3FN => format(3, -6, 448.0, false, true),
            NarrowType::Float8E4M3FNUZ => format(3, -7, 240.0, false, true),
            NarrowType::Float8E5M2 => format(2, -14, 57344.0, true, true),
            NarrowType::Float8E5M2FNUZ => format(2, -15, 57344.0, false, true),
            NarrowType::Float4E2M1 => format(1, 0, 6.0, false, false),
            _ => return None,
        })
    }

    /// The IR's float kind of a float type (used to decode its bit patterns).
    fn float_kind(self) -> Option<FloatKind> {
        Some(match self {
            NarrowType::Float8E4M3FN => FloatKind::F8E4M3FN,
            NarrowType::Float8E4M3FNUZ => FloatKind::F8E4M3FNUZ,
            NarrowType::Float8E5M2 => FloatKind::F8E5M2,
            NarrowType::Float8E5M2FNUZ => FloatKind::F8E5M2FNUZ,
            NarrowType::Float8E8M0 => FloatKind::F8E8M0FNU,
            NarrowType::Float4E2M1 => FloatKind::F4E2M1FN,
            _ => return None,
        })
    }

    /// The value of one element's bit pattern (the low `bits()` bits of `code`), in the
    /// carrier's range: a float, or a sign-extended integer.
    pub fn value_of(self, code: u8) -> f64 {
        let code = code & ((1u16 << self.bits()) - 1) as u8;
        match self.float_kind() {
            Some(kind) => tb_ir::float::bits_to_f64(kind, u128::from(code)).unwrap_or(f64::NAN),
            None => {
                let (lo, _) = self.int_range().expect("integer narrow types have a range");
                let width = self.bits();
                if lo < 0 && code >> (width - 1) == 1 {
                    f64::from(code) - (1u32 << width) as f64
                } else {
                    f64::from(code)
                }
            }
        }
    }
}

/// The element codes of `count` elements stored packed in `bytes` (first element in the
/// lowest bits), or `None` when `bytes` is not exactly the packed size.
pub fn unpack(narrow: NarrowType, bytes: &[u8], count: usize) -> Option<Vec<u8>> {
    let bits = narrow.bits();
    let per_byte = 8 / bits;
    if bytes.len() != count.div_ceil(per_byte) {
        return None;
    }
    let mask = ((1u16 << bits) - 1) as u8;
    Some(
        (0..count)
            .map(|i| (bytes[i / per_byte] >> ((i % per_byte) * bits)) & mask)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float8_codes_decode_to_their_values() {
        assert_eq!(NarrowType::Float8E4M3FN.value_of(0x7E), 448.0);
        assert!(NarrowType::Float8E4M3FN.value_of(0x7F).is_nan());
        assert_eq!(NarrowType::Float8E5M2.value_of(0x7C), f64::INFINITY);
        assert!(NarrowType::Float8E5M2FNUZ.value_of(0x80).is_nan());
        assert_eq!(NarrowType::Float4E2M1.value_of(0x7), 6.0);
        assert_eq!(NarrowType::Float4E2M1.value_of(0x9), -0.5);
    }

    #[test]
    fn sub_byte_integers_sign_extend() {
        assert_eq!(NarrowType::Int4.value_of(0x8), -8.0);
        assert_eq!(NarrowType::Int4.value_of(0x7), 7.0);
        assert_eq!(NarrowType::Uint4.value_of(0xF), 15.0);
        assert_eq!(NarrowType::Int2.value_of(0x3), -1.0);
        assert_eq!(NarrowType::Uint2.value_of(0x3), 3.0);
    }

    #[test]
    fn packed_elements_start_in_the_low_bits() {
        assert_eq!(
            unpack(NarrowType::Int4, &[0x21, 0x03], 3),
            Some(vec![1, 2, 3])
        );
        assert_eq!(
            unpack(NarrowType::Uint2, &[0b1110_0100], 4),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(unpack(NarrowType::Int4, &[0x21], 3), None);
    }
}
