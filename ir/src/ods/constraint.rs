//! Type and attribute constraints of declarative op definitions: a predicate plus the
//! words an error message uses for it ("signless-integer-like").

use crate::attributes::{Attr, AttrKind};
use crate::context::Context;
use crate::types::{Signedness, Type, TypeKind};

/// A predicate on types, with its description for diagnostics.
#[derive(Clone, Copy)]
pub struct TypeConstraint {
    pub description: &'static str,
    pub check: fn(&Context, Type) -> bool,
    /// The one type the constraint admits, for formats that leave it unwritten
    /// (MLIR's buildable types, such as `index`).
    pub buildable: Option<fn(&mut Context) -> Type>,
}

/// A predicate on attributes, with its description for diagnostics.
#[derive(Clone, Copy)]
pub struct AttrConstraint {
    pub description: &'static str,
    pub check: fn(&Context, Attr) -> bool,
}

/// The element type of a vector or tensor, or the type itself for scalars.
pub fn element_or_self(ctx: &Context, ty: Type) -> Type {
    match ctx.type_kind(ty) {
        TypeKind::Vector { element, .. }
        | TypeKind::RankedTensor { element, .. }
        | TypeKind::UnrankedTensor { element } => *element,
        _ => ty,
    }
}

pub fn is_signless_integer(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Integer {
            signedness: Signedness::Signless,
            ..
        }
    )
}

pub fn is_index(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Index)
}

pub fn is_float(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Float(_))
}

pub fn is_i1(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    )
}

/// Scalars, vectors and tensors whose element satisfies `pred`.
fn like(ctx: &Context, ty: Type, pred: fn(&Context, Type) -> bool) -> bool {
    pred(ctx, element_or_self(ctx, ty))
}

pub const ANY_TYPE: TypeConstraint = TypeConstraint {
    description: "any type",
    check: |_, _| true,
    buildable: None,
};

pub const INDEX: TypeConstraint = TypeConstraint {
    description: "index",
    check: is_index,
    buildable: Some(|c| c.index_type()),
};

pub const SIGNLESS_INTEGER_LIKE: TypeConstraint = TypeConstraint {
    description: "signless-integer-like",
    check: |c, t| like(c, t, |c, t| is_signless_integer(c, t) || is_index(c, t)),
    buildable: None,
};

pub const SIGNLESS_INTEGER_LIKE_NO_INDEX: TypeConstraint = TypeConstraint {
    description: "signless-fixed-width-integer-like",
    check: |c, t| like(c, t, is_signless_integer),
    buildable: None,
};

pub const FLOAT_LIKE: TypeConstraint = TypeConstraint {
    description: "floating-point-like",
    check: |c, t| like(c, t, is_float),
    buildable: None,
};

pub const BOOL_LIKE: TypeConstraint = TypeConstraint {
    description: "bool-like",
    check: |c, t| like(c, t, is_i1),
    buildable: None,
};

pub const SIGNLESS_INTEGER_OR_FLOAT_LIKE: TypeConstraint = TypeConstraint {
    description: "signless-integer-or-float-like",
    check: |c, t| {
        like(c, t, |c, t| {
            is_signless_integer(c, t) || is_index(c, t) || is_float(c, t)
        })
    },
    buildable: None,
};

pub const ANY_MEMREF: TypeConstraint = TypeConstraint {
    description: "memref of any type values",
    check: |c, t| matches!(c.type_kind(t), TypeKind::MemRef { .. }),
    buildable: None,
};

pub const ANY_RANKED_TENSOR: TypeConstraint = TypeConstraint {
    description: "ranked tensor of any type values",
    check: |c, t| matches!(c.type_kind(t), TypeKind::RankedTensor { .. }),
    buildable: None,
};

pub const ANY_VECTOR: TypeConstraint = TypeConstraint {
    description: "vector of any type values",
    check: |c, t| matches!(c.type_kind(t), TypeKind::Vector { .. }),
    buildable: None,
};

pub const ANY_ATTR: AttrConstraint = AttrConstraint {
    description: "any attribute",
    check: |_, _| true,
};

pub const UNIT_ATTR: AttrConstraint = AttrConstraint {
    description: "unit attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Unit),
};

pub const STRING_ATTR: AttrConstraint = AttrConstraint {
    description: "string attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::String { ty: None, .. }),
};

pub const FLAT_SYMBOL_REF_ATTR: AttrConstraint = AttrConstraint {
    description: "flat symbol reference attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::SymbolRef { nested, .. } if nested.is_empty()),
};

pub const TYPE_ATTR: AttrConstraint = AttrConstraint {
    description: "any type attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Type(_)),
};

pub const FUNCTION_TYPE_ATTR: AttrConstraint = AttrConstraint {
    description: "type attribute of function type",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Type(t) if matches!(c.type_kind(*t), TypeKind::Function { .. })),
};

pub const I64_ATTR: AttrConstraint = AttrConstraint {
    description: "64-bit signless integer attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { ty, .. }
            if matches!(c.type_kind(*ty), TypeKind::Integer { width: 64, signedness: Signedness::Signless }))
    },
};

pub const INDEX_ATTR: AttrConstraint = AttrConstraint {
    description: "index attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if is_index(c, *ty)),
};

pub const DENSE_I64_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    description: "i64 dense array attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::DenseArray { element, .. }
            if matches!(c.type_kind(*element), TypeKind::Integer { width: 64, .. }))
    },
};

pub const AFFINE_MAP_ATTR: AttrConstraint = AttrConstraint {
    description: "AffineMap attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::AffineMap(_)),
};

pub const ARRAY_ATTR: AttrConstraint = AttrConstraint {
    description: "array attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Array(_)),
};

pub const DICTIONARY_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    description: "Array of dictionary attributes",
    check: |c, a| match c.attr_kind(a) {
        AttrKind::Array(items) => items
            .iter()
            .all(|i| matches!(c.attr_kind(*i), AttrKind::Dictionary(_))),
        _ => false,
    },
};
