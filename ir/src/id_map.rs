//! Rewriting the interned ids held inside a type, attribute or location kind, so that a
//! kind read in one context can be interned in another (see [`crate::import`]).
//!
//! The matches are exhaustive on purpose: a new kind that holds a `Type` or an `Attr`
//! must say here how its ids move.

use crate::attributes::{Attr, AttrKind};
use crate::location::LocationKind;
use crate::types::{Type, TypeKind};

/// Where ids of one context go in another.
pub trait IdMap {
    fn ty(&mut self, ty: Type) -> Type;
    fn attr(&mut self, attr: Attr) -> Attr;
}

fn types(ids: &[Type], m: &mut dyn IdMap) -> Vec<Type> {
    ids.iter().map(|&t| m.ty(t)).collect()
}

impl TypeKind {
    /// This kind with every nested id mapped through `m`.
    pub fn map_ids(&self, m: &mut dyn IdMap) -> TypeKind {
        match self {
            TypeKind::Integer {
                width: _,
                signedness: _,
            }
            | TypeKind::Index
            | TypeKind::Float(_)
            | TypeKind::None
            | TypeKind::Opaque {
                dialect: _,
                body: _,
            }
            | TypeKind::Dialect(_) => self.clone(),
            TypeKind::Complex(element) => TypeKind::Complex(m.ty(*element)),
            TypeKind::Tuple(elements) => TypeKind::Tuple(types(elements, m)),
            TypeKind::Function { inputs, results } => TypeKind::Function {
                inputs: types(inputs, m),
                results: types(results, m),
            },
            TypeKind::RankedTensor {
                shape,
                element,
                encoding,
            } => TypeKind::RankedTensor {
                shape: shape.clone(),
                element: m.ty(*element),
                encoding: encoding.map(|a| m.attr(a)),
            },
            TypeKind::UnrankedTensor { element } => TypeKind::UnrankedTensor {
                element: m.ty(*element),
            },
            TypeKind::MemRef {
                shape,
                element,
                layout,
                memory_space,
            } => TypeKind::MemRef {
                shape: shape.clone(),
                element: m.ty(*element),
                layout: layout.map(|a| m.attr(a)),
                memory_space: memory_space.map(|a| m.attr(a)),
            },
            TypeKind::UnrankedMemRef {
                element,
                memory_space,
            } => TypeKind::UnrankedMemRef {
                element: m.ty(*element),
                memory_space: memory_space.map(|a| m.attr(a)),
            },
            TypeKind::Vector {
                shape,
                scalable,
                element,
            } => TypeKind::Vector {
                shape: shape.clone(),
                scalable: scalable.clone(),
                element: m.ty(*element),
            },
        }
    }
}

impl AttrKind {
    /// This kind with every nested id mapped through `m`.
    pub fn map_ids(&self, m: &mut dyn IdMap) -> AttrKind {
        match self {
            AttrKind::Unit
            | AttrKind::SymbolRef { root: _, nested: _ }
            | AttrKind::AffineMap(_)
            | AttrKind::IntegerSet(_)
            | AttrKind::Strided {
                strides: _,
                offset: _,
            } => self.clone(),
            AttrKind::Integer { value, ty } => AttrKind::Integer {
                value: *value,
                ty: m.ty(*ty),
            },
            AttrKind::WideInteger {
                negative,
                magnitude,
                ty,
            } => AttrKind::WideInteger {
                negative: *negative,
                magnitude: *magnitude,
                ty: m.ty(*ty),
            },
            AttrKind::Float { bits, ty } => AttrKind::Float {
                bits: *bits,
                ty: m.ty(*ty),
            },
            AttrKind::String { value, ty } => AttrKind::String {
                value: value.clone(),
                ty: ty.map(|t| m.ty(t)),
            },
            AttrKind::Array(elements) => {
                AttrKind::Array(elements.iter().map(|&a| m.attr(a)).collect())
            }
            // Keys stay sorted and unique: only the values change.
            AttrKind::Dictionary(entries) => AttrKind::Dictionary(
                entries
                    .iter()
                    .map(|(k, a)| (k.clone(), m.attr(*a)))
                    .collect(),
            ),
            AttrKind::Type(ty) => AttrKind::Type(m.ty(*ty)),
            AttrKind::DenseElements { ty, data } => AttrKind::DenseElements {
                ty: m.ty(*ty),
                data: data.clone(),
            },
            AttrKind::DenseStrings { ty, splat, values } => AttrKind::DenseStrings {
                ty: m.ty(*ty),
                splat: *splat,
                values: values.clone(),
            },
            AttrKind::Sparse {
                ty,
                index_shape,
                indices,
                values,
            } => AttrKind::Sparse {
                ty: m.ty(*ty),
                index_shape: index_shape.clone(),
                indices: indices.clone(),
                values: values.map(|a| m.attr(a)),
            },
            AttrKind::Distinct { id, inner } => AttrKind::Distinct {
                id: *id,
                inner: m.attr(*inner),
            },
            AttrKind::DenseResource { handle, ty } => AttrKind::DenseResource {
                handle: handle.clone(),
                ty: m.ty(*ty),
            },
            AttrKind::DenseArray { element, data } => AttrKind::DenseArray {
                element: m.ty(*element),
                data: data.clone(),
            },
            AttrKind::Location(loc) => AttrKind::Location(loc.map_ids(m)),
            AttrKind::Opaque { dialect, body, ty } => AttrKind::Opaque {
                dialect: dialect.clone(),
                body: body.clone(),
                ty: ty.map(|t| m.ty(t)),
            },
            // Typed dialect attributes hold no ids.
            AttrKind::Dialect(value) => AttrKind::Dialect(value.clone()),
        }
    }
}

impl LocationKind {
    /// This kind with every nested id mapped through `m`.
    pub fn map_ids(&self, m: &mut dyn IdMap) -> LocationKind {
        match self {
            LocationKind::Unknown
            | LocationKind::FileLineCol {
                file: _,
                line: _,
                col: _,
                end: _,
            } => self.clone(),
            LocationKind::Name { name, child } => LocationKind::Name {
                name: name.clone(),
                child: child.map(|c| m.attr(c)),
            },
            LocationKind::CallSite { callee, caller } => LocationKind::CallSite {
                callee: m.attr(*callee),
                caller: m.attr(*caller),
            },
            LocationKind::Fused {
                locations,
                metadata,
            } => LocationKind::Fused {
                locations: locations.iter().map(|&l| m.attr(l)).collect(),
                metadata: metadata.map(|a| m.attr(a)),
            },
        }
    }
}
