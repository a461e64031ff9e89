//! Affine expressions, affine maps and integer sets, as in MLIR 22's builtin
//! `affine_map<...>` and `affine_set<...>` attributes.
//!
//! - [`AffineExpr`] is a plain expression tree over dimensions `d<i>`, symbols `s<i>` and
//!   64-bit constants. Trees are kept exactly as built or parsed; [`AffineExpr::simplify`]
//!   is the only place that rewrites them.
//! - [`AffineMap`] is `(dims)[symbols] -> (results)`, [`IntegerSet`] is
//!   `(dims)[symbols] : (constraints)` with each constraint `e >= 0` or `e == 0`.
//! - [`parse_affine_map`], [`parse_integer_set`] and [`parse_affine_map_or_set`] read the
//!   text between the angle brackets of the attributes; `Display` writes it back so that
//!   parsing the printed text gives the identical tree.
//!
//! Arithmetic follows MLIR: `floordiv` rounds toward negative infinity, `ceildiv` toward
//! positive infinity, and `a mod b` is `a - b * (a floordiv b)`, so it is non-negative for a
//! positive divisor.

mod expr;
mod map;
mod parse;
mod set;
mod simplify;

pub use expr::{AffineBinaryKind, AffineExpr, checked_ceil_div, checked_floor_div, checked_mod};
pub use map::AffineMap;
pub use parse::{
    AffineMapOrSet, AffineParseError, MAX_EXPR_DEPTH, parse_affine_expr, parse_affine_map,
    parse_affine_map_or_set, parse_integer_set,
};
pub use set::IntegerSet;
