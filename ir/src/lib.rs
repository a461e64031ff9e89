//! TensorBind IR core.
//!
//! Operations, regions, blocks and SSA values live in typed arenas owned by a [`Context`];
//! types and attributes are interned there and compared by id. The text format is MLIR's:
//! [`parser`] reads the generic operation form with every builtin type, attribute and
//! location, [`printer`] writes it back, and [`verifier`] checks structure, SSA dominance
//! and symbol tables. Only the `builtin` dialect is known here.

pub mod affine;
mod arena;
pub mod asm;
pub mod attributes;
pub mod block;
pub mod builtin;
pub mod context;
pub mod diagnostics;
pub mod dialect_attr;
pub mod dialect_type;
pub mod dominance;
pub mod expected_diagnostics;
pub mod float;
pub mod fork;
pub mod id_map;
pub mod import;
mod interner;
pub mod lexer;
pub mod location;
pub mod ods;
pub mod operation;
pub mod parser;
pub mod pass;
pub mod printer;
pub mod region;
pub mod registry;
pub mod rewrite;
pub mod symbol_table;
pub mod types;
pub mod value;
pub mod verifier;

pub use attributes::{Attr, AttrKind};
pub use block::BlockId;
pub use context::Context;
pub use diagnostics::{Diagnostic, Severity};
pub use location::Location;
pub use operation::OpId;
pub use region::RegionId;
pub use types::{FloatKind, Signedness, Type, TypeKind};
pub use value::Value;
