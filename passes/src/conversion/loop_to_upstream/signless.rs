//! Buffers of signed and unsigned integers made signless, as MLIR keeps them.
//!
//! At the loop level only buffers carry an ONNX signedness (`memref<8xui8>`): loads and
//! stores already move signless scalars, and arithmetic names its signedness in the op
//! (`arith.divui`, `arith.extui`, ...). Upstream `memref.load` of a `ui8` buffer would hand
//! `arith` a `ui8` value, which it does not take; the bits are the same in `i8`, so every
//! type in the module (values, block arguments, function types, type and dense attributes
//! such as a `memref.global`'s) has its integers made signless. Integer attribute values
//! are re-canonicalized for the signless type (sign-extended).

use tb_ir::attributes::{DenseData, DenseElement};
use tb_ir::{Attr, AttrKind, Context, OpId, Signedness, Type, TypeKind};

/// Makes every integer type in `root` (and the ops, blocks and attributes nested in it)
/// signless.
pub(super) fn make_integers_signless(ctx: &mut Context, root: OpId) {
    let mut ops = Vec::new();
    ctx.walk_nested(root, &mut |o| ops.push(o));
    for op in ops {
        let results = ctx.op(op).results.to_vec();
        let mut values = results;
        for &region in ctx.op(op).regions.iter() {
            for &block in &ctx.region(region).blocks {
                values.extend(ctx.block(block).args.iter().copied());
            }
        }
        for v in values {
            let ty = signless_type(ctx, ctx.value_type(v));
            ctx.set_value_type(v, ty);
        }
        if let Some(properties) = ctx.op(op).properties {
            let properties = signless_attr(ctx, properties);
            ctx.op_mut(op).properties = Some(properties);
        }
        let attributes = signless_attr(ctx, ctx.op(op).attributes);
        ctx.op_mut(op).attributes = attributes;
    }
}

/// `ty` with every integer type in it signless.
fn signless_type(ctx: &mut Context, ty: Type) -> Type {
    let kind = ctx.type_kind(ty).clone();
    let converted = match kind {
        TypeKind::Integer {
            width,
            signedness: Signedness::Signed | Signedness::Unsigned,
        } => TypeKind::Integer {
            width,
            signedness: Signedness::Signless,
        },
        TypeKind::MemRef {
            shape,
            element,
            layout,
            memory_space,
        } => TypeKind::MemRef {
            shape,
            element: signless_type(ctx, element),
            layout,
            memory_space,
        },
        TypeKind::UnrankedMemRef {
            element,
            memory_space,
        } => TypeKind::UnrankedMemRef {
            element: signless_type(ctx, element),
            memory_space,
        },
        TypeKind::RankedTensor {
            shape,
            element,
            encoding,
        } => TypeKind::RankedTensor {
            shape,
            element: signless_type(ctx, element),
            encoding,
        },
        TypeKind::UnrankedTensor { element } => TypeKind::UnrankedTensor {
            element: signless_type(ctx, element),
        },
        TypeKind::Vector {
            shape,
            scalable,
            element,
        } => TypeKind::Vector {
            shape,
            scalable,
            element: signless_type(ctx, element),
        },
        TypeKind::Complex(element) => TypeKind::Complex(signless_type(ctx, element)),
        TypeKind::Tuple(types) => {
            TypeKind::Tuple(types.into_iter().map(|t| signless_type(ctx, t)).collect())
        }
        TypeKind::Function { inputs, results } => TypeKind::Function {
            inputs: inputs.into_iter().map(|t| signless_type(ctx, t)).collect(),
            results: results.into_iter().map(|t| signless_type(ctx, t)).collect(),
        },
        _ => return ty,
    };
    ctx.intern_type(converted)
}

/// The bit width of the integer elements of `ty` (a scalar or shaped type), if they are
/// integers of an explicit signedness.
fn signed_or_unsigned_width(ctx: &Context, ty: Type) -> Option<u32> {
    let element = match ctx.type_kind(ty) {
        TypeKind::RankedTensor { element, .. }
        | TypeKind::UnrankedTensor { element }
        | TypeKind::MemRef { element, .. }
        | TypeKind::Vector { element, .. } => *element,
        _ => ty,
    };
    match ctx.type_kind(element) {
        TypeKind::Integer {
            width,
            signedness: Signedness::Signed | Signedness::Unsigned,
        } => Some(*width),
        _ => None,
    }
}

/// `value` (canonical for an integer of `width` bits) as the signless integer of that
/// width holds it: sign-extended.
fn sign_extend(value: i128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return value;
    }
    let shift = 128 - width;
    (value << shift) >> shift
}

/// `attr` with the integer types in it signless (values re-canonicalized).
fn signless_attr(ctx: &mut Context, attr: Attr) -> Attr {
    // Large constants (weights) need no copy unless their integers change.
    if let AttrKind::DenseElements { ty, .. } = *ctx.attr_kind(attr)
        && signless_type(ctx, ty) == ty
    {
        return attr;
    }
    let kind = ctx.attr_kind(attr).clone();
    let converted = match kind {
        AttrKind::Type(ty) => AttrKind::Type(signless_type(ctx, ty)),
        AttrKind::Integer { value, ty } => {
            let value = match signed_or_unsigned_width(ctx, ty) {
                Some(width) => sign_extend(value, width),
                None => value,
            };
            AttrKind::Integer {
                value,
                ty: signless_type(ctx, ty),
            }
        }
        AttrKind::DenseElements { ty, data } => {
            let data = match signed_or_unsigned_width(ctx, ty) {
                Some(width) => DenseData {
                    splat: data.splat,
                    elements: data
                        .elements
                        .into_iter()
                        .map(|e| match e {
                            DenseElement::Int(v) => DenseElement::Int(sign_extend(v, width)),
                            DenseElement::ComplexInt(re, im) => DenseElement::ComplexInt(
                                sign_extend(re, width),
                                sign_extend(im, width),
                            ),
                            other => other,
                        })
                        .collect(),
                },
                None => data,
            };
            AttrKind::DenseElements {
                ty: signless_type(ctx, ty),
                data,
            }
        }
        AttrKind::DenseResource { handle, ty } => AttrKind::DenseResource {
            handle,
            ty: signless_type(ctx, ty),
        },
        AttrKind::Array(items) => {
            AttrKind::Array(items.into_iter().map(|a| signless_attr(ctx, a)).collect())
        }
        AttrKind::Dictionary(entries) => AttrKind::Dictionary(
            entries
                .into_iter()
                .map(|(name, a)| (name, signless_attr(ctx, a)))
                .collect(),
        ),
        _ => return attr,
    };
    ctx.intern_attr(converted)
}

#[cfg(test)]
mod tests {
    use super::sign_extend;

    #[test]
    fn unsigned_values_sign_extend_to_their_signless_bits() {
        assert_eq!(sign_extend(200, 8), -56);
        assert_eq!(sign_extend(127, 8), 127);
        assert_eq!(sign_extend(65535, 16), -1);
        assert_eq!(sign_extend(-5, 32), -5);
    }
}
