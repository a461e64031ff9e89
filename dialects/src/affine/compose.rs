//! Composition and canonicalization of an affine map with its operands, in the steps
//! MLIR 22 takes (`composeAffineMapAndOperands`, then `canonicalizeMapAndOperands`):
//!
//! 1. every operand produced by a single-result `affine.apply` is replaced by the apply's
//!    expression (its operands, canonicalized first, are appended to the dims and symbols);
//!    a sum of a static delinearization's stride-scaled results becomes its input
//!    ([`super::delinearize_sum`]); repeated until no operand is produced that way;
//! 2. dims that are valid symbols become symbols (after the existing ones, in dim order),
//!    symbols that are only valid dims become dims (after the existing ones);
//! 3. unused operands are dropped, repeated operands merged (the first occurrence stays),
//!    constant symbols folded into the map;
//! 4. the results are simplified.
//!
//! Validity as dim or symbol is judged where each operand is defined, as MLIR's
//! region-less `isValidSymbol`/`isValidDim` do.

use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::{Context, Value};

use super::APPLY;
use super::canonicalize::constant_of;
use super::delinearize_sum::replace_delinearize_sum;
use super::scope::{is_valid_dim_where_defined, is_valid_symbol_where_defined};

/// A map and the values its inputs are bound to (dims, then symbols).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BoundMap {
    pub(super) map: AffineMap,
    pub(super) operands: Vec<Value>,
}

/// Each input of `map` bound to a value; an input whose value was composed away is `None`
/// (and no longer used by the map).
struct Inputs {
    map: AffineMap,
    dims: Vec<Option<Value>>,
    symbols: Vec<Option<Value>>,
}

impl Inputs {
    fn identity(&self) -> (Vec<AffineExpr>, Vec<AffineExpr>) {
        (
            (0..self.dims.len() as u32).map(AffineExpr::dim).collect(),
            (0..self.symbols.len() as u32)
                .map(AffineExpr::symbol)
                .collect(),
        )
    }
}

/// The map and operands of the single-result `affine.apply` defining `value`.
fn producing_apply(ctx: &Context, value: Value) -> Option<BoundMap> {
    let op = ctx.defining_op(value)?;
    if ctx.op_name(op) != APPLY {
        return None;
    }
    let map = super::access_map(ctx, op)?;
    let operands = ctx.op(op).operands.to_vec();
    (map.num_results() == 1 && operands.len() == map.num_inputs() as usize)
        .then_some(BoundMap { map, operands })
}

/// Replaces input `position` (dims first, then symbols) when an `affine.apply` or a
/// delinearization produces it; whether something changed.
fn replace_input(ctx: &Context, inputs: &mut Inputs, position: usize) -> bool {
    let is_dim = position < inputs.dims.len();
    let slot = if is_dim {
        inputs.dims[position]
    } else {
        inputs.symbols[position - inputs.dims.len()]
    };
    let Some(value) = slot else {
        return false;
    };
    if replace_delinearize_sum(
        ctx,
        value,
        &mut inputs.map,
        &mut inputs.dims,
        &mut inputs.symbols,
    ) {
        return true;
    }
    let Some(apply) = producing_apply(ctx, value) else {
        return false;
    };
    let apply = canonicalize_map_and_operands(ctx, apply);
    let num_dims = inputs.dims.len() as u32;
    let num_symbols = inputs.symbols.len() as u32;
    let inner_dims: Vec<AffineExpr> = (0..apply.map.num_dims)
        .map(|d| AffineExpr::dim(num_dims + d))
        .collect();
    let inner_symbols: Vec<AffineExpr> = (0..apply.map.num_symbols)
        .map(|s| AffineExpr::symbol(num_symbols + s))
        .collect();
    let replacement = apply.map.results[0].replace_dims_and_symbols(&inner_dims, &inner_symbols);
    let apply_dims = apply.map.num_dims as usize;
    inputs
        .dims
        .extend(apply.operands[..apply_dims].iter().map(|&v| Some(v)));
    inputs
        .symbols
        .extend(apply.operands[apply_dims..].iter().map(|&v| Some(v)));
    let (mut dims, mut symbols) = inputs.identity();
    if is_dim {
        dims[position] = replacement;
        inputs.dims[position] = None;
    } else {
        symbols[position - num_dims as usize] = replacement;
        inputs.symbols[position - num_dims as usize] = None;
    }
    let results = inputs
        .map
        .results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dims, &symbols))
        .collect();
    inputs.map = AffineMap::new(
        inputs.dims.len() as u32,
        inputs.symbols.len() as u32,
        results,
    );
    true
}

/// Step 1, then the inputs composed away are removed, then steps 2-4.
pub(super) fn compose_map_and_operands(ctx: &Context, bound: &BoundMap) -> BoundMap {
    let num_dims = bound.map.num_dims as usize;
    let mut inputs = Inputs {
        map: bound.map.clone(),
        dims: bound.operands[..num_dims]
            .iter()
            .map(|&v| Some(v))
            .collect(),
        symbols: bound.operands[num_dims..]
            .iter()
            .map(|&v| Some(v))
            .collect(),
    };
    if bound.map.num_results() > 0 {
        // Each replacement removes an operand made by an op that dominates the op holding
        // the map, or shortens a sum; the bound only guards against malformed IR.
        const MAX_REPLACEMENTS: usize = 256;
        for _ in 0..MAX_REPLACEMENTS {
            let total = inputs.dims.len() + inputs.symbols.len();
            if !(0..total).any(|position| replace_input(ctx, &mut inputs, position)) {
                break;
            }
        }
    }
    let mut operands = Vec::new();
    let mut renumber = |slots: &[Option<Value>], make: fn(u32) -> AffineExpr| {
        let mut next = 0;
        let exprs: Vec<AffineExpr> = slots
            .iter()
            .map(|slot| match slot {
                Some(v) => {
                    operands.push(*v);
                    next += 1;
                    make(next - 1)
                }
                None => AffineExpr::constant(0),
            })
            .collect();
        (exprs, next)
    };
    let (dims, num_dims) = renumber(&inputs.dims, AffineExpr::dim);
    let (symbols, num_symbols) = renumber(&inputs.symbols, AffineExpr::symbol);
    let results = inputs
        .map
        .results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dims, &symbols))
        .collect();
    let composed = BoundMap {
        map: AffineMap::new(num_dims, num_symbols, results),
        operands,
    };
    let mut canonical = canonicalize_map_and_operands(ctx, composed);
    canonical.map = canonical.map.simplify();
    canonical
}

/// Steps 2 and 3 (MLIR's `canonicalizeMapAndOperands`); the results are not simplified.
pub(super) fn canonicalize_map_and_operands(ctx: &Context, bound: BoundMap) -> BoundMap {
    if bound.operands.is_empty() {
        return bound;
    }
    let BoundMap { map, operands } = bound;
    let num_dims = map.num_dims as usize;
    let num_symbols = map.num_symbols;
    // Dims that are valid symbols move behind the symbols.
    let mut kept_dims = Vec::new();
    let mut promoted = Vec::new();
    let dim_remap: Vec<AffineExpr> = operands[..num_dims]
        .iter()
        .map(|&v| {
            if is_valid_symbol_where_defined(ctx, v) {
                promoted.push(v);
                AffineExpr::symbol(num_symbols + promoted.len() as u32 - 1)
            } else {
                kept_dims.push(v);
                AffineExpr::dim(kept_dims.len() as u32 - 1)
            }
        })
        .collect();
    let mut symbol_values = operands[num_dims..].to_vec();
    symbol_values.extend(promoted);
    let identity_symbols: Vec<AffineExpr> = (0..num_symbols).map(AffineExpr::symbol).collect();
    let results: Vec<AffineExpr> = map
        .results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dim_remap, &identity_symbols))
        .collect();
    // Symbols that are only valid dims move behind the dims.
    let mut dim_values = kept_dims;
    let old_num_dims = dim_values.len() as u32;
    let mut demoted = 0u32;
    let mut symbols_kept = Vec::new();
    let symbol_remap: Vec<AffineExpr> = symbol_values
        .iter()
        .map(|&v| {
            if is_valid_dim_where_defined(ctx, v) && !is_valid_symbol_where_defined(ctx, v) {
                demoted += 1;
                AffineExpr::dim(old_num_dims + demoted - 1)
            } else {
                symbols_kept.push(v);
                AffineExpr::symbol(symbols_kept.len() as u32 - 1)
            }
        })
        .collect();
    let identity_dims: Vec<AffineExpr> = (0..old_num_dims).map(AffineExpr::dim).collect();
    let results: Vec<AffineExpr> = results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&identity_dims, &symbol_remap))
        .collect();
    dim_values.extend(
        symbol_values
            .iter()
            .zip(&symbol_remap)
            .filter(|(_, e)| e.as_dim().is_some())
            .map(|(&v, _)| v),
    );
    // Unused inputs go, repeated ones merge, constant symbols fold.
    let used_dim = |i: usize| results.iter().any(|e| e.is_function_of_dim(i as u32));
    let used_symbol = |i: usize| results.iter().any(|e| e.is_function_of_symbol(i as u32));
    let mut new_operands = Vec::new();
    let mut dim_map = Vec::with_capacity(dim_values.len());
    let mut seen: Vec<(Value, AffineExpr)> = Vec::new();
    let mut next_dim = 0;
    for (i, &v) in dim_values.iter().enumerate() {
        if !used_dim(i) {
            dim_map.push(AffineExpr::constant(0));
        } else if let Some((_, e)) = seen.iter().find(|(s, _)| *s == v) {
            dim_map.push(e.clone());
        } else {
            let e = AffineExpr::dim(next_dim);
            next_dim += 1;
            seen.push((v, e.clone()));
            new_operands.push(v);
            dim_map.push(e);
        }
    }
    let mut symbol_map = Vec::with_capacity(symbols_kept.len());
    let mut seen: Vec<(Value, AffineExpr)> = Vec::new();
    let mut next_symbol = 0;
    for (i, &v) in symbols_kept.iter().enumerate() {
        if !used_symbol(i) {
            symbol_map.push(AffineExpr::constant(0));
        } else if let Some(c) = constant_of(ctx, v) {
            symbol_map.push(AffineExpr::constant(c));
        } else if let Some((_, e)) = seen.iter().find(|(s, _)| *s == v) {
            symbol_map.push(e.clone());
        } else {
            let e = AffineExpr::symbol(next_symbol);
            next_symbol += 1;
            seen.push((v, e.clone()));
            new_operands.push(v);
            symbol_map.push(e);
        }
    }
    let results = results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dim_map, &symbol_map))
        .collect();
    BoundMap {
        map: AffineMap::new(next_dim, next_symbol, results),
        operands: new_operands,
    }
}
