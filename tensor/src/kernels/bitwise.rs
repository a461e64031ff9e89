//! Bitwise operators on integer tensors: BitwiseAnd/Or/Xor with numpy broadcasting,
//! BitwiseNot, and BitShift (unsigned integers only, as ONNX defines it; a shift by the
//! element width or more gives 0, as numpy's `left_shift`/`right_shift` do).

use super::index::broadcast_map2;
use super::{KernelResult, fail, make, output_count, same_dtype};
use crate::shape;
use crate::tensor::{Element, Tensor, with_data};

/// A binary bitwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bitwise {
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRight,
}

impl Bitwise {
    pub fn name(self) -> &'static str {
        match self {
            Bitwise::And => "BitwiseAnd",
            Bitwise::Or => "BitwiseOr",
            Bitwise::Xor => "BitwiseXor",
            Bitwise::ShiftLeft | Bitwise::ShiftRight => "BitShift",
        }
    }

    fn is_shift(self) -> bool {
        matches!(self, Bitwise::ShiftLeft | Bitwise::ShiftRight)
    }
}

/// Applies a binary bitwise operator to two integer tensors of one dtype.
pub fn bitwise(a: &Tensor, b: &Tensor, op: Bitwise) -> KernelResult {
    let name = op.name();
    let dt = same_dtype(name, &[a, b])?;
    if !dt.is_int() {
        return fail(name, format!("expected integer tensors, got {dt}"));
    }
    if op.is_shift() && dt.is_signed_int() {
        return fail(name, format!("expected unsigned integer tensors, got {dt}"));
    }
    let out = shape::broadcast(name, &[a.shape(), b.shape()])?;
    output_count(name, &out)?;
    let bits = (dt.size_in_bytes() * 8) as i128;
    fn go<T: Element>(
        a: &[T],
        ash: &[i64],
        b: &Tensor,
        out: &[i64],
        op: Bitwise,
        bits: i128,
    ) -> Vec<T> {
        let (b, bsh) = (b.as_slice::<T>().unwrap_or_default(), b.shape());
        broadcast_map2(a, ash, b, bsh, out, |x, y| {
            let (x, y) = (x.to_i128(), y.to_i128());
            // The i128 result wraps back to the element type.
            T::from_i128(match op {
                Bitwise::And => x & y,
                Bitwise::Or => x | y,
                Bitwise::Xor => x ^ y,
                Bitwise::ShiftLeft if y < bits => x << y,
                Bitwise::ShiftRight if y < bits => x >> y,
                Bitwise::ShiftLeft | Bitwise::ShiftRight => 0,
            })
        })
    }
    let data = with_data!(a.data(), v => Element::into_data(go(v, a.shape(), b, &out, op, bits)));
    make(name, out, data)
}

/// BitwiseNot of an integer tensor.
pub fn bitwise_not(x: &Tensor) -> KernelResult {
    const OP: &str = "BitwiseNot";
    let dt = x.dtype();
    if !dt.is_int() {
        return fail(OP, format!("expected an integer tensor, got {dt}"));
    }
    fn go<T: Element>(v: &[T]) -> Vec<T> {
        v.iter().map(|&a| T::from_i128(!a.to_i128())).collect()
    }
    let data = with_data!(x.data(), v => Element::into_data(go(v)));
    make(OP, x.shape().to_vec(), data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::TensorData;

    fn u8s(shape: &[i64], v: &[u8]) -> Tensor {
        Tensor::new(shape.to_vec(), TensorData::U8(v.to_vec())).unwrap()
    }

    #[test]
    fn and_or_xor_broadcast() {
        let a = u8s(&[2, 2], &[0b1100, 0b1010, 0xff, 0]);
        let b = u8s(&[2], &[0b1010, 0b0110]);
        let and = bitwise(&a, &b, Bitwise::And).unwrap();
        assert_eq!(and.data(), &TensorData::U8(vec![0b1000, 0b0010, 0b1010, 0]));
        let or = bitwise(&a, &b, Bitwise::Or).unwrap();
        assert_eq!(
            or.data(),
            &TensorData::U8(vec![0b1110, 0b1110, 0xff, 0b0110])
        );
        let xor = bitwise(&a, &b, Bitwise::Xor).unwrap();
        assert_eq!(
            xor.data(),
            &TensorData::U8(vec![0b0110, 0b1100, 0xf5, 0b0110])
        );
    }

    #[test]
    fn shifts_past_the_width_give_zero() {
        let a = u8s(&[4], &[1, 0x80, 0xff, 3]);
        let s = u8s(&[4], &[7, 1, 8, 200]);
        let left = bitwise(&a, &s, Bitwise::ShiftLeft).unwrap();
        assert_eq!(left.data(), &TensorData::U8(vec![0x80, 0, 0, 0]));
        let right = bitwise(&a, &s, Bitwise::ShiftRight).unwrap();
        assert_eq!(right.data(), &TensorData::U8(vec![0, 0x40, 0, 0]));
    }

    #[test]
    fn signed_shifts_and_float_operands_are_errors() {
        let i = Tensor::new(vec![1], TensorData::I32(vec![1])).unwrap();
        let e = bitwise(&i, &i, Bitwise::ShiftLeft).unwrap_err();
        assert!(e.message.contains("unsigned"), "{e}");
        let f = Tensor::new(vec![1], TensorData::F32(vec![1.0])).unwrap();
        assert!(bitwise(&f, &f, Bitwise::And).is_err());
        assert!(bitwise_not(&f).is_err());
    }

    #[test]
    fn not_flips_every_bit() {
        let i = Tensor::new(vec![3], TensorData::I16(vec![0, -1, 5])).unwrap();
        let n = bitwise_not(&i).unwrap();
        assert_eq!(n.data(), &TensorData::I16(vec![-1, 0, -6]));
        let n = bitwise_not(&u8s(&[1], &[5])).unwrap();
        assert_eq!(n.data(), &TensorData::U8(vec![250]));
    }
}
