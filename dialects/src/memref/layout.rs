//! Memref types as MLIR's strided layouts see them: shapes, strides and offsets, with
//! `?` ([`DYNAMIC`]) absorbing any arithmetic it takes part in.

use tb_ir::affine::AffineMap;
use tb_ir::attributes::AttrKind;
use tb_ir::printer::{attr_to_string, type_to_string};
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, Type, TypeKind};

/// The parts of a ranked memref type.
#[derive(Clone, Debug)]
pub(crate) struct MemRef {
    pub shape: Vec<i64>,
    pub element: Type,
    pub layout: Option<Attr>,
    pub memory_space: Option<Attr>,
}

impl MemRef {
    pub fn of(ctx: &Context, ty: Type) -> Option<MemRef> {
        match ctx.type_kind(ty) {
            TypeKind::MemRef {
                shape,
                element,
                layout,
                memory_space,
            } => Some(MemRef {
                shape: shape.clone(),
                element: *element,
                layout: *layout,
                memory_space: *memory_space,
            }),
            _ => None,
        }
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn build(&self, ctx: &mut Context) -> Type {
        ctx.intern_type(TypeKind::MemRef {
            shape: self.shape.clone(),
            element: self.element,
            layout: self.layout,
            memory_space: self.memory_space,
        })
    }

    /// This type with another shape.
    pub fn with_shape(&self, shape: Vec<i64>) -> MemRef {
        MemRef {
            shape,
            ..self.clone()
        }
    }

    /// Whether the layout is the identity map, as MLIR's `isIdentity` of the layout
    /// sees it: no layout, an identity map, or `strided<[1]>` (whose map is `(d0) -> (d0)`).
    pub fn has_identity_layout(&self, ctx: &Context) -> bool {
        match self.layout.map(|l| ctx.attr_kind(l)) {
            None => true,
            Some(AttrKind::AffineMap(map)) => map.is_identity(),
            Some(AttrKind::Strided { strides, offset }) => *offset == 0 && strides[..] == [1],
            Some(_) => false,
        }
    }

    /// Strides and offset of the layout, if it is strided.
    pub fn strides_and_offset(&self, ctx: &Context) -> Option<(Vec<i64>, i64)> {
        match self.layout.map(|l| ctx.attr_kind(l)) {
            None => Some((canonical_strides(&self.shape), 0)),
            Some(AttrKind::Strided { strides, offset }) => Some((strides.clone(), *offset)),
            Some(AttrKind::AffineMap(map)) if map.is_identity() => {
                Some((canonical_strides(&self.shape), 0))
            }
            Some(AttrKind::AffineMap(map)) => linear_map_strides(map, self.rank()),
            Some(_) => None,
        }
    }

    /// How many symbol operands the layout takes (an allocation binds them).
    pub fn layout_symbols(&self, ctx: &Context) -> usize {
        match self.layout.map(|l| ctx.attr_kind(l)) {
            Some(AttrKind::AffineMap(map)) if !map.is_identity() => map.num_symbols as usize,
            Some(AttrKind::Strided { strides, offset }) => strides
                .iter()
                .chain([offset])
                .filter(|&&v| v == DYNAMIC)
                .count(),
            _ => 0,
        }
    }

    pub fn dynamic_dims(&self) -> usize {
        self.shape.iter().filter(|&&d| d == DYNAMIC).count()
    }

    /// The index among the dynamic sizes of dimension `dim` (which must be dynamic).
    pub fn dynamic_index(&self, dim: usize) -> usize {
        self.shape[..dim].iter().filter(|&&d| d == DYNAMIC).count()
    }
}

/// Row-major strides of `shape`; past a dynamic or zero size every stride is dynamic.
pub(crate) fn canonical_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    let (mut running, mut unknown) = (1i64, false);
    for (i, &size) in shape.iter().enumerate().rev() {
        strides[i] = if unknown { DYNAMIC } else { running };
        match running.checked_mul(size) {
            Some(next) if size > 0 => running = next,
            _ => unknown = true,
        }
    }
    strides
}

/// The strides and offset of a one-result layout map that is linear in the dims, as
/// MLIR's `getStridesAndOffset` reads it: `d_i * c` gives stride `c`, a coefficient or
/// offset term involving symbols is dynamic, a product of dims or a division of one is
/// not strided.
fn linear_map_strides(map: &AffineMap, rank: usize) -> Option<(Vec<i64>, i64)> {
    if map.num_results() != 1 || map.num_dims as usize != rank {
        return None;
    }
    let (strides, offset) = linear_terms(map.get_result(0)?, rank)?;
    Some((strides, offset))
}

/// Coefficients of each dim and the dim-free rest of `expr` (`?` where symbols enter).
fn linear_terms(expr: &tb_ir::affine::AffineExpr, rank: usize) -> Option<(Vec<i64>, i64)> {
    use tb_ir::affine::AffineExpr as E;
    let dim_free = |strides: &[i64]| strides.iter().all(|&s| s == 0);
    Some(match expr {
        E::Dim(d) => {
            let mut strides = vec![0; rank];
            *strides.get_mut(*d as usize)? = 1;
            (strides, 0)
        }
        E::Symbol(_) => (vec![0; rank], DYNAMIC),
        E::Constant(c) => (vec![0; rank], *c),
        E::Add(a, b) => {
            let (sa, oa) = linear_terms(a, rank)?;
            let (sb, ob) = linear_terms(b, rank)?;
            let strides = sa.iter().zip(&sb).map(|(&x, &y)| add(x, y)).collect();
            (strides, add(oa, ob))
        }
        E::Mul(a, b) => {
            let (sa, oa) = linear_terms(a, rank)?;
            let (sb, ob) = linear_terms(b, rank)?;
            // One side must be free of dims: it scales the other.
            let (terms, offset, factor) = if dim_free(&sb) {
                (sa, oa, ob)
            } else if dim_free(&sa) {
                (sb, ob, oa)
            } else {
                return None;
            };
            let strides = terms.iter().map(|&t| mul(t, factor)).collect();
            (strides, mul(offset, factor))
        }
        E::FloorDiv(a, b) | E::CeilDiv(a, b) | E::Mod(a, b) => {
            let (sa, oa) = linear_terms(a, rank)?;
            let (sb, ob) = linear_terms(b, rank)?;
            if !dim_free(&sa) || !dim_free(&sb) {
                return None;
            }
            let value = if oa == DYNAMIC || ob == DYNAMIC {
                DYNAMIC
            } else {
                expr.evaluate(&vec![0; rank], &[]).unwrap_or(DYNAMIC)
            };
            (vec![0; rank], value)
        }
    })
}

/// `a * b`: zero if either is zero, else dynamic if either is (or on overflow).
pub(crate) fn mul(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    if a == DYNAMIC || b == DYNAMIC {
        return DYNAMIC;
    }
    a.checked_mul(b).unwrap_or(DYNAMIC)
}

/// `a + b`, dynamic if either is (or on overflow).
pub(crate) fn add(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        return DYNAMIC;
    }
    a.checked_add(b).unwrap_or(DYNAMIC)
}

pub(crate) fn strided_layout(ctx: &mut Context, strides: Vec<i64>, offset: i64) -> Attr {
    ctx.intern_attr(AttrKind::Strided { strides, offset })
}

/// Element type and memory space of a ranked or unranked memref.
pub(crate) fn element_and_space(ctx: &Context, ty: Type) -> Option<(Type, Option<Attr>)> {
    match ctx.type_kind(ty) {
        TypeKind::MemRef {
            element,
            memory_space,
            ..
        }
        | TypeKind::UnrankedMemRef {
            element,
            memory_space,
        } => Some((*element, *memory_space)),
        _ => None,
    }
}

/// `a` and `b` agree where both are static.
pub(crate) fn compatible(a: i64, b: i64) -> bool {
    a == DYNAMIC || b == DYNAMIC || a == b
}

/// Whether a memref cast from `from` to `to` is valid: same element type and memory
/// space, and for ranked types the same rank with sizes, strides and offset that agree
/// where both are static. Unranked to unranked is not a cast.
pub(crate) fn cast_compatible(ctx: &Context, from: Type, to: Type) -> bool {
    let (Some(a), Some(b)) = (MemRef::of(ctx, from), MemRef::of(ctx, to)) else {
        let ranked = |t: Type| matches!(ctx.type_kind(t), TypeKind::MemRef { .. });
        return match (element_and_space(ctx, from), element_and_space(ctx, to)) {
            (Some(x), Some(y)) => (ranked(from) || ranked(to)) && x == y,
            _ => false,
        };
    };
    if a.element != b.element || a.memory_space != b.memory_space || a.rank() != b.rank() {
        return false;
    }
    if a.layout != b.layout {
        let (Some((sa, oa)), Some((sb, ob))) =
            (a.strides_and_offset(ctx), b.strides_and_offset(ctx))
        else {
            return false;
        };
        if !compatible(oa, ob) || sa.iter().zip(&sb).any(|(&x, &y)| !compatible(x, y)) {
            return false;
        }
    }
    a.shape
        .iter()
        .zip(&b.shape)
        .all(|(&x, &y)| compatible(x, y))
}

/// Whether a cast only forgets static information (sizes, strides, offset), so that its
/// users may take its source instead (MLIR's `CastOp::canFoldIntoConsumerOp`).
pub(crate) fn cast_only_erases(ctx: &Context, from: Type, to: Type) -> bool {
    let (Some(a), Some(b)) = (MemRef::of(ctx, from), MemRef::of(ctx, to)) else {
        return false;
    };
    if a.element != b.element || a.rank() != b.rank() {
        return false;
    }
    let (Some((sa, oa)), Some((sb, ob))) = (a.strides_and_offset(ctx), b.strides_and_offset(ctx))
    else {
        return false;
    };
    let erases = |x: i64, y: i64| x == y || x != DYNAMIC || y == DYNAMIC;
    a.shape.iter().zip(&b.shape).all(|(&x, &y)| erases(x, y))
        && erases(oa, ob)
        && sa.iter().zip(&sb).all(|(&x, &y)| erases(x, y))
}

/// A memref type given by its parts: what a verifier computes (an expected result type)
/// and may only print, or a rewrite builds. `strided` is `None` for the identity layout.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Described {
    pub shape: Vec<i64>,
    pub element: Type,
    pub strided: Option<(Vec<i64>, i64)>,
    pub memory_space: Option<Attr>,
}

impl Described {
    /// Whether `ty` is this very type (layouts compared as written, as MLIR does).
    pub fn is(&self, ctx: &Context, ty: Type) -> bool {
        let Some(m) = MemRef::of(ctx, ty) else {
            return false;
        };
        let layout_same = match (m.layout.map(|l| ctx.attr_kind(l)), &self.strided) {
            (None, None) => true,
            (Some(AttrKind::Strided { strides, offset }), Some((s, o))) => {
                strides == s && offset == o
            }
            _ => false,
        };
        layout_same
            && m.shape == self.shape
            && m.element == self.element
            && m.memory_space == self.memory_space
    }

    pub fn build(&self, ctx: &mut Context) -> Type {
        let layout = self
            .strided
            .clone()
            .map(|(strides, offset)| strided_layout(ctx, strides, offset));
        ctx.intern_type(TypeKind::MemRef {
            shape: self.shape.clone(),
            element: self.element,
            layout,
            memory_space: self.memory_space,
        })
    }

    /// The type as MLIR prints it.
    pub fn to_text(&self, ctx: &Context) -> String {
        let dim = |d: i64| {
            if d == DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        };
        let mut out = String::from("memref<");
        for &d in &self.shape {
            out.push_str(&dim(d));
            out.push('x');
        }
        out.push_str(&type_to_string(ctx, self.element));
        if let Some((strides, offset)) = &self.strided {
            let strides: Vec<String> = strides.iter().map(|&s| dim(s)).collect();
            out.push_str(&format!(", strided<[{}]", strides.join(", ")));
            if *offset != 0 {
                out.push_str(&format!(", offset: {}", dim(*offset)));
            }
            out.push('>');
        }
        if let Some(space) = self.memory_space {
            out.push_str(", ");
            let text = attr_to_string(ctx, space);
            // Integer memory spaces print bare.
            out.push_str(text.strip_suffix(" : i64").unwrap_or(&text));
        }
        out.push('>');
        out
    }

    pub fn strides_and_offset(&self) -> (Vec<i64>, i64) {
        self.strided
            .clone()
            .unwrap_or_else(|| (canonical_strides(&self.shape), 0))
    }
}
