//! Dense, row-major tensors with a static shape and one of the ONNX element types the
//! interpreter supports, with ONNX `Cast` conversions and a numpy-style `allclose`.

use std::fmt;

use half::{bf16, f16};

/// Element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    F16,
    BF16,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

impl DType {
    pub const ALL: [DType; 13] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
    ];

    /// MLIR spelling of the element type (`f32`, `bf16`, `i8`, `ui8`, `i1`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "ui8",
            DType::U16 => "ui16",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
            DType::Bool => "i1",
        }
    }

    /// Storage size of one element in bytes (bool takes one byte).
    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != DType::Bool
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The elements of a tensor, in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
}

/// Runs `$body` with `$v` bound to the typed element vector of a `TensorData` (by value, by
/// reference or mutably, whichever `$data` is); `$body` is instantiated once per element type.
#[macro_export]
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {{
        use $crate::tensor::TensorData as TD;
        match $data {
            TD::F32($v) => $body,
            TD::F64($v) => $body,
            TD::F16($v) => $body,
            TD::BF16($v) => $body,
            TD::I8($v) => $body,
            TD::I16($v) => $body,
            TD::I32($v) => $body,
            TD::I64($v) => $body,
            TD::U8($v) => $body,
            TD::U16($v) => $body,
            TD::U32($v) => $body,
            TD::U64($v) => $body,
            TD::Bool($v) => $body,
        }
    }};
}

/// Runs `$body` with the type alias `$t` set to the Rust element type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {{
        use $crate::tensor::DType as DT;
        match $dtype {
            DT::F32 => {
                type $t = f32;
                $body
            }
            DT::F64 => {
                type $t = f64;
                $body
            }
            DT::F16 => {
                type $t = half::f16;
                $body
            }
            DT::BF16 => {
                type $t = half::bf16;
                $body
            }
            DT::I8 => {
                type $t = i8;
                $body
            }
            DT::I16 => {
                type $t = i16;
                $body
            }
            DT::I32 => {
                type $t = i32;
                $body
            }
            DT::I64 => {
                type $t = i64;
                $body
            }
            DT::U8 => {
                type $t = u8;
                $body
            }
            DT::U16 => {
                type $t = u16;
                $body
            }
            DT::U32 => {
                type $t = u32;
                $body
            }
            DT::U64 => {
                type $t = u64;
                $body
            }
            DT::Bool => {
                type $t = bool;
                $body
            }
        }
    }};
}

pub use crate::with_data;

impl TensorData {
    pub fn dtype(&self) -> DType {
        match self {
            TensorData::F32(_) => DType::F32,
            TensorData::F64(_) => DType::F64,
            TensorData::F16(_) => DType::F16,
            TensorData::BF16(_) => DType::BF16,
            TensorData::I8(_) => DType::I8,
            TensorData::I16(_) => DType::I16,
            TensorData::I32(_) => DType::I32,
            TensorData::I64(_) => DType::I64,
            TensorData::U8(_) => DType::U8,
            TensorData::U16(_) => DType::U16,
            TensorData::U32(_) => DType::U32,
            TensorData::U64(_) => DType::U64,
            TensorData::Bool(_) => DType::Bool,
        }
    }

    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` zeros (false for bool).
    pub fn zeros(dtype: DType, n: usize) -> TensorData {
        with_dtype!(dtype, T => T::into_data(vec![T::default(); n]))
    }
}

/// A Rust type that can be the element type of a tensor, with the conversions ONNX `Cast`
/// needs. Integer targets wrap like C casts (as numpy does); float-to-integer truncates toward
/// zero (NaN gives 0, out-of-range values are unspecified by ONNX and saturate to `i128`
/// before wrapping); anything to bool is `!= 0` (NaN is true); bool is 0 or 1.
pub trait Element:
    Copy + PartialEq + PartialOrd + fmt::Debug + fmt::Display + Default + Send + Sync + 'static
{
    const DTYPE: DType;
    fn slice(data: &TensorData) -> Option<&[Self]>;
    fn slice_mut(data: &mut TensorData) -> Option<&mut Vec<Self>>;
    fn into_data(v: Vec<Self>) -> TensorData;
    fn to_f64(self) -> f64;
    /// Exact for integers and bool; floats truncate toward zero.
    fn to_i128(self) -> i128;
    fn from_f64(v: f64) -> Self;
    fn from_i128(v: i128) -> Self;
    fn is_nan(self) -> bool {
        false
    }
    /// Smallest and largest finite-or-infinite values (-inf/+inf for floats): the identities
    /// of max and min.
    fn lowest() -> Self;
    fn highest() -> Self;
}

macro_rules! element_common {
    ($t:ty, $variant:ident) => {
        const DTYPE: DType = DType::$variant;
        fn slice(data: &TensorData) -> Option<&[Self]> {
            match data {
                TensorData::$variant(v) => Some(v),
                _ => None,
            }
        }
        fn slice_mut(data: &mut TensorData) -> Option<&mut Vec<Self>> {
            match data {
                TensorData::$variant(v) => Some(v),
                _ => None,
            }
        }
        fn into_data(v: Vec<Self>) -> TensorData {
            TensorData::$variant(v)
        }
    };
}

macro_rules! int_element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            element_common!($t, $variant);
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_i128(self) -> i128 {
                self as i128
            }
            fn from_f64(v: f64) -> Self {
                // `as i128` truncates toward zero, maps NaN to 0 and saturates.
                (v as i128) as $t
            }
            fn from_i128(v: i128) -> Self {
                v as $t
            }
            fn lowest() -> Self {
                <$t>::MIN
            }
            fn highest() -> Self {
                <$t>::MAX
            }
        }
    };
}

int_element!(i8, I8);
int_element!(i16, I16);
int_element!(i32, I32);
int_element!(i64, I64);
int_element!(u8, U8);
int_element!(u16, U16);
int_element!(u32, U32);
int_element!(u64, U64);

impl Element for f32 {
    element_common!(f32, F32);
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn from_i128(v: i128) -> Self {
        v as f32
    }
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn lowest() -> Self {
        Self::NEG_INFINITY
    }
    fn highest() -> Self {
        Self::INFINITY
    }
}

impl Element for f64 {
    element_common!(f64, F64);
    fn to_f64(self) -> f64 {
        self
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn from_i128(v: i128) -> Self {
        v as f64
    }
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn lowest() -> Self {
        Self::NEG_INFINITY
    }
    fn highest() -> Self {
        Self::INFINITY
    }
}

macro_rules! half_element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            element_common!($t, $variant);
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            fn to_i128(self) -> i128 {
                <$t>::to_f64(self) as i128
            }
            // Round to nearest even. The half crate's own conversion from f64 drops the low
            // mantissa bits before rounding (a value just above a tie rounds down), so the
            // value goes through f32 rounded to odd, which keeps every bit that matters.
            fn from_f64(v: f64) -> Self {
                <$t>::from_f32(f64_to_f32_round_to_odd(v))
            }
            fn from_i128(v: i128) -> Self {
                <$t>::from_f32(f64_to_f32_round_to_odd(i128_to_f64_round_to_odd(v)))
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn lowest() -> Self {
                <$t>::NEG_INFINITY
            }
            fn highest() -> Self {
                <$t>::INFINITY
            }
        }
    };
}

/// `x` as an `f32` rounded to odd: truncated toward zero, with the lowest mantissa bit set
/// when anything was lost. Rounding that to a format with at least two fewer mantissa bits
/// (f16, bf16) to nearest even gives the correctly rounded result: no double rounding.
pub fn f64_to_f32_round_to_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if x.is_nan() || f64::from(nearest) == x {
        return nearest;
    }
    let mut bits = nearest.to_bits();
    if f64::from(nearest).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `v` as an `f64` rounded to odd (see [`f64_to_f32_round_to_odd`]); exact below 2^53.
fn i128_to_f64_round_to_odd(v: i128) -> f64 {
    let nearest = v as f64;
    // 2^127 is the one rounding result outside i128 (where `as i128` saturates).
    let overflowed = nearest == 2f64.powi(127);
    if !overflowed && nearest as i128 == v {
        return nearest;
    }
    let mut bits = nearest.to_bits();
    if overflowed || (nearest as i128).unsigned_abs() > v.unsigned_abs() {
        bits -= 1;
    }
    f64::from_bits(bits | 1)
}

half_element!(f16, F16);
half_element!(bf16, BF16);

impl Element for bool {
    element_common!(bool, Bool);
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i128(v: i128) -> Self {
        v != 0
    }
    fn lowest() -> Self {
        false
    }
    fn highest() -> Self {
        true
    }
}

/// Converts with ONNX `Cast` semantics (see [`Element`]).
pub fn convert<S: Element, D: Element>(src: &[S]) -> Vec<D> {
    if S::DTYPE.is_float() {
        src.iter().map(|&x| D::from_f64(x.to_f64())).collect()
    } else {
        src.iter().map(|&x| D::from_i128(x.to_i128())).collect()
    }
}

/// A malformed tensor (element count vs shape, wrong element type ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorError(pub String);

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TensorError {}

/// Why `allclose` failed: shape or dtype differences, or the first element out of tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Multi-dimensional index of the first mismatching element, if the shapes agree.
    pub index: Option<Vec<i64>>,
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Mismatch {}

/// A dense row-major tensor. The element count always equals the product of the shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    shape: Vec<i64>,
    data: TensorData,
}

/// Number of elements of a shape, or an error for negative or overflowing dimensions.
pub(crate) fn checked_numel(shape: &[i64]) -> Result<usize, TensorError> {
    let mut n: usize = 1;
    for &d in shape {
        if d < 0 {
            return Err(TensorError(format!(
                "shape {shape:?} has a negative dimension"
            )));
        }
        n = n
            .checked_mul(d as usize)
            .ok_or_else(|| TensorError(format!("shape {shape:?} has too many elements")))?;
    }
    Ok(n)
}

impl Tensor {
    /// Checks that `data` holds exactly as many elements as `shape` describes.
    pub fn new(shape: Vec<i64>, data: TensorData) -> Result<Tensor, TensorError> {
        let n = checked_numel(&shape)?;
        if n != data.len() {
            return Err(TensorError(format!(
                "shape {shape:?} needs {n} elements but {} {} were given",
                data.len(),
                data.dtype()
            )));
        }
        Ok(Tensor { shape, data })
    }

    pub fn from_vec<T: Element>(shape: Vec<i64>, v: Vec<T>) -> Result<Tensor, TensorError> {
        Tensor::new(shape, T::into_data(v))
    }

    /// A rank-0 tensor.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor {
            shape: vec![],
            data: T::into_data(vec![v]),
        }
    }

    /// A 1-D tensor.
    pub fn vector<T: Element>(v: Vec<T>) -> Tensor {
        Tensor {
            shape: vec![v.len() as i64],
            data: T::into_data(v),
        }
    }

    pub fn zeros(dtype: DType, shape: Vec<i64>) -> Result<Tensor, TensorError> {
        let n = checked_numel(&shape)?;
        Ok(Tensor {
            shape,
            data: TensorData::zeros(dtype, n),
        })
    }

    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.data.len()
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn data(&self) -> &TensorData {
        &self.data
    }

    pub fn into_data(self) -> TensorData {
        self.data
    }

    pub fn into_parts(self) -> (Vec<i64>, TensorData) {
        (self.shape, self.data)
    }

    /// The elements as `&[T]`, or `None` if `T` is not the element type.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }

    /// The elements as `&[T]`, or an error naming both types.
    pub fn typed<T: Element>(&self) -> Result<&[T], TensorError> {
        T::slice(&self.data).ok_or_else(|| {
            TensorError(format!(
                "expected a {} tensor, got {}",
                T::DTYPE,
                self.dtype()
            ))
        })
    }

    /// Same elements, another shape with the same element count.
    pub fn reshape(self, shape: Vec<i64>) -> Result<Tensor, TensorError> {
        Tensor::new(shape, self.data)
    }

    /// All elements converted to f64.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        with_data!(&self.data, v => v.iter().map(|x| x.to_f64()).collect())
    }

    /// The elements of an integer tensor as i64 (shape, axes, indices and pads inputs).
    pub fn to_i64_vec(&self) -> Result<Vec<i64>, TensorError> {
        if !self.dtype().is_int() {
            return Err(TensorError(format!(
                "expected an integer tensor, got {}",
                self.dtype()
            )));
        }
        Ok(with_data!(&self.data, v => v.iter().map(|x| x.to_i128() as i64).collect()))
    }

    /// ONNX `Cast` to `dtype`.
    pub fn cast(&self, dtype: DType) -> Tensor {
        let data = with_data!(&self.data, src => with_dtype!(dtype, D => D::into_data(convert::<_, D>(src))));
        Tensor {
            shape: self.shape.clone(),
            data,
        }
    }

    /// Row-major multi-index of flat position `flat`.
    pub fn unravel(&self, mut flat: usize) -> Vec<i64> {
        let mut idx = vec![0i64; self.rank()];
        for (i, &d) in self.shape.iter().enumerate().rev() {
            let d = d.max(1) as usize;
            idx[i] = (flat % d) as i64;
            flat /= d;
        }
        idx
    }

    /// Like `numpy.testing.assert_allclose(self, expected, rtol, atol)`: every element must
    /// satisfy `|actual - expected| <= atol + rtol * |expected|`; NaNs compare equal to NaNs
    /// and infinities only to the same infinity. Shapes and dtypes must be identical.
    pub fn allclose(&self, expected: &Tensor, rtol: f64, atol: f64) -> Result<(), Mismatch> {
        if self.shape != expected.shape {
            return Err(Mismatch {
                index: None,
                message: format!(
                    "shape mismatch: actual {:?}, expected {:?}",
                    self.shape, expected.shape
                ),
            });
        }
        if self.dtype() != expected.dtype() {
            return Err(Mismatch {
                index: None,
                message: format!(
                    "dtype mismatch: actual {}, expected {}",
                    self.dtype(),
                    expected.dtype()
                ),
            });
        }
        let exact = !self.dtype().is_float();
        let (a, e) = if exact {
            (vec![], vec![])
        } else {
            (self.to_f64_vec(), expected.to_f64_vec())
        };
        let ints = |t: &Tensor| -> Vec<i128> {
            with_data!(&t.data, v => v.iter().map(|x| x.to_i128()).collect())
        };
        let (ai, ei) = if exact {
            (ints(self), ints(expected))
        } else {
            (vec![], vec![])
        };
        let mut first: Option<usize> = None;
        let mut count = 0usize;
        let mut max_diff = 0f64;
        for i in 0..self.numel() {
            let (x, y, diff) = if exact {
                let d = (ai[i] - ei[i]).unsigned_abs() as f64;
                (ai[i] as f64, ei[i] as f64, d)
            } else {
                (a[i], e[i], (a[i] - e[i]).abs())
            };
            // Infinities must match exactly: the tolerance would be infinite too.
            let same = if exact { ai[i] == ei[i] } else { x == y };
            let ok = same
                || (x.is_nan() && y.is_nan())
                || (x.is_finite() && y.is_finite() && diff <= atol + rtol * y.abs());
            if !ok {
                count += 1;
                first.get_or_insert(i);
                if diff.is_nan() || diff > max_diff {
                    max_diff = diff;
                }
            }
        }
        let Some(i) = first else { return Ok(()) };
        let index = self.unravel(i);
        let (x, y) = if exact {
            (ai[i].to_string(), ei[i].to_string())
        } else {
            (a[i].to_string(), e[i].to_string())
        };
        Err(Mismatch {
            message: format!(
                "not close (rtol={rtol}, atol={atol}): {count} of {} elements differ, max |diff| {max_diff}; \
                 first at index {index:?}: actual {x}, expected {y}",
                self.numel()
            ),
            index: Some(index),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_checks_counts() {
        assert!(Tensor::from_vec(vec![2, 3], vec![0f32; 6]).is_ok());
        let e = Tensor::from_vec(vec![2, 3], vec![0f32; 5]).unwrap_err();
        assert_eq!(e.0, "shape [2, 3] needs 6 elements but 5 f32 were given");
        assert!(
            Tensor::from_vec(vec![-1], Vec::<f32>::new())
                .unwrap_err()
                .0
                .contains("negative")
        );
        assert!(
            Tensor::zeros(DType::F32, vec![i64::MAX, i64::MAX])
                .unwrap_err()
                .0
                .contains("too many")
        );
        let s = Tensor::scalar(3i8);
        assert_eq!((s.shape(), s.numel(), s.dtype()), (&[][..], 1, DType::I8));
        let z = Tensor::zeros(DType::Bool, vec![2, 0]).unwrap();
        assert_eq!(z.numel(), 0);
        assert_eq!(Tensor::vector(vec![1u16, 2]).shape(), &[2]);
        assert!(
            Tensor::vector(vec![1u16])
                .typed::<u32>()
                .unwrap_err()
                .0
                .contains("expected a ui32 tensor, got ui16")
        );
        assert_eq!(
            Tensor::vector(vec![1u16, 2])
                .reshape(vec![1, 2])
                .unwrap()
                .shape(),
            &[1, 2]
        );
        assert!(Tensor::vector(vec![1u16, 2]).reshape(vec![3]).is_err());
    }

    #[test]
    fn zeros_of_every_dtype() {
        for d in DType::ALL {
            let t = Tensor::zeros(d, vec![2, 2]).unwrap();
            assert_eq!((t.dtype(), t.numel()), (d, 4));
            assert_eq!(t.to_f64_vec(), vec![0.0; 4]);
        }
    }

    #[test]
    fn cast_semantics() {
        let x = Tensor::vector(vec![-2.7f32, -0.5, 0.0, 0.5, 2.7, 300.0, f32::NAN]);
        assert_eq!(
            x.cast(DType::I32).typed::<i32>().unwrap(),
            &[-2, 0, 0, 0, 2, 300, 0]
        );
        // 300 wraps in int8 like a C cast through a wider integer.
        assert_eq!(x.cast(DType::I8).typed::<i8>().unwrap()[5], 44);
        assert_eq!(
            x.cast(DType::Bool).typed::<bool>().unwrap(),
            &[true, true, false, true, true, true, true]
        );
        let i = Tensor::vector(vec![-1i64, 256, 65537]);
        assert_eq!(i.cast(DType::U8).typed::<u8>().unwrap(), &[255, 0, 1]);
        assert_eq!(i.cast(DType::U64).typed::<u64>().unwrap()[0], u64::MAX);
        assert_eq!(i.cast(DType::F16).typed::<f16>().unwrap()[2], f16::INFINITY);
        let b = Tensor::vector(vec![true, false]);
        assert_eq!(b.cast(DType::F32).typed::<f32>().unwrap(), &[1.0, 0.0]);
        // f32 -> f16 rounds to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
        let h = Tensor::vector(vec![1.0f32 + 2f32.powi(-11), 1.0 + 3.0 * 2f32.powi(-11)]);
        let hv = h.cast(DType::F16);
        assert_eq!(
            hv.typed::<f16>().unwrap(),
            &[
                f16::from_f32(1.0),
                f16::from_f32(1.0 + 2.0 * 2f32.powi(-10))
            ]
        );
        let bf = Tensor::vector(vec![1.0f32 + 2f32.powi(-8)]).cast(DType::BF16);
        assert_eq!(bf.typed::<bf16>().unwrap()[0], bf16::from_f32(1.0));
        // u64 beyond 2^53 keeps its exact value through integer casts.
        let big = Tensor::vector(vec![u64::MAX - 1]);
        assert_eq!(big.cast(DType::I64).typed::<i64>().unwrap()[0], -2);
        assert_eq!(
            Tensor::vector(vec![1.9f64]).to_i64_vec().unwrap_err().0,
            "expected an integer tensor, got f64"
        );
        assert_eq!(Tensor::vector(vec![7u32]).to_i64_vec().unwrap(), vec![7]);
    }

    #[test]
    fn allclose_reports_first_mismatch() {
        let a = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, f32::NAN]).unwrap();
        let b = Tensor::from_vec(vec![2, 2], vec![1.0005f32, 2.0, 3.0, f32::NAN]).unwrap();
        assert!(a.allclose(&b, 1e-3, 1e-7).is_ok());
        let c = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.5, 3.5, 0.0]).unwrap();
        let m = a.allclose(&c, 1e-3, 1e-7).unwrap_err();
        assert_eq!(m.index, Some(vec![0, 1]));
        assert!(
            m.message.contains("3 of 4 elements differ"),
            "{}",
            m.message
        );
        assert!(
            m.message.contains("actual 2, expected 2.5"),
            "{}",
            m.message
        );
        let inf = Tensor::vector(vec![f64::INFINITY]);
        assert!(inf.allclose(&inf, 0.0, 0.0).is_ok());
        assert!(
            inf.allclose(&Tensor::vector(vec![f64::NEG_INFINITY]), 1.0, 1.0)
                .is_err()
        );
        assert!(
            a.allclose(&a.clone().reshape(vec![4]).unwrap(), 1e-3, 0.0)
                .unwrap_err()
                .message
                .contains("shape")
        );
        assert!(
            a.allclose(&a.cast(DType::F64), 1e-3, 0.0)
                .unwrap_err()
                .message
                .contains("dtype")
        );
        let i = Tensor::vector(vec![i64::MAX, 5]);
        let j = Tensor::vector(vec![i64::MAX - 1, 5]);
        assert_eq!(i.allclose(&j, 0.0, 0.0).unwrap_err().index, Some(vec![0]));
        assert!(i.allclose(&i, 0.0, 0.0).is_ok());
    }

    #[test]
    fn half_conversions_round_values_just_above_a_tie_up() {
        // 1 + 2^-11 is halfway between two f16 values; anything above it rounds up, even
        // when the excess lies in the low 32 bits of the f64 mantissa.
        let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(
            f16::from_f64(above_tie).to_f64(),
            1.0,
            "half's own rounding"
        );
        assert_eq!(
            <f16 as Element>::from_f64(above_tie).to_f64(),
            1.0 + 2f64.powi(-10)
        );
        let above_tie = 1.0 + 2f64.powi(-8) + 2f64.powi(-45);
        assert_eq!(
            <bf16 as Element>::from_f64(above_tie).to_f64(),
            1.0 + 2f64.powi(-7)
        );
        assert_eq!(
            <bf16 as Element>::from_f64(1.0 + 2f64.powi(-8)).to_f64(),
            1.0
        );
    }

    #[test]
    fn half_conversions_from_wide_integers_round_once() {
        // 2^60 + 2^52 + 1 rounds to f64 as 2^60 + 2^52, a bf16 tie that would go to even;
        // the true value is above the tie.
        let v: i128 = (1 << 60) + (1 << 52) + 1;
        assert_eq!(
            <bf16 as Element>::from_i128(v).to_f64(),
            2f64.powi(60) + 2f64.powi(53)
        );
        assert_eq!(
            <bf16 as Element>::from_i128(-v).to_f64(),
            -(2f64.powi(60) + 2f64.powi(53))
        );
        assert_eq!(
            <bf16 as Element>::from_i128(i128::MIN).to_f64(),
            -(2f64.powi(127))
        );
        assert_eq!(
            <f16 as Element>::from_i128(i128::MAX).to_f64(),
            f64::INFINITY
        );
        assert_eq!(<f16 as Element>::from_i128(2049).to_f64(), 2048.0);
        assert_eq!(<f16 as Element>::from_i128(2051).to_f64(), 2052.0);
    }
}
