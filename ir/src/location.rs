//! Source locations (`loc(...)`), stored as interned attributes like MLIR's.

use crate::attributes::Attr;

/// A location: an attribute whose kind is [`crate::AttrKind::Location`].
pub type Location = Attr;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LocationKind {
    Unknown,
    /// `"file":line:col`, or a range `"file":line:col to end_line:end_col`.
    FileLineCol {
        file: String,
        line: u32,
        col: u32,
        end: Option<(u32, u32)>,
    },
    /// `"name"` or `"name"(child)`.
    Name {
        name: String,
        child: Option<Location>,
    },
    /// `callsite(callee at caller)`.
    CallSite {
        callee: Location,
        caller: Location,
    },
    /// `fused[...]` or `fused<metadata>[...]`.
    Fused {
        locations: Vec<Location>,
        metadata: Option<Attr>,
    },
}
