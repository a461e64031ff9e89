//! Builtin types (MLIR 22 syntax), interned in the [`Context`](crate::Context).

use crate::attributes::Attr;

/// An interned type; compare by id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Type(pub(crate) u32);

/// A dynamic dimension or offset (`?`), MLIR's `ShapedType::kDynamic`.
pub const DYNAMIC: i64 = i64::MIN;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

/// Every builtin floating-point format MLIR 22 spells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FloatKind {
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E5M2,
    F8E4M3,
    F8E4M3FN,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F8E8M0FNU,
    BF16,
    F16,
    TF32,
    F32,
    F64,
    F80,
    F128,
}

impl FloatKind {
    pub const ALL: [FloatKind; 18] = [
        FloatKind::F4E2M1FN,
        FloatKind::F6E2M3FN,
        FloatKind::F6E3M2FN,
        FloatKind::F8E5M2,
        FloatKind::F8E4M3,
        FloatKind::F8E4M3FN,
        FloatKind::F8E5M2FNUZ,
        FloatKind::F8E4M3FNUZ,
        FloatKind::F8E4M3B11FNUZ,
        FloatKind::F8E3M4,
        FloatKind::F8E8M0FNU,
        FloatKind::BF16,
        FloatKind::F16,
        FloatKind::TF32,
        FloatKind::F32,
        FloatKind::F64,
        FloatKind::F80,
        FloatKind::F128,
    ];

    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F4E2M1FN => "f4E2M1FN",
            FloatKind::F6E2M3FN => "f6E2M3FN",
            FloatKind::F6E3M2FN => "f6E3M2FN",
            FloatKind::F8E5M2 => "f8E5M2",
            FloatKind::F8E4M3 => "f8E4M3",
            FloatKind::F8E4M3FN => "f8E4M3FN",
            FloatKind::F8E5M2FNUZ => "f8E5M2FNUZ",
            FloatKind::F8E4M3FNUZ => "f8E4M3FNUZ",
            FloatKind::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            FloatKind::F8E3M4 => "f8E3M4",
            FloatKind::F8E8M0FNU => "f8E8M0FNU",
            FloatKind::BF16 => "bf16",
            FloatKind::F16 => "f16",
            FloatKind::TF32 => "tf32",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F80 => "f80",
            FloatKind::F128 => "f128",
        }
    }

    pub fn from_keyword(word: &str) -> Option<FloatKind> {
        FloatKind::ALL.into_iter().find(|k| k.keyword() == word)
    }

    /// Storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F4E2M1FN => 4,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            FloatKind::BF16 | FloatKind::F16 => 16,
            FloatKind::TF32 => 19,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
            _ => 8,
        }
    }
}

/// The structure of a type. Shapes use [`DYNAMIC`] for `?`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeKind {
    Integer {
        width: u32,
        signedness: Signedness,
    },
    Index,
    Float(FloatKind),
    None,
    Complex(Type),
    Tuple(Vec<Type>),
    Function {
        inputs: Vec<Type>,
        results: Vec<Type>,
    },
    RankedTensor {
        shape: Vec<i64>,
        element: Type,
        encoding: Option<Attr>,
    },
    UnrankedTensor {
        element: Type,
    },
    MemRef {
        shape: Vec<i64>,
        element: Type,
        layout: Option<Attr>,
        memory_space: Option<Attr>,
    },
    UnrankedMemRef {
        element: Type,
        memory_space: Option<Attr>,
    },
    Vector {
        shape: Vec<i64>,
        scalable: Vec<bool>,
        element: Type,
    },
    /// A type of a dialect this context does not know: `!dialect.body` kept verbatim.
    Opaque {
        dialect: String,
        body: String,
    },
    /// A type a dialect defines as a typed value, registered with
    /// [`Context::register_type`](crate::Context::register_type).
    Dialect(crate::dialect_type::DialectType),
}

impl TypeKind {
    pub fn is_shaped(&self) -> bool {
        matches!(
            self,
            TypeKind::RankedTensor { .. }
                | TypeKind::UnrankedTensor { .. }
                | TypeKind::MemRef { .. }
                | TypeKind::UnrankedMemRef { .. }
                | TypeKind::Vector { .. }
        )
    }

    /// Shape of a ranked shaped type.
    pub fn shape(&self) -> Option<&[i64]> {
        match self {
            TypeKind::RankedTensor { shape, .. }
            | TypeKind::MemRef { shape, .. }
            | TypeKind::Vector { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The number of elements of a ranked shaped type with a static shape, computed with
    /// checked arithmetic: a shape such as `4611686018427387904x4` is a valid type (as in
    /// MLIR) whose element count does not fit an `i64`.
    pub fn num_elements(&self) -> Result<i64, ElementCountError> {
        shape_num_elements(self.shape().ok_or(ElementCountError::Unranked)?)
    }

    /// Element type of a shaped or complex type.
    pub fn element(&self) -> Option<Type> {
        match self {
            TypeKind::RankedTensor { element, .. }
            | TypeKind::UnrankedTensor { element }
            | TypeKind::MemRef { element, .. }
            | TypeKind::UnrankedMemRef { element, .. }
            | TypeKind::Vector { element, .. }
            | TypeKind::Complex(element) => Some(*element),
            _ => None,
        }
    }
}

/// Why a shaped type has no element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementCountError {
    /// Not a ranked shaped type.
    Unranked,
    /// A dimension is `?`.
    Dynamic,
    /// The product of the dimensions does not fit an `i64`.
    Overflow,
}

impl std::fmt::Display for ElementCountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ElementCountError::Unranked => "the type has no static rank",
            ElementCountError::Dynamic => "the shape has a dynamic dimension",
            ElementCountError::Overflow => "the number of elements overflows a 64-bit integer",
        })
    }
}

/// The product of the dimensions of a static `shape` (1 for rank 0), checked: a dynamic
/// dimension or a product past `i64::MAX` is an error, never a wrapped value. A zero
/// dimension makes the count 0 whatever the others are.
pub fn shape_num_elements(shape: &[i64]) -> Result<i64, ElementCountError> {
    if shape.iter().any(|&dim| dim < 0) {
        return Err(ElementCountError::Dynamic);
    }
    if shape.contains(&0) {
        return Ok(0);
    }
    shape.iter().try_fold(1i64, |count, &dim| {
        count.checked_mul(dim).ok_or(ElementCountError::Overflow)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_counts_are_products_of_static_dimensions() {
        assert_eq!(shape_num_elements(&[]), Ok(1));
        assert_eq!(shape_num_elements(&[2, 3, 4]), Ok(24));
        assert_eq!(shape_num_elements(&[0, 7]), Ok(0));
        assert_eq!(shape_num_elements(&[i64::MAX]), Ok(i64::MAX));
    }

    #[test]
    fn element_counts_past_i64_are_errors_not_wrapped_values() {
        // 2^62 * 4 = 2^64 wraps to 0 in unchecked arithmetic.
        assert_eq!(
            shape_num_elements(&[1 << 62, 4]),
            Err(ElementCountError::Overflow)
        );
        assert_eq!(
            shape_num_elements(&[i64::MAX, 2]),
            Err(ElementCountError::Overflow)
        );
        // A zero dimension anywhere: no element, whatever the other dimensions multiply to.
        assert_eq!(shape_num_elements(&[1 << 62, 4, 0]), Ok(0));
    }

    #[test]
    fn dynamic_dimensions_have_no_count() {
        assert_eq!(
            shape_num_elements(&[2, DYNAMIC]),
            Err(ElementCountError::Dynamic)
        );
    }
}
