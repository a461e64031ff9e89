//! The tensor types of the `graph` dialect and their element-type constraints.
//!
//! Every graph value is a statically shaped `tensor`. Element types follow ONNX's, spelled
//! as the interpreter spells them: `f16`, `bf16`, `f32`, `f64`; signless `i8`..`i64` for
//! ONNX's signed integers and `ui8`..`ui64` for its unsigned ones; `i1` for `bool`.

use tb_ir::ods::TypeConstraint;
use tb_ir::printer::type_to_string;
use tb_ir::{Context, FloatKind, Signedness, Type, TypeKind};

/// What kind of ONNX element a type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    Float(FloatKind),
    /// ONNX's signed integers (signless in the IR).
    Signed(u32),
    Unsigned(u32),
    Bool,
}

impl ElementKind {
    pub fn is_float(self) -> bool {
        matches!(self, ElementKind::Float(_))
    }

    pub fn is_integer(self) -> bool {
        matches!(self, ElementKind::Signed(_) | ElementKind::Unsigned(_))
    }

    pub fn is_numeric(self) -> bool {
        self.is_float() || self.is_integer()
    }
}

/// The ONNX element kind of `ty`, or `None` for a type ONNX tensors cannot hold.
pub fn element_kind(ctx: &Context, ty: Type) -> Option<ElementKind> {
    match ctx.type_kind(ty) {
        TypeKind::Float(
            k @ (FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64),
        ) => Some(ElementKind::Float(*k)),
        TypeKind::Integer {
            width: 1,
            signedness: Signedness::Signless,
        } => Some(ElementKind::Bool),
        TypeKind::Integer {
            width: w @ (8 | 16 | 32 | 64),
            signedness,
        } => match signedness {
            Signedness::Signless => Some(ElementKind::Signed(*w)),
            Signedness::Unsigned => Some(ElementKind::Unsigned(*w)),
            Signedness::Signed => None,
        },
        _ => None,
    }
}

/// Shape and element type of a statically shaped ranked tensor.
pub fn static_tensor(ctx: &Context, ty: Type) -> Option<(&[i64], Type)> {
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { shape, element, .. } if shape.iter().all(|&d| d >= 0) => {
            Some((shape, *element))
        }
        _ => None,
    }
}

/// Whether `ty` is a static tensor whose element satisfies `pred`.
fn tensor_of(ctx: &Context, ty: Type, pred: fn(ElementKind) -> bool) -> bool {
    static_tensor(ctx, ty)
        .and_then(|(_, e)| element_kind(ctx, e))
        .is_some_and(pred)
}

pub const TENSOR_ANY: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of bool, integer or floating-point values",
    check: |c, t| tensor_of(c, t, |_| true),
    buildable: None,
};

pub const TENSOR_NUMERIC: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of integer or floating-point values",
    check: |c, t| tensor_of(c, t, ElementKind::is_numeric),
    buildable: None,
};

pub const TENSOR_FLOAT: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of floating-point values",
    check: |c, t| tensor_of(c, t, ElementKind::is_float),
    buildable: None,
};

/// Conv's operands: floats, or the i32/i64 sums integer convolutions (ConvInteger,
/// QLinearConv) compute in.
pub const TENSOR_FLOAT_OR_WIDE_INT: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of floating-point, i32 or i64 values",
    check: |c, t| {
        tensor_of(c, t, |k| {
            matches!(
                k,
                ElementKind::Float(_) | ElementKind::Signed(32) | ElementKind::Signed(64)
            )
        })
    },
    buildable: None,
};

pub const TENSOR_SIGNED: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of signed integer or floating-point values",
    check: |c, t| {
        tensor_of(c, t, |k| {
            matches!(k, ElementKind::Float(_) | ElementKind::Signed(_))
        })
    },
    buildable: None,
};

pub const TENSOR_INTEGER: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of integer values",
    check: |c, t| tensor_of(c, t, ElementKind::is_integer),
    buildable: None,
};

pub const TENSOR_UNSIGNED: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of unsigned integer values",
    check: |c, t| tensor_of(c, t, |k| matches!(k, ElementKind::Unsigned(_))),
    buildable: None,
};

pub const TENSOR_BOOL: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of i1 values",
    check: |c, t| tensor_of(c, t, |k| k == ElementKind::Bool),
    buildable: None,
};

pub const TENSOR_INDICES: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of i32 or i64 values",
    check: |c, t| {
        tensor_of(c, t, |k| {
            matches!(k, ElementKind::Signed(32) | ElementKind::Signed(64))
        })
    },
    buildable: None,
};

pub const TENSOR_I64: TypeConstraint = TypeConstraint {
    description: "statically shaped tensor of i64 values",
    check: |c, t| tensor_of(c, t, |k| k == ElementKind::Signed(64)),
    buildable: None,
};

/// `tensor<2x3xf32>` for a shape and an element type name.
pub fn tensor_string(shape: &[i64], element: &str) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s.push_str(&d.to_string());
        s.push('x');
    }
    s.push_str(element);
    s.push('>');
    s
}

/// How a type prints, for messages.
pub fn type_string(ctx: &Context, ty: Type) -> String {
    type_to_string(ctx, ty)
}

/// `tensor<shape x element>`, interned.
pub fn tensor_type(ctx: &mut Context, shape: Vec<i64>, element: Type) -> Type {
    ctx.intern_type(TypeKind::RankedTensor {
        shape,
        element,
        encoding: None,
    })
}
