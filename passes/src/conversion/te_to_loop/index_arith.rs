//! Affine expressions as `arith` on `index` values, for the reads whose indices must be
//! known as values (padded reads test and clamp them).
//!
//! `floordiv`, `ceildiv` and `mod` round towards negative infinity (a padded index may be
//! negative) while `arith.divsi`/`remsi` truncate towards zero, so the quotient and
//! remainder get a correction when the remainder is not zero.

use tb_ir::affine::AffineExpr;
use tb_ir::{Context, Value};

use super::builder::Builder;

/// Why `expr` cannot be evaluated by [`emit`], if it cannot: symbols, and divisions or
/// modulos by anything but a positive constant.
pub(crate) fn unsupported(expr: &AffineExpr) -> Option<&'static str> {
    match expr {
        AffineExpr::Dim(_) | AffineExpr::Constant(_) => None,
        AffineExpr::Symbol(_) => Some("uses a symbol"),
        AffineExpr::Add(a, b) | AffineExpr::Mul(a, b) => unsupported(a).or_else(|| unsupported(b)),
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
            match b.constant_value() {
                Some(c) if c > 0 => unsupported(a),
                _ => Some("divides by something other than a positive constant"),
            }
        }
    }
}

/// Emits the value of `expr` with `dims[i]` for `d<i>`; `expr` must be supported (see
/// [`unsupported`]).
pub(crate) fn emit(ctx: &mut Context, at: &Builder, expr: &AffineExpr, dims: &[Value]) -> Value {
    match expr {
        AffineExpr::Dim(d) => dims[*d as usize],
        AffineExpr::Constant(c) => at.index_constant(ctx, *c),
        AffineExpr::Symbol(_) => unreachable!("symbols are refused by `unsupported`"),
        AffineExpr::Add(a, b) => {
            let (a, b) = (emit(ctx, at, a, dims), emit(ctx, at, b, dims));
            at.binary(ctx, "arith.addi", a, b)
        }
        AffineExpr::Mul(a, b) => {
            let (a, b) = (emit(ctx, at, a, dims), emit(ctx, at, b, dims));
            at.binary(ctx, "arith.muli", a, b)
        }
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
            let divisor = b.constant_value().expect("checked by `unsupported`");
            let dividend = emit(ctx, at, a, dims);
            let divisor = at.index_constant(ctx, divisor);
            rounded_division(ctx, at, expr, dividend, divisor)
        }
    }
}

/// `floordiv`, `ceildiv` or `mod` (per `expr`) of `dividend` by a positive `divisor`.
fn rounded_division(
    ctx: &mut Context,
    at: &Builder,
    expr: &AffineExpr,
    dividend: Value,
    divisor: Value,
) -> Value {
    let zero = at.index_constant(ctx, 0);
    let remainder = at.binary(ctx, "arith.remsi", dividend, divisor);
    if let AffineExpr::Mod(..) = expr {
        // A negative remainder moves into [0, divisor).
        let negative = at.cmpi(ctx, "slt", remainder, zero);
        let wrapped = at.binary(ctx, "arith.addi", remainder, divisor);
        return at.select(ctx, negative, wrapped, remainder);
    }
    let quotient = at.binary(ctx, "arith.divsi", dividend, divisor);
    let one = at.index_constant(ctx, 1);
    if let AffineExpr::CeilDiv(..) = expr {
        // Truncation rounded a positive quotient down: step up when something remained.
        let positive = at.cmpi(ctx, "sgt", remainder, zero);
        let higher = at.binary(ctx, "arith.addi", quotient, one);
        return at.select(ctx, positive, higher, quotient);
    }
    // Truncation rounded a negative quotient up: step down when something remained.
    let negative = at.cmpi(ctx, "slt", remainder, zero);
    let lower = at.binary(ctx, "arith.subi", quotient, one);
    at.select(ctx, negative, lower, quotient)
}
