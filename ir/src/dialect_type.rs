//! Typed dialect types: the extension point through which a dialect defines its own types
//! (`!gpu.async_token`, `!schedule.handle<...>`) in its own crate, the way MLIR's `TypeDef`
//! does, without touching this crate. It is the type-side twin of
//! [`dialect_attr`](crate::dialect_attr).
//!
//! A dialect writes a plain Rust value type and implements [`TypedType`] for it (namespace,
//! mnemonic, how the body after the mnemonic parses and prints) and registers it once with
//! [`Context::register_type`]. The parser then turns `!dialect.mnemonic<body>` into a
//! [`TypeKind::Dialect`] holding the parsed value (a malformed body is a located parse
//! error), the printer writes it back through the value's printer, interning hashes and
//! compares the values, and passes read it back with [`Context::typed_type`]. Types of
//! dialects that register no such type stay [`TypeKind::Opaque`] text (accepted only with
//! `--allow-unregistered-dialect`).
//!
//! A typed type holds plain data, no ids of a context, so the same value means the same type
//! in every context.

use std::any::Any;
use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::context::Context;
use crate::types::{Type, TypeKind};

/// A value type a dialect defines as a type.
pub trait TypedType: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    /// The namespace of the defining dialect (`gpu`).
    const DIALECT: &'static str;
    /// The type's name within its dialect (`async_token`).
    const MNEMONIC: &'static str;

    /// Parses (and verifies) the body as written after the mnemonic (`<4, global>`, or
    /// empty); the error is reported at the type.
    fn parse(body: &str) -> Result<Self, String>;

    /// Prints the body in canonical form, as [`TypedType::parse`] reads it back.
    fn print(&self, out: &mut String);
}

/// The object-safe face of a [`TypedType`], stored in interned types.
pub trait DynTypedType: Debug + Send + Sync {
    fn dialect(&self) -> &'static str;
    fn mnemonic(&self) -> &'static str;
    fn print_body(&self, out: &mut String);
    fn as_any(&self) -> &dyn Any;
    fn dyn_eq(&self, other: &dyn DynTypedType) -> bool;
    fn dyn_hash(&self, state: &mut dyn Hasher);
}

impl<T: TypedType> DynTypedType for T {
    fn dialect(&self) -> &'static str {
        T::DIALECT
    }
    fn mnemonic(&self) -> &'static str {
        T::MNEMONIC
    }
    fn print_body(&self, out: &mut String) {
        self.print(out)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn dyn_eq(&self, other: &dyn DynTypedType) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        std::any::TypeId::of::<T>().hash(&mut state);
        self.hash(&mut state);
    }
}

/// A typed dialect type value, as stored in [`TypeKind::Dialect`].
#[derive(Clone, Debug)]
pub struct DialectType(Arc<dyn DynTypedType>);

impl DialectType {
    pub fn new<T: TypedType>(value: T) -> DialectType {
        DialectType(Arc::new(value))
    }

    pub fn dialect(&self) -> &'static str {
        self.0.dialect()
    }

    pub fn mnemonic(&self) -> &'static str {
        self.0.mnemonic()
    }

    /// The value, if it is a `T`.
    pub fn get<T: TypedType>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// `!dialect.mnemonic<body>`.
    pub fn write(&self, out: &mut String) {
        out.push('!');
        out.push_str(self.dialect());
        out.push('.');
        out.push_str(self.mnemonic());
        self.0.print_body(out);
    }
}

impl PartialEq for DialectType {
    fn eq(&self, other: &Self) -> bool {
        self.0.dyn_eq(other.0.as_ref())
    }
}

impl Eq for DialectType {}

impl Hash for DialectType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.dyn_hash(state)
    }
}

/// Parses the body of one registered type.
pub(crate) type ParseTypeFn = fn(&str) -> Result<DialectType, String>;

fn parse_as<T: TypedType>(body: &str) -> Result<DialectType, String> {
    T::parse(body).map(DialectType::new)
}

impl Context {
    /// Registers `T` as the meaning of `!T::DIALECT.T::MNEMONIC<...>` (and declares its
    /// dialect).
    pub fn register_type<T: TypedType>(&mut self) {
        self.register_dialect(T::DIALECT);
        self.type_parsers
            .insert((T::DIALECT, T::MNEMONIC), parse_as::<T>);
    }

    /// Whether some dialect registered a typed type `!dialect.mnemonic`.
    pub fn is_type_registered(&self, dialect: &str, mnemonic: &str) -> bool {
        self.type_parsers.contains_key(&(dialect, mnemonic))
    }

    /// Whether `dialect` registered at least one typed type: its other `!dialect.x` types
    /// are then errors, not opaque text.
    pub fn dialect_defines_types(&self, dialect: &str) -> bool {
        self.type_parsers.keys().any(|&(d, _)| d == dialect)
    }

    /// The interned type for a typed value.
    pub fn typed_type_of<T: TypedType>(&mut self, value: T) -> Type {
        self.intern_type(TypeKind::Dialect(DialectType::new(value)))
    }

    /// The typed value of `ty`, if it is a `T`.
    pub fn typed_type<T: TypedType>(&self, ty: Type) -> Option<&T> {
        match self.type_kind(ty) {
            TypeKind::Dialect(d) => d.get::<T>(),
            _ => None,
        }
    }

    /// The registered type `!dialect.body` (`body` starts with the mnemonic, as the parser
    /// captures it): `None` when the dialect registered no type of that mnemonic, an error
    /// when the body does not parse.
    pub fn registered_type_from_text(
        &mut self,
        dialect: &str,
        body: &str,
    ) -> Option<Result<Type, String>> {
        let split = body.find('<').unwrap_or(body.len());
        let (mnemonic, rest) = body.split_at(split);
        let &parse = self.type_parsers.get(&(dialect, mnemonic))?;
        Some(parse(rest).map(|value| self.intern_type(TypeKind::Dialect(value))))
    }
}
