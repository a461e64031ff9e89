//! Map composition through `affine.delinearize_index`: a sum of all the results of a
//! delinearization with a static basis, each scaled by its stride, is the delinearized index
//! itself (MLIR composes such maps back into the input while composing affine maps).
//!
//! For `%r:3 = affine.delinearize_index %x into (4, 5)`, `%r#0 * 20 + %r#1 * 5 + %r#2`
//! is `%x` whatever its value: the first result is the unbounded quotient. With as many
//! results as basis elements, the first result is likewise `%x floordiv` the product of
//! the other elements, so the identity holds too. A sum holding these terms among others
//! keeps the others: `%r#2 + %r#1 * 5 + %r#0 * 20 + %n + 7` becomes `%x + %n + 7`.

use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, Value};

use super::DELINEARIZE_INDEX;

/// The delinearization defining `value` when `value` is its last result and its basis is
/// static, with that basis.
fn last_result_of_static_delinearize(ctx: &Context, value: Value) -> Option<(OpId, Vec<i64>)> {
    let ValueDef::Result { op, index } = ctx.value(value).def else {
        return None;
    };
    if ctx.op_name(op) != DELINEARIZE_INDEX
        || ctx.op(op).operands.len() != 1
        || index as usize + 1 != ctx.op(op).results.len()
    {
        return None;
    }
    let basis = super::static_basis(ctx, op)?;
    basis.iter().all(|&b| b > 0).then_some((op, basis))
}

/// The terms of the sum a delinearization's results add up to its input by: result `k`
/// times the product of the basis elements after it (an extra leading result is scaled by
/// the whole basis). `None` if a stride overflows.
fn expected_terms(bindings: &[AffineExpr], basis: &[i64]) -> Option<Vec<AffineExpr>> {
    let mut terms = Vec::with_capacity(bindings.len());
    let mut stride: i64 = 1;
    for (binding, &size) in bindings.iter().rev().zip(basis.iter().rev()) {
        terms.push(scaled(binding, stride));
        stride = stride.checked_mul(size)?;
    }
    if bindings.len() != basis.len() {
        terms.push(scaled(&bindings[0], stride));
    }
    Some(terms)
}

fn scaled(binding: &AffineExpr, stride: i64) -> AffineExpr {
    if stride == 1 {
        binding.clone()
    } else {
        AffineExpr::binary(
            AffineBinaryKind::Mul,
            binding.clone(),
            AffineExpr::constant(stride),
        )
    }
}

/// The terms of the chain of additions rooted at `e` (all nested sums flattened).
fn add_terms(e: &AffineExpr, out: &mut Vec<AffineExpr>) {
    match e.as_binary() {
        Some((AffineBinaryKind::Add, lhs, rhs)) => {
            add_terms(lhs, out);
            add_terms(rhs, out);
        }
        _ => out.push(e.clone()),
    }
}

/// `e` with every sum that holds all of `expected` (compared in canonical form) rewritten
/// to `replacement` plus its other terms; `None` if no sum holds them.
fn replace_sums(
    e: &AffineExpr,
    expected: &[AffineExpr],
    replacement: &AffineExpr,
) -> Option<AffineExpr> {
    let (kind, lhs, rhs) = e.as_binary()?;
    if kind != AffineBinaryKind::Add {
        let new_lhs = replace_sums(lhs, expected, replacement);
        let new_rhs = replace_sums(rhs, expected, replacement);
        if new_lhs.is_none() && new_rhs.is_none() {
            return None;
        }
        return Some(AffineExpr::binary(
            kind,
            new_lhs.unwrap_or_else(|| lhs.clone()),
            new_rhs.unwrap_or_else(|| rhs.clone()),
        ));
    }
    let mut terms = Vec::new();
    add_terms(e, &mut terms);
    let canonical: Vec<AffineExpr> = terms.iter().map(AffineExpr::simplify).collect();
    let mut removed = vec![false; terms.len()];
    let mut all_found = true;
    for want in expected {
        let want = want.simplify();
        match (0..terms.len()).find(|&i| !removed[i] && canonical[i] == want) {
            Some(i) => removed[i] = true,
            None => {
                all_found = false;
                break;
            }
        }
    }
    if !all_found {
        removed.iter_mut().for_each(|r| *r = false);
    }
    // The terms that stay may hold such sums themselves.
    let mut changed = all_found;
    let mut sum = all_found.then(|| replacement.clone());
    for (term, removed) in terms.iter().zip(removed) {
        if removed {
            continue;
        }
        let term = match replace_sums(term, expected, replacement) {
            Some(t) => {
                changed = true;
                t
            }
            None => term.clone(),
        };
        sum = Some(match sum {
            Some(acc) => AffineExpr::binary(AffineBinaryKind::Add, acc, term),
            None => term,
        });
    }
    if changed { sum } else { None }
}

/// Where `value`, the last result of a static delinearization, is bound among `dims` and
/// `symbols` with the other results of its op: every sum of all of them scaled by their
/// strides becomes the delinearized index, a new last dim (when all the results are dims)
/// or symbol. Inputs the map no longer uses are set to `None`. Whether something changed.
pub(super) fn replace_delinearize_sum(
    ctx: &Context,
    value: Value,
    map: &mut AffineMap,
    dims: &mut Vec<Option<Value>>,
    symbols: &mut Vec<Option<Value>>,
) -> bool {
    let Some((delinearize, basis)) = last_result_of_static_delinearize(ctx, value) else {
        return false;
    };
    let results = ctx.op(delinearize).results.to_vec();
    // Each result bound to the input it is given as (the last one when given twice, a
    // symbol over a dim).
    let mut bindings: Vec<Option<AffineExpr>> = vec![None; results.len()];
    for (list, make) in [
        (&*dims, AffineExpr::dim as fn(u32) -> AffineExpr),
        (&*symbols, AffineExpr::symbol),
    ] {
        for (position, slot) in list.iter().enumerate() {
            if let Some(k) = slot.and_then(|v| results.iter().position(|&r| r == v)) {
                bindings[k] = Some(make(position as u32));
            }
        }
    }
    let Some(bindings) = bindings.into_iter().collect::<Option<Vec<AffineExpr>>>() else {
        return false;
    };
    let Some(expected) = expected_terms(&bindings, &basis) else {
        return false;
    };
    let all_dims = bindings.iter().all(|b| b.as_dim().is_some());
    let replacement = if all_dims {
        AffineExpr::dim(dims.len() as u32)
    } else {
        AffineExpr::symbol(symbols.len() as u32)
    };
    let mut changed = false;
    let new_results: Vec<AffineExpr> = map
        .results
        .iter()
        .map(|e| match replace_sums(e, &expected, &replacement) {
            Some(new) => {
                changed = true;
                new
            }
            None => e.clone(),
        })
        .collect();
    if !changed {
        return false;
    }
    let input = ctx.op(delinearize).operands[0];
    if all_dims {
        dims.push(Some(input));
    } else {
        symbols.push(Some(input));
    }
    *map = AffineMap::new(dims.len() as u32, symbols.len() as u32, new_results);
    for binding in &bindings {
        if let Some(d) = binding.as_dim()
            && !map.results.iter().any(|e| e.is_function_of_dim(d))
        {
            dims[d as usize] = None;
        }
        if let Some(s) = binding.as_symbol()
            && !map.results.iter().any(|e| e.is_function_of_symbol(s))
        {
            symbols[s as usize] = None;
        }
    }
    true
}
