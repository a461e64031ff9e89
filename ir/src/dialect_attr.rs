//! Typed dialect attributes: the extension point through which a dialect defines its own
//! attributes (`#arith.fastmath<nnan,ninf>`, `#te.combiner<sum>`) in its own crate, the way
//! MLIR's `AttrDef` does, without touching this crate.
//!
//! A dialect writes a plain Rust value type and implements [`TypedAttr`] for it: its
//! dialect namespace and mnemonic, how its body (what follows the mnemonic) parses and
//! prints. It registers the type once with [`Context::register_attr`]. From then on the
//! parser turns `#dialect.mnemonic<body>` into an [`AttrKind::Dialect`] holding the
//! parsed value (a malformed body is a located parse error), the printer writes it back
//! through the type's own printer, interning hashes and compares the values themselves,
//! and passes read it back typed with [`Context::typed_attr`]. Attributes of dialects that
//! register no such type stay [`AttrKind::Opaque`] text.
//!
//! A typed attribute holds plain data, no [`Attr`] or [`Type`] ids of a context, so the same
//! value means the same thing in every context (importing it is a copy).

use std::any::Any;
use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::attributes::{Attr, AttrKind};
use crate::context::Context;
use crate::types::Type;

/// A value type a dialect defines as an attribute.
pub trait TypedAttr: Clone + Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    /// The namespace of the defining dialect (`arith`).
    const DIALECT: &'static str;
    /// The attribute's name within its dialect (`fastmath`).
    const MNEMONIC: &'static str;

    /// Parses the body as written after the mnemonic (`<nnan, ninf>`, or empty); the error
    /// is reported at the attribute.
    fn parse(body: &str) -> Result<Self, String>;

    /// Prints the body in canonical form, as [`TypedAttr::parse`] reads it back.
    fn print(&self, out: &mut String);
}

/// The object-safe face of a [`TypedAttr`], stored in interned attributes.
pub trait DynTypedAttr: Debug + Send + Sync {
    fn dialect(&self) -> &'static str;
    fn mnemonic(&self) -> &'static str;
    fn print_body(&self, out: &mut String);
    fn as_any(&self) -> &dyn Any;
    fn dyn_eq(&self, other: &dyn DynTypedAttr) -> bool;
    fn dyn_hash(&self, state: &mut dyn Hasher);
}

impl<T: TypedAttr> DynTypedAttr for T {
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
    fn dyn_eq(&self, other: &dyn DynTypedAttr) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        std::any::TypeId::of::<T>().hash(&mut state);
        self.hash(&mut state);
    }
}

/// A typed dialect attribute value, as stored in [`AttrKind::Dialect`].
#[derive(Clone, Debug)]
pub struct DialectAttr(Arc<dyn DynTypedAttr>);

impl DialectAttr {
    pub fn new<T: TypedAttr>(value: T) -> DialectAttr {
        DialectAttr(Arc::new(value))
    }

    pub fn dialect(&self) -> &'static str {
        self.0.dialect()
    }

    pub fn mnemonic(&self) -> &'static str {
        self.0.mnemonic()
    }

    /// The value, if it is a `T`.
    pub fn get<T: TypedAttr>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// The body after the mnemonic (`<nnan,ninf>`).
    pub fn body(&self) -> String {
        let mut out = String::new();
        self.0.print_body(&mut out);
        out
    }

    /// `#dialect.mnemonic<body>`.
    pub fn write(&self, out: &mut String) {
        out.push('#');
        out.push_str(self.dialect());
        out.push('.');
        out.push_str(self.mnemonic());
        self.0.print_body(out);
    }
}

impl PartialEq for DialectAttr {
    fn eq(&self, other: &Self) -> bool {
        self.0.dyn_eq(other.0.as_ref())
    }
}

impl Eq for DialectAttr {}

impl Hash for DialectAttr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.dyn_hash(state)
    }
}

/// Parses the body of one registered attribute.
pub(crate) type ParseAttrFn = fn(&str) -> Result<DialectAttr, String>;

fn parse_as<T: TypedAttr>(body: &str) -> Result<DialectAttr, String> {
    T::parse(body).map(DialectAttr::new)
}

impl Context {
    /// Registers `T` as the meaning of `#T::DIALECT.T::MNEMONIC<...>` (and declares its
    /// dialect).
    pub fn register_attr<T: TypedAttr>(&mut self) {
        self.register_dialect(T::DIALECT);
        self.attr_parsers
            .insert((T::DIALECT, T::MNEMONIC), parse_as::<T>);
    }

    /// Whether some dialect registered a typed attribute `#dialect.mnemonic`.
    pub fn is_attr_registered(&self, dialect: &str, mnemonic: &str) -> bool {
        self.attr_parsers.contains_key(&(dialect, mnemonic))
    }

    /// The interned attribute for a typed value.
    pub fn typed_attr_of<T: TypedAttr>(&mut self, value: T) -> Attr {
        self.intern_attr(AttrKind::Dialect(DialectAttr::new(value)))
    }

    /// The typed value of `attr`, if it is a `T`.
    pub fn typed_attr<T: TypedAttr>(&self, attr: Attr) -> Option<&T> {
        match self.attr_kind(attr) {
            AttrKind::Dialect(d) => d.get::<T>(),
            _ => None,
        }
    }

    /// The attribute `#dialect.body` (`body` starts with the mnemonic, as the parser
    /// captures it): typed when the dialect registered its mnemonic, else opaque text.
    /// A registered attribute with a malformed body, or followed by a type it does not take,
    /// is an error.
    pub fn dialect_attr_from_text(
        &mut self,
        dialect: &str,
        body: &str,
        ty: Option<Type>,
    ) -> Result<Attr, String> {
        let split = body.find('<').unwrap_or(body.len());
        let (mnemonic, rest) = body.split_at(split);
        let Some(&parse) = self.attr_parsers.get(&(dialect, mnemonic)) else {
            return Ok(self.intern_attr(AttrKind::Opaque {
                dialect: dialect.to_string(),
                body: body.to_string(),
                ty,
            }));
        };
        if ty.is_some() {
            return Err(format!("#{dialect}.{mnemonic} does not take a type"));
        }
        let value = parse(rest)?;
        Ok(self.intern_attr(AttrKind::Dialect(value)))
    }
}

/// The words of a `<a, b, c>` body, trimmed; `None` if it is not in angle brackets.
pub fn angle_words(body: &str) -> Option<Vec<&str>> {
    let inner = body.trim().strip_prefix('<')?.strip_suffix('>')?;
    Some(inner.split(',').map(str::trim).collect())
}
