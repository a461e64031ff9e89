//! Constant tensors for folding: `dense<...>` attributes decoded to `tb_tensor` tensors, which
//! the ONNX kernels compute on, and encoded back. Splats stay splats (one value and a shape),
//! so that broadcasting a scalar to a large shape stays cheap, and nothing larger than
//! [`MAX_FOLD_ELEMENTS`] is ever expanded.

use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::{Attr, Context, Type};
use tb_tensor::shape::checked_num_elements;
use tb_tensor::{DType, Element, Tensor, TensorData};

use super::types::{ElementKind, element_kind, static_tensor};

/// Folding computes at most this many elements per tensor (an operand it must expand or the
/// result), as MLIR bounds constant folding: shape computations and small tables fold, large
/// tensors are left to the compiled code. Splats of any size fold where the value alone
/// decides the result.
pub const MAX_FOLD_ELEMENTS: usize = 1 << 20;

/// The element count of `shape` if folding may materialize it: it fits in `i64` and is at
/// most [`MAX_FOLD_ELEMENTS`].
pub fn foldable_count(shape: &[i64]) -> Option<usize> {
    let n = usize::try_from(checked_num_elements(shape)?).ok()?;
    (n <= MAX_FOLD_ELEMENTS).then_some(n)
}

/// The tensor dtype of an ONNX element kind.
pub fn dtype_of(kind: ElementKind) -> Option<DType> {
    use tb_ir::FloatKind as F;
    Some(match kind {
        ElementKind::Float(F::F16) => DType::F16,
        ElementKind::Float(F::BF16) => DType::BF16,
        ElementKind::Float(F::F32) => DType::F32,
        ElementKind::Float(F::F64) => DType::F64,
        ElementKind::Float(_) => return None,
        ElementKind::Signed(8) => DType::I8,
        ElementKind::Signed(16) => DType::I16,
        ElementKind::Signed(32) => DType::I32,
        ElementKind::Signed(64) => DType::I64,
        ElementKind::Unsigned(8) => DType::U8,
        ElementKind::Unsigned(16) => DType::U16,
        ElementKind::Unsigned(32) => DType::U32,
        ElementKind::Unsigned(64) => DType::U64,
        ElementKind::Signed(_) | ElementKind::Unsigned(_) => return None,
        ElementKind::Bool => DType::Bool,
    })
}

/// A constant tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// Every element is `value`, a rank-0 tensor of the element type.
    Splat {
        shape: Vec<i64>,
        value: Tensor,
    },
    Dense(Tensor),
}

impl Literal {
    /// Decodes a `dense<...>` attribute of a static ONNX-typed tensor.
    pub fn from_attr(ctx: &Context, attr: Attr) -> Option<Literal> {
        let AttrKind::DenseElements { ty, data } = ctx.attr_kind(attr) else {
            return None;
        };
        let (shape, element) = static_tensor(ctx, *ty)?;
        let kind = element_kind(ctx, element)?;
        let dtype = dtype_of(kind)?;
        let decoded = match kind {
            ElementKind::Float(fk) => {
                let v = data
                    .elements
                    .iter()
                    .map(|e| match e {
                        DenseElement::Float(bits) => bits_to_f64(fk, *bits),
                        _ => None,
                    })
                    .collect::<Option<Vec<f64>>>()?;
                TensorData::F64(v)
            }
            // Integers as i64 bits: the cast below wraps them into the element type, so an
            // unsigned 64-bit value above i64's range comes back unchanged.
            _ => TensorData::I64(
                data.elements
                    .iter()
                    .map(|e| match e {
                        DenseElement::Int(v) => Some(*v as i64),
                        _ => None,
                    })
                    .collect::<Option<Vec<i64>>>()?,
            ),
        };
        let n = decoded.len();
        // Decoding is exact: every element fits the wider type it is read into.
        let lift = |shape: Vec<i64>| Tensor::new(shape, decoded).ok().map(|t| t.cast(dtype));
        if data.splat && checked_num_elements(shape) != Some(1) {
            if n != 1 {
                return None;
            }
            return Some(Literal::Splat {
                shape: shape.to_vec(),
                value: lift(vec![])?,
            });
        }
        Some(Literal::Dense(lift(shape.to_vec())?))
    }

    pub fn shape(&self) -> &[i64] {
        match self {
            Literal::Splat { shape, .. } => shape,
            Literal::Dense(t) => t.shape(),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Literal::Splat { value, .. } => value.dtype(),
            Literal::Dense(t) => t.dtype(),
        }
    }

    /// The one value of every element (a rank-0 tensor), for splats and one-element tensors.
    pub fn splat_value(&self) -> Option<Tensor> {
        match self {
            Literal::Splat { value, .. } => Some(value.clone()),
            Literal::Dense(t) if t.numel() == 1 => t.clone().reshape(vec![]).ok(),
            Literal::Dense(_) => None,
        }
    }

    /// The whole tensor, a splat expanded, when it has at most [`MAX_FOLD_ELEMENTS`]
    /// elements.
    pub fn expanded(&self) -> Option<Tensor> {
        match self {
            Literal::Dense(t) => (t.numel() <= MAX_FOLD_ELEMENTS).then(|| t.clone()),
            Literal::Splat { shape, value } => {
                foldable_count(shape)?;
                tb_tensor::kernels::shape_ops::expand(value, shape).ok()
            }
        }
    }

    /// The elements as `i64`s (shape tensors), for at most [`MAX_FOLD_ELEMENTS`] elements.
    pub fn i64s(&self) -> Option<Vec<i64>> {
        self.expanded()?.to_i64_vec().ok()
    }

    /// Encodes the literal as the attribute of a `ty`-typed constant; `None` when the
    /// literal's shape or dtype is not `ty`'s. Uniform elements are stored as a splat, as
    /// MLIR does.
    pub fn to_attr_kind(&self, ctx: &Context, ty: Type) -> Option<AttrKind> {
        let (shape, element) = static_tensor(ctx, ty)?;
        let kind = element_kind(ctx, element)?;
        if shape != self.shape() || dtype_of(kind)? != self.dtype() {
            return None;
        }
        let (tensor, splat) = match self {
            Literal::Splat { value, .. } => (value, true),
            Literal::Dense(t) => (t, false),
        };
        let elements: Vec<DenseElement> = match kind {
            ElementKind::Float(fk) => tensor
                .to_f64_vec()
                .into_iter()
                .map(|x| bits_from_f64(fk, x).map(DenseElement::Float))
                .collect::<Option<_>>()?,
            _ => integers(tensor)
                .into_iter()
                .map(DenseElement::Int)
                .collect(),
        };
        let uniform = elements.len() > 1 && elements.iter().all(|e| *e == elements[0]);
        let data = if uniform {
            DenseData {
                splat: true,
                elements: vec![elements[0]],
            }
        } else {
            DenseData { splat, elements }
        };
        Some(AttrKind::DenseElements { ty, data })
    }
}

/// The elements of an integer or bool tensor, exactly (unsigned values stay non-negative).
fn integers(t: &Tensor) -> Vec<i128> {
    tb_tensor::with_data!(t.data(), v => v.iter().map(|x| x.to_i128()).collect())
}
