//! Run-time values of the IR interpreter: scalars, tensors (also used for vectors) and
//! buffers, and the mapping from MLIR element types to the interpreter's dtypes.

use tb_ir::{Context, FloatKind, Signedness, Type, TypeKind};

use super::buffer::Buffer;
use crate::tensor::{DType, Element, Tensor, TensorData, with_data};

/// An MLIR scalar type the interpreter computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    Int { width: u32, unsigned: bool },
    Index,
    Float(FloatKind),
}

impl ElemType {
    /// The scalar type `ty`, or the element type of a shaped `ty`.
    pub fn of(ctx: &Context, ty: Type) -> Result<ElemType, String> {
        let scalar = match ctx.type_kind(ty) {
            TypeKind::RankedTensor { element, .. }
            | TypeKind::UnrankedTensor { element }
            | TypeKind::MemRef { element, .. }
            | TypeKind::UnrankedMemRef { element, .. }
            | TypeKind::Vector { element, .. } => *element,
            _ => ty,
        };
        match ctx.type_kind(scalar) {
            TypeKind::Integer { width, signedness } if *width <= 64 => Ok(ElemType::Int {
                width: *width,
                unsigned: *signedness == Signedness::Unsigned,
            }),
            TypeKind::Index => Ok(ElemType::Index),
            TypeKind::Float(
                kind @ (FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64),
            ) => Ok(ElemType::Float(*kind)),
            _ => Err(format!(
                "element type {} is not supported by the interpreter",
                tb_ir::printer::type_to_string(ctx, scalar)
            )),
        }
    }

    /// Bit width (index is 64 bits).
    pub fn width(self) -> u32 {
        match self {
            ElemType::Int { width, .. } => width,
            ElemType::Index => 64,
            ElemType::Float(FloatKind::F16 | FloatKind::BF16) => 16,
            ElemType::Float(FloatKind::F32) => 32,
            ElemType::Float(_) => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::Float(_))
    }

    /// The dtype tensors and buffers of this element type store.
    pub fn dtype(self) -> Result<DType, String> {
        Ok(match self {
            ElemType::Int { width: 1, .. } => DType::Bool,
            ElemType::Int {
                width,
                unsigned: false,
            } => match width {
                8 => DType::I8,
                16 => DType::I16,
                32 => DType::I32,
                64 => DType::I64,
                _ => {
                    return Err(format!(
                        "i{width} tensors are not supported by the interpreter"
                    ));
                }
            },
            ElemType::Int {
                width,
                unsigned: true,
            } => match width {
                8 => DType::U8,
                16 => DType::U16,
                32 => DType::U32,
                64 => DType::U64,
                _ => {
                    return Err(format!(
                        "ui{width} tensors are not supported by the interpreter"
                    ));
                }
            },
            ElemType::Index => DType::I64,
            ElemType::Float(FloatKind::F16) => DType::F16,
            ElemType::Float(FloatKind::BF16) => DType::BF16,
            ElemType::Float(FloatKind::F32) => DType::F32,
            ElemType::Float(_) => DType::F64,
        })
    }

    /// `v` as this type holds it: integers truncated to the width and sign-extended (i1 is
    /// 0 or 1, as attributes keep it), floats rounded to the format.
    pub fn normalize(self, v: Scalar) -> Scalar {
        match (self, v) {
            (ElemType::Float(kind), Scalar::Float(x)) => Scalar::Float(round_to(kind, x)),
            (_, Scalar::Int(i)) => Scalar::Int(wrap(i, self.width())),
            (_, other) => other,
        }
    }
}

/// A scalar: integers sign-extended from their width (i1 is 0/1), floats as `f64` already
/// rounded to their format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn as_int(self) -> i64 {
        match self {
            Scalar::Int(v) => v,
            Scalar::Float(f) => f as i64,
        }
    }

    pub fn as_float(self) -> f64 {
        match self {
            Scalar::Float(f) => f,
            Scalar::Int(v) => v as f64,
        }
    }
}

/// `v` truncated to `width` bits: sign-extended, except i1 which is 0 or 1.
pub fn wrap(v: i64, width: u32) -> i64 {
    match width {
        1 => v & 1,
        64.. => v,
        _ => {
            let shift = 64 - width;
            (v << shift) >> shift
        }
    }
}

/// `v` as an unsigned `width`-bit number.
pub fn unsigned(v: i64, width: u32) -> u64 {
    if width >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << width) - 1)
    }
}

/// `x` rounded to the float format `kind` (round to nearest even), back in `f64`.
pub fn round_to(kind: FloatKind, x: f64) -> f64 {
    match kind {
        FloatKind::F16 => <half::f16 as Element>::from_f64(x).to_f64(),
        FloatKind::BF16 => <half::bf16 as Element>::from_f64(x).to_f64(),
        FloatKind::F32 => x as f32 as f64,
        _ => x,
    }
}

/// Element `i` of `data` as a scalar.
pub fn read_element(data: &TensorData, i: usize) -> Scalar {
    let dtype = data.dtype();
    with_data!(data, v => {
        let e = v[i];
        if dtype.is_float() {
            Scalar::Float(e.to_f64())
        } else {
            Scalar::Int(wrap(e.to_i128() as i64, dtype_width(dtype)))
        }
    })
}

/// Stores `s` as element `i` of `data`, converting to its dtype (integers wrap).
pub fn write_element(data: &mut TensorData, i: usize, s: Scalar) {
    with_data!(data, v => {
        v[i] = match s {
            Scalar::Int(x) => Element::from_i128(x as i128),
            Scalar::Float(f) => Element::from_f64(f),
        };
    })
}

fn dtype_width(dtype: DType) -> u32 {
    if dtype == DType::Bool {
        1
    } else {
        dtype.size_in_bytes() as u32 * 8
    }
}

/// A value during interpretation.
#[derive(Clone, Debug)]
pub enum RtValue {
    Scalar(Scalar),
    /// A `tensor` or `vector` value.
    Tensor(Tensor),
    /// A `memref` value: a view of shared storage.
    Buffer(Buffer),
}

impl RtValue {
    pub fn kind_name(&self) -> &'static str {
        match self {
            RtValue::Scalar(_) => "a scalar",
            RtValue::Tensor(_) => "a tensor",
            RtValue::Buffer(_) => "a buffer",
        }
    }
}

/// The static shape of a ranked tensor, vector or memref type.
pub fn static_shape(ctx: &Context, ty: Type) -> Result<Vec<i64>, String> {
    let shape = match ctx.type_kind(ty) {
        TypeKind::RankedTensor { shape, .. }
        | TypeKind::MemRef { shape, .. }
        | TypeKind::Vector { shape, .. } => shape,
        _ => {
            return Err(format!(
                "expected a ranked shaped type, got {}",
                tb_ir::printer::type_to_string(ctx, ty)
            ));
        }
    };
    if shape.iter().any(|&d| d < 0) {
        return Err(format!(
            "type {} has a dynamic dimension; the interpreter needs static shapes here",
            tb_ir::printer::type_to_string(ctx, ty)
        ));
    }
    Ok(shape.clone())
}

/// A tensor of type `ty` (static shape) filled with `fill`.
pub fn filled_tensor(ctx: &Context, ty: Type, fill: Scalar) -> Result<Tensor, String> {
    let shape = static_shape(ctx, ty)?;
    let dtype = ElemType::of(ctx, ty)?.dtype()?;
    let n = shape.iter().product::<i64>() as usize;
    let mut data = TensorData::zeros(dtype, n);
    if fill != Scalar::Int(0) {
        for i in 0..n {
            write_element(&mut data, i, fill);
        }
    }
    Tensor::new(shape, data).map_err(|e| e.0)
}
