//! Affine maps expanded to `i64` arithmetic, with MLIR's semantics for `floordiv`,
//! `ceildiv` (rounding toward negative and positive infinity) and `mod` (the result takes
//! the divisor's sign), for divisors of either sign, exactly as `tb_ir::affine` folds them.

use inkwell::IntPredicate;
use inkwell::values::IntValue;
use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};

use super::translator::{TResult, Translator};

/// The value of `expr` for dims `dims` and symbols `symbols`.
pub(crate) fn expand<'ctx>(
    tr: &Translator<'_, 'ctx>,
    expr: &AffineExpr,
    dims: &[IntValue<'ctx>],
    symbols: &[IntValue<'ctx>],
) -> TResult<IntValue<'ctx>> {
    let b = &tr.builder;
    match expr {
        AffineExpr::Dim(i) => dims
            .get(*i as usize)
            .copied()
            .ok_or_else(|| format!("affine expression uses d{i}, which is not given").into()),
        AffineExpr::Symbol(i) => symbols
            .get(*i as usize)
            .copied()
            .ok_or_else(|| format!("affine expression uses s{i}, which is not given").into()),
        AffineExpr::Constant(c) => Ok(tr.i64_const(*c)),
        _ => {
            let (kind, lhs, rhs) = expr.as_binary().expect("binary node");
            if matches!(
                kind,
                AffineBinaryKind::FloorDiv | AffineBinaryKind::CeilDiv | AffineBinaryKind::Mod
            ) && rhs.constant_value() == Some(0)
            {
                return Err(format!("affine expression '{expr}' divides by zero").into());
            }
            let l = expand(tr, lhs, dims, symbols)?;
            let r = expand(tr, rhs, dims, symbols)?;
            Ok(match kind {
                AffineBinaryKind::Add => b.build_int_add(l, r, "")?,
                AffineBinaryKind::Mul => b.build_int_mul(l, r, "")?,
                AffineBinaryKind::FloorDiv => floor_div(tr, l, r)?,
                AffineBinaryKind::CeilDiv => ceil_div(tr, l, r)?,
                AffineBinaryKind::Mod => modulo(tr, l, r)?,
            })
        }
    }
}

/// Whether the truncated remainder `r` of a division by `d` is non-zero with a sign
/// opposite to `d` (`(r ^ d) < 0`): then truncation rounded toward positive infinity.
fn rounded_up<'ctx>(
    tr: &Translator<'_, 'ctx>,
    r: IntValue<'ctx>,
    d: IntValue<'ctx>,
) -> TResult<IntValue<'ctx>> {
    let b = &tr.builder;
    let zero = tr.i64_const(0);
    let nonzero = b.build_int_compare(IntPredicate::NE, r, zero, "")?;
    let signs = b.build_xor(r, d, "")?;
    let opposite = b.build_int_compare(IntPredicate::SLT, signs, zero, "")?;
    Ok(b.build_and(nonzero, opposite, "")?)
}

/// `floor(a / d)`.
fn floor_div<'ctx>(
    tr: &Translator<'_, 'ctx>,
    a: IntValue<'ctx>,
    d: IntValue<'ctx>,
) -> TResult<IntValue<'ctx>> {
    let b = &tr.builder;
    let q = b.build_int_signed_div(a, d, "")?;
    let r = b.build_int_signed_rem(a, d, "")?;
    let fix = rounded_up(tr, r, d)?;
    let fix = b.build_int_z_extend(fix, tr.llvm.i64_type(), "")?;
    Ok(b.build_int_sub(q, fix, "")?)
}

/// `ceil(a / d)`: truncation rounded down exactly when the remainder is non-zero with the
/// divisor's sign.
fn ceil_div<'ctx>(
    tr: &Translator<'_, 'ctx>,
    a: IntValue<'ctx>,
    d: IntValue<'ctx>,
) -> TResult<IntValue<'ctx>> {
    let b = &tr.builder;
    let zero = tr.i64_const(0);
    let q = b.build_int_signed_div(a, d, "")?;
    let r = b.build_int_signed_rem(a, d, "")?;
    let nonzero = b.build_int_compare(IntPredicate::NE, r, zero, "")?;
    let signs = b.build_xor(r, d, "")?;
    let same = b.build_int_compare(IntPredicate::SGE, signs, zero, "")?;
    let fix = b.build_and(nonzero, same, "")?;
    let fix = b.build_int_z_extend(fix, tr.llvm.i64_type(), "")?;
    Ok(b.build_int_add(q, fix, "")?)
}

/// `a - d * floor(a / d)`.
fn modulo<'ctx>(
    tr: &Translator<'_, 'ctx>,
    a: IntValue<'ctx>,
    d: IntValue<'ctx>,
) -> TResult<IntValue<'ctx>> {
    let b = &tr.builder;
    let r = b.build_int_signed_rem(a, d, "")?;
    let fix = rounded_up(tr, r, d)?;
    let adjusted = b.build_int_add(r, d, "")?;
    Ok(b.build_select(fix, adjusted, r, "")?.into_int_value())
}

/// Every result of `map` applied to `operands` (its dims, then its symbols).
pub(crate) fn apply<'ctx>(
    tr: &Translator<'_, 'ctx>,
    map: &AffineMap,
    operands: &[IntValue<'ctx>],
) -> TResult<Vec<IntValue<'ctx>>> {
    let dims = map.num_dims as usize;
    if operands.len() != dims + map.num_symbols as usize {
        return Err(format!(
            "map {map} takes {} operands, {} are given",
            dims + map.num_symbols as usize,
            operands.len()
        )
        .into());
    }
    map.results
        .iter()
        .map(|e| expand(tr, e, &operands[..dims], &operands[dims..]))
        .collect()
}

/// The maximum (`lower`) or minimum of the results of `map` applied to `operands`: the
/// value of a loop bound.
pub(crate) fn bound<'ctx>(
    tr: &Translator<'_, 'ctx>,
    map: &AffineMap,
    operands: &[IntValue<'ctx>],
    lower: bool,
) -> TResult<IntValue<'ctx>> {
    let values = apply(tr, map, operands)?;
    let mut iter = values.into_iter();
    let mut acc = iter.next().ok_or("has a bound map without results")?;
    let predicate = if lower {
        IntPredicate::SGT
    } else {
        IntPredicate::SLT
    };
    for v in iter {
        let keep = tr.builder.build_int_compare(predicate, acc, v, "")?;
        acc = tr.builder.build_select(keep, acc, v, "")?.into_int_value();
    }
    Ok(acc)
}
