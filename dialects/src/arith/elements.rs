//! Constant folding over every element of a constant, as MLIR's `constFoldBinaryOp` and
//! `constFoldCastOp` do: a scalar or a splat folds to a scalar or a splat, and a dense
//! vector or tensor folds element by element (one element that does not fold, such as a
//! division by zero, leaves the whole op alone).

use super::fold::Scalar;
use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::registry::FoldResult;
use tb_ir::{Attr, Context, Type, TypeKind};

/// The value of a constant operand, element by element.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Elements {
    /// A scalar, or the one value of a splat.
    One(Scalar),
    /// Every element of a non-splat dense constant, in row-major order.
    Each(Vec<Scalar>),
}

/// The elements of a constant attribute (integers, floats and dense integer or float data).
pub(super) fn elements(ctx: &Context, attr: Option<Attr>) -> Option<Elements> {
    let element = |e: &DenseElement| match e {
        DenseElement::Int(v) => Some(Scalar::Int(*v)),
        DenseElement::Float(b) => Some(Scalar::Float(*b)),
        _ => None,
    };
    match ctx.attr_kind(attr?) {
        AttrKind::Integer { value, .. } => Some(Elements::One(Scalar::Int(*value))),
        AttrKind::Float { bits, .. } => Some(Elements::One(Scalar::Float(*bits))),
        AttrKind::DenseElements { data, .. } if data.splat || data.elements.len() == 1 => {
            Some(Elements::One(element(data.elements.first()?)?))
        }
        AttrKind::DenseElements { data, .. } => Some(Elements::Each(
            data.elements.iter().map(element).collect::<Option<_>>()?,
        )),
        _ => None,
    }
}

/// `f` applied to each element; `None` if it fails on any.
pub(super) fn map(a: &Elements, f: impl Fn(Scalar) -> Option<Scalar>) -> Option<Elements> {
    match a {
        Elements::One(x) => f(*x).map(Elements::One),
        Elements::Each(xs) => xs
            .iter()
            .map(|x| f(*x))
            .collect::<Option<_>>()
            .map(Elements::Each),
    }
}

/// `f` applied to pairs of elements (a splat pairs with every element of the other side);
/// `None` if it fails on any pair or the element counts differ.
pub(super) fn zip(
    a: &Elements,
    b: &Elements,
    f: impl Fn(Scalar, Scalar) -> Option<Scalar>,
) -> Option<Elements> {
    match (a, b) {
        (Elements::One(x), Elements::One(y)) => f(*x, *y).map(Elements::One),
        (Elements::One(x), Elements::Each(ys)) => ys
            .iter()
            .map(|y| f(*x, *y))
            .collect::<Option<_>>()
            .map(Elements::Each),
        (Elements::Each(xs), Elements::One(y)) => xs
            .iter()
            .map(|x| f(*x, *y))
            .collect::<Option<_>>()
            .map(Elements::Each),
        (Elements::Each(xs), Elements::Each(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys)
            .map(|(x, y)| f(*x, *y))
            .collect::<Option<_>>()
            .map(Elements::Each),
        _ => None,
    }
}

/// The constant of type `ty` holding `value`: a scalar attribute, or a dense attribute in
/// the canonical form the parser gives (uniform data as a splat, one element not).
pub(super) fn attr_kind(ctx: &Context, ty: Type, value: Elements) -> Option<AttrKind> {
    let shape = match ctx.type_kind(ty) {
        TypeKind::Vector { shape, .. } | TypeKind::RankedTensor { shape, .. } => shape.clone(),
        _ => {
            return match value {
                Elements::One(Scalar::Int(value)) => Some(AttrKind::Integer { value, ty }),
                Elements::One(Scalar::Float(bits)) => Some(AttrKind::Float { bits, ty }),
                Elements::Each(_) => None,
            };
        }
    };
    if shape.iter().any(|&d| d < 0) {
        return None;
    }
    let count: i64 = shape.iter().product();
    let mut values = match value {
        Elements::One(x) => vec![x],
        Elements::Each(xs) if xs.len() as i64 == count => xs,
        Elements::Each(_) => return None,
    };
    if values.iter().all(|v| *v == values[0]) {
        values.truncate(1);
    }
    let splat = values.len() == 1 && count != 1;
    Some(AttrKind::DenseElements {
        ty,
        data: DenseData {
            splat,
            elements: values
                .into_iter()
                .map(|v| match v {
                    Scalar::Int(i) => DenseElement::Int(i),
                    Scalar::Float(b) => DenseElement::Float(b),
                })
                .collect(),
        },
    })
}

/// [`attr_kind`] as a fold result.
pub(super) fn fold_result(ctx: &Context, ty: Type, value: Elements) -> Option<FoldResult> {
    attr_kind(ctx, ty, value).map(FoldResult::NewAttr)
}
