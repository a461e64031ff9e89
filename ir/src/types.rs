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
