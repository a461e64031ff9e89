//! The context: interned types, attributes and operation names, the arenas that hold
//! operations, blocks, regions and values, and the resource blobs of `dense_resource`.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::Value;
use crate::arena::Arena;
use crate::attributes::{Attr, AttrKind};
use crate::block::BlockData;
use crate::interner::Interner;
use crate::location::{Location, LocationKind};
use crate::operation::{OpData, OpName};
use crate::region::RegionData;
use crate::types::{FloatKind, Signedness, Type, TypeKind};
use crate::value::{ValueData, ValueDef};

/// A blob of a `dense_resource` attribute (the `{-# dialect_resources #-}` trailer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceBlob {
    /// Required alignment of the data in bytes.
    pub alignment: u32,
    pub data: Vec<u8>,
}

/// A value in the `external_resources` section: kept for tools other than ours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternalResourceValue {
    Bool(bool),
    /// A string or hex blob, as decoded bytes of the string literal.
    String(Vec<u8>),
}

#[derive(Default)]
pub struct Context {
    pub(crate) types: Interner<TypeKind>,
    pub(crate) attrs: Interner<AttrKind>,
    pub(crate) op_names: Interner<String>,
    pub(crate) ops: Arena<OpData>,
    pub(crate) blocks: Arena<BlockData>,
    pub(crate) regions: Arena<RegionData>,
    pub(crate) values: Arena<ValueData>,
    /// `builtin` dialect resource blobs by handle; shared with forks of this context
    /// (`Arc::make_mut` to change it), since blobs may be large.
    pub resources: Arc<IndexMap<String, ResourceBlob>>,
    /// `external_resources` entries by group, printed back as they were read.
    pub external_resources: IndexMap<String, Vec<(String, ExternalResourceValue)>>,
    /// Whether operations of dialects nobody registered are accepted.
    pub allow_unregistered_dialects: bool,
    pub(crate) dialects: std::collections::HashSet<String>,
    pub(crate) registered_ops:
        std::collections::HashMap<String, std::sync::Arc<crate::registry::OpInfo>>,
    /// Registered ops indexed by interned name, for lookups on hot paths.
    pub(crate) op_info_by_name: Vec<Option<std::sync::Arc<crate::registry::OpInfo>>>,
    pub(crate) dialect_infos: std::collections::HashMap<String, crate::registry::DialectInfo>,
    /// Default attribute values of op definitions, parsed once.
    pub(crate) parsed_defaults: rustc_hash::FxHashMap<&'static str, Attr>,
    /// Typed dialect attributes by (dialect, mnemonic).
    pub(crate) attr_parsers:
        rustc_hash::FxHashMap<(&'static str, &'static str), crate::dialect_attr::ParseAttrFn>,
    /// Typed dialect types by (dialect, mnemonic).
    pub(crate) type_parsers:
        rustc_hash::FxHashMap<(&'static str, &'static str), crate::dialect_type::ParseTypeFn>,
    /// The op kind (enum type and variant index) of each registered op, by interned name.
    pub(crate) op_kind_by_name: Vec<Option<crate::ods::kinds::OpKindTag>>,
}

impl Context {
    /// A context that knows the `builtin` dialect.
    pub fn new() -> Context {
        let mut ctx = Context::default();
        crate::builtin::register(&mut ctx);
        ctx
    }

    // ---- types ----

    pub fn intern_type(&mut self, kind: TypeKind) -> Type {
        Type(self.types.intern_owned(kind))
    }

    pub fn type_kind(&self, ty: Type) -> &TypeKind {
        self.types.get(ty.0)
    }

    pub fn integer_type(&mut self, width: u32, signedness: Signedness) -> Type {
        self.intern_type(TypeKind::Integer { width, signedness })
    }

    /// `ty` without signedness: `ui8` and `si8` become `i8`; every other type is itself.
    /// Scalar arithmetic (`arith`) computes on signless integers and puts the signedness
    /// in the operation instead.
    pub fn signless(&mut self, ty: Type) -> Type {
        match *self.type_kind(ty) {
            TypeKind::Integer { width, .. } => self.integer_type(width, Signedness::Signless),
            _ => ty,
        }
    }

    /// Whether `scalar` is `signless(ty)`, which [`Context::signless`] would intern.
    pub fn is_signless_of(&self, scalar: Type, ty: Type) -> bool {
        match (self.type_kind(scalar), self.type_kind(ty)) {
            (
                TypeKind::Integer {
                    width: a,
                    signedness: Signedness::Signless,
                },
                TypeKind::Integer { width: b, .. },
            ) => a == b,
            (_, TypeKind::Integer { .. }) => false,
            _ => scalar == ty,
        }
    }

    pub fn i1(&mut self) -> Type {
        self.integer_type(1, Signedness::Signless)
    }

    pub fn i64(&mut self) -> Type {
        self.integer_type(64, Signedness::Signless)
    }

    pub fn index_type(&mut self) -> Type {
        self.intern_type(TypeKind::Index)
    }

    pub fn float_type(&mut self, kind: FloatKind) -> Type {
        self.intern_type(TypeKind::Float(kind))
    }

    pub fn function_type(&mut self, inputs: Vec<Type>, results: Vec<Type>) -> Type {
        self.intern_type(TypeKind::Function { inputs, results })
    }

    // ---- attributes ----

    pub fn intern_attr(&mut self, kind: AttrKind) -> Attr {
        Attr(self.attrs.intern_owned(kind))
    }

    pub fn attr_kind(&self, attr: Attr) -> &AttrKind {
        self.attrs.get(attr.0)
    }

    pub fn unit_attr(&mut self) -> Attr {
        self.intern_attr(AttrKind::Unit)
    }

    pub fn string_attr(&mut self, value: &str) -> Attr {
        self.intern_attr(AttrKind::String {
            value: value.as_bytes().to_vec(),
            ty: None,
        })
    }

    pub fn type_attr(&mut self, ty: Type) -> Attr {
        self.intern_attr(AttrKind::Type(ty))
    }

    pub fn integer_attr(&mut self, value: i128, ty: Type) -> Attr {
        self.intern_attr(AttrKind::Integer { value, ty })
    }

    /// Builds a dictionary; later duplicates of a key are the caller's error and dropped.
    pub fn dictionary_attr(&mut self, mut entries: Vec<(String, Attr)>) -> Attr {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|b, a| a.0 == b.0);
        self.intern_attr(AttrKind::Dictionary(entries))
    }

    pub fn dictionary_entries(&self, dict: Attr) -> &[(String, Attr)] {
        match self.attr_kind(dict) {
            AttrKind::Dictionary(entries) => entries,
            _ => &[],
        }
    }

    pub fn dictionary_get(&self, dict: Attr, name: &str) -> Option<Attr> {
        let entries = self.dictionary_entries(dict);
        entries
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()
            .map(|i| entries[i].1)
    }

    /// The string of a string attribute, if it is valid UTF-8.
    pub fn attr_as_str(&self, attr: Attr) -> Option<&str> {
        match self.attr_kind(attr) {
            AttrKind::String { value, .. } => std::str::from_utf8(value).ok(),
            _ => None,
        }
    }

    // ---- locations ----

    pub fn location(&mut self, kind: LocationKind) -> Location {
        self.intern_attr(AttrKind::Location(kind))
    }

    pub fn unknown_loc(&mut self) -> Location {
        self.location(LocationKind::Unknown)
    }

    pub fn file_loc(&mut self, file: &str, line: u32, col: u32) -> Location {
        self.location(LocationKind::FileLineCol {
            file: file.to_string(),
            line,
            col,
            end: None,
        })
    }

    pub fn location_kind(&self, loc: Location) -> Option<&LocationKind> {
        match self.attr_kind(loc) {
            AttrKind::Location(kind) => Some(kind),
            _ => None,
        }
    }

    // ---- operation names ----

    pub fn intern_op_name(&mut self, name: &str) -> OpName {
        OpName(self.op_names.intern(name, || name.to_string()))
    }

    pub fn op_name_str(&self, name: OpName) -> &str {
        self.op_names.get(name.0)
    }

    // ---- values ----

    pub(crate) fn new_value(&mut self, ty: Type, def: ValueDef, loc: Option<Location>) -> Value {
        Value(self.values.push(ValueData {
            ty,
            def,
            loc,
            uses: Default::default(),
        }))
    }

    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v.0 as usize]
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.0 as usize].ty
    }

    /// Changes a value's type (used when a forward reference is resolved).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.0 as usize].ty = ty;
    }
}
