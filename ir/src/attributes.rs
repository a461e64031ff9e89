//! Builtin attributes (MLIR 22 syntax), interned in the [`Context`](crate::Context).
//!
//! Locations are attributes too, as in MLIR; their variants live in [`LocationKind`].

use crate::affine::{AffineMap, IntegerSet};
use crate::location::LocationKind;
use crate::types::Type;

/// An interned attribute; compare by id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Attr(pub(crate) u32);

/// One element of a `dense<...>` literal.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DenseElement {
    /// Integer, index or bool element, sign- or zero-extended as its type says.
    Int(i128),
    /// Float element as raw bits of the element type.
    Float(u128),
    /// Complex element: real and imaginary parts.
    ComplexInt(i128, i128),
    ComplexFloat(u128, u128),
}

/// The payload of `dense<...>`: one value for a splat, else every element in row-major order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DenseData {
    pub splat: bool,
    pub elements: Vec<DenseElement>,
}

/// A `array<T: ...>` payload.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DenseArrayData {
    Int(Vec<i128>),
    Float(Vec<u128>),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrKind {
    Unit,
    /// Integer, index and bool (`i1`) attributes; the value is canonical for its type
    /// (sign-extended for signless and signed types, zero-extended for unsigned ones).
    Integer {
        value: i128,
        ty: Type,
    },
    /// An integer of a type wider than 128 bits whose value does not fit `i128`.
    WideInteger {
        negative: bool,
        magnitude: u128,
        ty: Type,
    },
    /// Float attribute as raw bits of `ty`.
    Float {
        bits: u128,
        ty: Type,
    },
    /// String attribute; bytes may be any (escapes decode to bytes), with an optional type.
    String {
        value: Vec<u8>,
        ty: Option<Type>,
    },
    Array(Vec<Attr>),
    /// Dictionary sorted by key, keys unique.
    Dictionary(Vec<(String, Attr)>),
    Type(Type),
    /// `@root::@nested...`
    SymbolRef {
        root: String,
        nested: Vec<String>,
    },
    DenseElements {
        ty: Type,
        data: DenseData,
    },
    /// `dense<["a", "b"]>` over a non-numeric element type; one entry for a splat.
    DenseStrings {
        ty: Type,
        splat: bool,
        values: Vec<Vec<u8>>,
    },
    /// `sparse<indices, values> : type`. Indices keep the shape they were written with;
    /// `values` is a dense attribute (numeric or strings) over the listed elements.
    Sparse {
        ty: Type,
        index_shape: Vec<i64>,
        indices: Vec<i64>,
        values: Option<Attr>,
    },
    /// `distinct[id]<attr>`: unique per id within a module.
    Distinct {
        id: u64,
        inner: Attr,
    },
    /// `dense_resource<handle> : type`; the blob lives in the context's resource table.
    DenseResource {
        handle: String,
        ty: Type,
    },
    DenseArray {
        element: Type,
        data: DenseArrayData,
    },
    AffineMap(AffineMap),
    IntegerSet(IntegerSet),
    /// `strided<[strides], offset: o>`; dynamic entries are `DYNAMIC`.
    Strided {
        strides: Vec<i64>,
        offset: i64,
    },
    Location(LocationKind),
    /// An attribute of a dialect this context does not know: `#dialect.body` kept verbatim,
    /// with its optional `: type`.
    Opaque {
        dialect: String,
        body: String,
        ty: Option<Type>,
    },
    /// An attribute a dialect defines as a typed value (`#arith.fastmath<fast>`), registered
    /// with [`Context::register_attr`](crate::Context::register_attr).
    Dialect(crate::dialect_attr::DialectAttr),
}
