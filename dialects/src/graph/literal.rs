//! Constant tensors as plain values, for folding: decoded from and encoded to `dense<...>`
//! attributes, with splats kept as splats so that broadcasting a scalar to a large shape
//! stays cheap.

use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::{Attr, Context, Type};

use super::types::{ElementKind, element_kind, static_tensor};

/// Folds produce at most this many distinct elements: constant folding is for shape
/// computations and small tables, not for weights.
pub const MAX_FOLD_ELEMENTS: usize = 4096;

/// Element values: integers (and bools as 0/1) exactly, floats as `f64`.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Int(Vec<i128>),
    Float(Vec<f64>),
}

/// A scalar element value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Float(v) => v,
        }
    }
}

/// A constant tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub shape: Vec<i64>,
    pub element: Type,
    pub kind: ElementKind,
    /// One value standing for every element.
    pub splat: bool,
    pub values: Values,
}

/// Number of elements of `shape`.
pub fn count(shape: &[i64]) -> usize {
    shape.iter().product::<i64>().max(0) as usize
}

/// Row-major strides of `shape`.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of flat position `flat` in `shape`.
pub fn unravel(mut flat: i64, shape: &[i64]) -> Vec<i64> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        if shape[i] > 0 {
            idx[i] = flat % shape[i];
            flat /= shape[i];
        }
    }
    idx
}

/// Wraps `v` into the range of `kind`'s integer type (two's complement for signed).
pub fn wrap(v: i128, kind: ElementKind) -> i128 {
    let (width, signed) = match kind {
        ElementKind::Signed(w) => (w, true),
        ElementKind::Unsigned(w) => (w, false),
        ElementKind::Bool => return (v != 0) as i128,
        ElementKind::Float(_) => return v,
    };
    let mask = (1i128 << width) - 1;
    let low = v & mask;
    if signed && low >> (width - 1) & 1 == 1 {
        low - (1i128 << width)
    } else {
        low
    }
}

impl Literal {
    /// Decodes a `dense<...>` attribute of a static ONNX-typed tensor.
    pub fn from_attr(ctx: &Context, attr: Attr) -> Option<Literal> {
        let AttrKind::DenseElements { ty, data } = ctx.attr_kind(attr) else {
            return None;
        };
        let (shape, element) = static_tensor(ctx, *ty)?;
        let kind = element_kind(ctx, element)?;
        let values = match kind {
            ElementKind::Float(fk) => Values::Float(
                data.elements
                    .iter()
                    .map(|e| match e {
                        DenseElement::Float(bits) => bits_to_f64(fk, *bits),
                        _ => None,
                    })
                    .collect::<Option<Vec<f64>>>()?,
            ),
            _ => Values::Int(
                data.elements
                    .iter()
                    .map(|e| match e {
                        DenseElement::Int(v) => Some(*v),
                        _ => None,
                    })
                    .collect::<Option<Vec<i128>>>()?,
            ),
        };
        Some(Literal {
            shape: shape.to_vec(),
            element,
            kind,
            splat: data.splat,
            values,
        })
    }

    /// A literal of `count` values or one splat value.
    pub fn new(shape: Vec<i64>, element: Type, kind: ElementKind, values: Values) -> Literal {
        let splat = match &values {
            Values::Int(v) => v.len() == 1 && count(&shape) != 1,
            Values::Float(v) => v.len() == 1 && count(&shape) != 1,
        };
        Literal {
            shape,
            element,
            kind,
            splat,
            values,
        }
    }

    pub fn len(&self) -> usize {
        count(&self.shape)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at flat position `i`.
    pub fn get(&self, i: usize) -> Value {
        let i = if self.splat { 0 } else { i };
        match &self.values {
            Values::Int(v) => Value::Int(v[i]),
            Values::Float(v) => Value::Float(v[i]),
        }
    }

    /// Every element, splats expanded (callers bound the size first).
    pub fn ints(&self) -> Option<Vec<i128>> {
        match &self.values {
            Values::Int(v) if self.splat => Some(vec![v[0]; self.len()]),
            Values::Int(v) => Some(v.clone()),
            Values::Float(_) => None,
        }
    }

    /// The elements as `i64`s (shape tensors).
    pub fn i64s(&self) -> Option<Vec<i64>> {
        self.ints()?
            .into_iter()
            .map(|v| i64::try_from(v).ok())
            .collect()
    }

    /// The same elements in row-major order under another shape and type.
    pub fn reshaped(&self, shape: Vec<i64>, element: Type) -> Literal {
        Literal {
            shape,
            element,
            ..self.clone()
        }
    }

    /// A literal whose element `i` is this literal's element `index(i)`, for `len`
    /// elements; a splat stays a splat.
    pub fn gather(
        &self,
        shape: Vec<i64>,
        element: Type,
        mut index: impl FnMut(usize) -> Option<usize>,
    ) -> Option<Literal> {
        if self.splat {
            return Some(self.reshaped(shape, element));
        }
        let n = count(&shape);
        if n > MAX_FOLD_ELEMENTS {
            return None;
        }
        let values = match &self.values {
            Values::Int(v) => Values::Int(
                (0..n)
                    .map(|i| index(i).and_then(|k| v.get(k).copied()))
                    .collect::<Option<_>>()?,
            ),
            Values::Float(v) => Values::Float(
                (0..n)
                    .map(|i| index(i).and_then(|k| v.get(k).copied()))
                    .collect::<Option<_>>()?,
            ),
        };
        Some(Literal {
            shape,
            element,
            kind: self.kind,
            splat: false,
            values,
        })
    }

    /// Encodes the literal as the attribute of a `ty`-typed constant. Integers are wrapped
    /// to their type and floats rounded to it.
    pub fn to_attr_kind(&self, ctx: &Context, ty: Type) -> Option<AttrKind> {
        let elements: Vec<DenseElement> = match (&self.values, self.kind) {
            (Values::Float(v), ElementKind::Float(fk)) => v
                .iter()
                .map(|&x| bits_from_f64(fk, x).map(DenseElement::Float))
                .collect::<Option<_>>()?,
            (Values::Int(v), kind) if !kind.is_float() => v
                .iter()
                .map(|&x| DenseElement::Int(wrap(x, kind)))
                .collect(),
            _ => return None,
        };
        let (shape, _) = static_tensor(ctx, ty)?;
        let n = count(shape);
        let splat = elements.len() == 1 && n != 1;
        if !splat && elements.len() != n {
            return None;
        }
        // A literal whose elements all agree is stored as a splat, as MLIR does.
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
