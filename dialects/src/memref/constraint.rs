//! Type and attribute constraints of `memref` ops, described in MLIR's words.

use tb_ir::attributes::AttrKind;
use tb_ir::ods::constraint::{is_i1, is_signless_integer};
use tb_ir::ods::{AttrConstraint, TypeConstraint};
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, Signedness, Type, TypeKind};

use super::layout::MemRef;

fn is_unranked(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::UnrankedMemRef { .. })
}

pub(crate) const RANKED_OR_UNRANKED: TypeConstraint = TypeConstraint {
    description: "ranked or unranked memref of any type values",
    check: |c, t| MemRef::of(c, t).is_some() || is_unranked(c, t),
    buildable: None,
};

pub(crate) const NON_0_RANKED_OR_UNRANKED: TypeConstraint = TypeConstraint {
    description: "unranked.memref of any type values or non-0-ranked.memref of any type values",
    check: |c, t| MemRef::of(c, t).is_some_and(|m| m.rank() > 0) || is_unranked(c, t),
    buildable: None,
};

pub(crate) const STRIDED: TypeConstraint = TypeConstraint {
    description: "strided memref of any type values",
    check: |c, t| MemRef::of(c, t).is_some_and(|m| m.strides_and_offset(c).is_some()),
    buildable: None,
};

pub(crate) const STATIC_SHAPE: TypeConstraint = TypeConstraint {
    description: "statically shaped memref of any type values",
    check: |c, t| MemRef::of(c, t).is_some_and(|m| !m.shape.contains(&DYNAMIC)),
    buildable: None,
};

pub(crate) const BYTES_1D: TypeConstraint = TypeConstraint {
    description: "1D memref of 8-bit signless integer values",
    check: |c, t| {
        MemRef::of(c, t).is_some_and(|m| {
            m.rank() == 1
                && matches!(
                    c.type_kind(m.element),
                    TypeKind::Integer {
                        width: 8,
                        signedness: Signedness::Signless
                    }
                )
        })
    },
    buildable: None,
};

fn i64_value(ctx: &Context, attr: Attr) -> Option<i128> {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty }
            if is_signless_integer(ctx, *ty)
                && matches!(ctx.type_kind(*ty), TypeKind::Integer { width: 64, .. }) =>
        {
            Some(*value)
        }
        _ => None,
    }
}

pub(crate) const ALIGNMENT: AttrConstraint = AttrConstraint {
    description: "64-bit signless integer attribute whose value is positive and whose value is a power of two > 0",
    check: |c, a| i64_value(c, a).is_some_and(|v| v > 0 && (v as u128).is_power_of_two()),
};

pub(crate) const BOOL: AttrConstraint = AttrConstraint {
    description: "bool attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if is_i1(c, *ty)),
};

pub(crate) const MEMREF_TYPE: AttrConstraint = AttrConstraint {
    description: "memref type attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Type(t) if MemRef::of(c, *t).is_some()),
};

pub(crate) const INDEX_LIST_ARRAY: AttrConstraint = AttrConstraint {
    description: "Array of 64-bit integer array attributes",
    check: |c, a| reassociation(c, a).is_some(),
};

/// The groups of a reassociation attribute `[[0, 1], [2]]`.
pub(crate) fn reassociation(ctx: &Context, attr: Attr) -> Option<Vec<Vec<i64>>> {
    let AttrKind::Array(groups) = ctx.attr_kind(attr) else {
        return None;
    };
    groups
        .iter()
        .map(|&g| match ctx.attr_kind(g) {
            AttrKind::Array(items) => items
                .iter()
                .map(|&i| i64_value(ctx, i).map(|v| v as i64))
                .collect(),
            _ => None,
        })
        .collect()
}

pub(crate) const MEMREF_1D: TypeConstraint = TypeConstraint {
    description: "1D memref of any type values",
    check: |c, t| MemRef::of(c, t).is_some_and(|m| m.rank() == 1),
    buildable: None,
};

pub(crate) const SHAPE_1D: TypeConstraint = TypeConstraint {
    description: "1D memref of signless integer or index values",
    check: |c, t| {
        MemRef::of(c, t).is_some_and(|m| {
            m.rank() == 1
                && (is_signless_integer(c, m.element)
                    || matches!(c.type_kind(m.element), TypeKind::Index))
        })
    },
    buildable: None,
};

fn is_signless_integer_or_float(ctx: &Context, ty: Type) -> bool {
    is_signless_integer(ctx, ty) || matches!(ctx.type_kind(ty), TypeKind::Float(_))
}

pub(crate) const SIGNLESS_INTEGER_OR_FLOAT: TypeConstraint = TypeConstraint {
    description: "signless integer or floating-point",
    check: is_signless_integer_or_float,
    buildable: None,
};

pub(crate) const MEMREF_OF_INTEGER_OR_FLOAT: TypeConstraint = TypeConstraint {
    description: "memref of signless integer or floating-point values",
    check: |c, t| MemRef::of(c, t).is_some_and(|m| is_signless_integer_or_float(c, m.element)),
    buildable: None,
};
