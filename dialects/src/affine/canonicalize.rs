//! Folds and canonicalization patterns of the `affine` ops, after MLIR's:
//!
//! - `affine.apply` of a map that only forwards an operand is that operand; `affine.apply`,
//!   `affine.min` and `affine.max` whose results are constant once the constant operands
//!   are substituted fold to that constant (the smallest or largest result for min/max);
//! - their maps absorb the `affine.apply`s producing their dim operands and their constant
//!   operands, and lose repeated and unused operands;
//! - an `affine.for` that runs no iteration, or whose body does nothing, is replaced by its
//!   initial values.

use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::attributes::AttrKind;
use tb_ir::registry::FoldResult;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId, RegionId, Value};

use super::scope::{affine_scope, is_valid_symbol};

use super::min_max::replace_with_map_op;
use super::{APPLY, MAX, MIN};

fn constant_index(ctx: &Context, attr: Option<Attr>) -> Option<i64> {
    match ctx.attr_kind(attr?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

pub(crate) fn fold_map_op(
    ctx: &Context,
    op: OpId,
    constants: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let map = super::access_map(ctx, op)?;
    let operands = &ctx.op(op).operands;
    if operands.len() != map.num_inputs() as usize || map.num_results() == 0 {
        return None;
    }
    let name = ctx.op_name(op);
    if name == APPLY {
        let [only] = map.results.as_slice() else {
            return None;
        };
        if let Some(d) = only.as_dim() {
            return Some(vec![FoldResult::Value(operands[d as usize])]);
        }
        if let Some(s) = only.as_symbol() {
            return Some(vec![FoldResult::Value(
                operands[map.num_dims as usize + s as usize],
            )]);
        }
    }
    let num_dims = map.num_dims as usize;
    let substitute = |i: usize, input: AffineExpr| {
        constants
            .get(i)
            .and_then(|&c| constant_index(ctx, c))
            .map_or(input, AffineExpr::constant)
    };
    let dims: Vec<AffineExpr> = (0..num_dims)
        .map(|i| substitute(i, AffineExpr::dim(i as u32)))
        .collect();
    let symbols: Vec<AffineExpr> = (0..map.num_symbols as usize)
        .map(|j| substitute(num_dims + j, AffineExpr::symbol(j as u32)))
        .collect();
    let values = map
        .results
        .iter()
        .map(|e| {
            e.replace_dims_and_symbols(&dims, &symbols)
                .simplify()
                .as_constant()
        })
        .collect::<Option<Vec<i64>>>()?;
    let value = match name {
        MIN => *values.iter().min()?,
        MAX => *values.iter().max()?,
        _ => values[0],
    };
    let ty = ctx.value_type(ctx.op(op).results[0]);
    Some(vec![FoldResult::NewAttr(AttrKind::Integer {
        value: value as i128,
        ty,
    })])
}

// ---- canonicalization patterns ----

pub(crate) fn apply_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyMapOperands { root: APPLY }));
}

pub(crate) fn min_patterns(patterns: &mut PatternSet) {
    super::min_max::min_max_patterns(patterns, MIN);
}

pub(crate) fn max_patterns(patterns: &mut PatternSet) {
    super::min_max::min_max_patterns(patterns, MAX);
}

pub(crate) fn for_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseTrivialLoop));
}

/// A map and the values its inputs are bound to (dims, then symbols).
struct BoundMap {
    map: AffineMap,
    operands: Vec<Value>,
}

fn constant_of(ctx: &Context, value: Value) -> Option<i64> {
    let op = ctx.defining_op(value)?;
    constant_index(ctx, constant_value(ctx, op))
}

/// MLIR's `composeAffineMapAndOperands` for dims produced by single-result
/// `affine.apply`s, then `canonicalizeMapAndOperands`: constant inputs folded into the
/// map, dims that are valid symbols (in `scope`) turned into symbols, repeated inputs
/// merged, unused inputs dropped, results simplified.
fn canonicalize_map(ctx: &Context, bound: &BoundMap, scope: Option<RegionId>) -> BoundMap {
    let map = &bound.map;
    let num_dims = map.num_dims as usize;
    let mut dims: Vec<Value> = Vec::new();
    let mut symbols: Vec<Value> = Vec::new();
    let mut dim_exprs = Vec::with_capacity(num_dims);
    let input = |list: &mut Vec<Value>, v: Value| -> u32 {
        match list.iter().position(|&x| x == v) {
            Some(i) => i as u32,
            None => {
                list.push(v);
                (list.len() - 1) as u32
            }
        }
    };
    // Symbols first keep their relative order; composed apply symbols follow them.
    let symbol_exprs: Vec<AffineExpr> = bound.operands[num_dims..]
        .iter()
        .map(|&v| match constant_of(ctx, v) {
            Some(c) => AffineExpr::constant(c),
            None => AffineExpr::symbol(input(&mut symbols, v)),
        })
        .collect();
    for &v in &bound.operands[..num_dims] {
        if let Some(c) = constant_of(ctx, v) {
            dim_exprs.push(AffineExpr::constant(c));
            continue;
        }
        let producer = ctx.defining_op(v).filter(|&p| ctx.op_name(p) == APPLY);
        let inner = producer.and_then(|p| {
            let m = super::access_map(ctx, p)?;
            let operands = &ctx.op(p).operands;
            (m.num_results() == 1 && operands.len() == m.num_inputs() as usize)
                .then(|| (m, operands.to_vec()))
        });
        match inner {
            Some((inner_map, inner_operands)) => {
                let inner_dims = inner_map.num_dims as usize;
                let idims: Vec<AffineExpr> = inner_operands[..inner_dims]
                    .iter()
                    .map(|&x| match constant_of(ctx, x) {
                        Some(c) => AffineExpr::constant(c),
                        None => AffineExpr::dim(input(&mut dims, x)),
                    })
                    .collect();
                let isyms: Vec<AffineExpr> = inner_operands[inner_dims..]
                    .iter()
                    .map(|&x| match constant_of(ctx, x) {
                        Some(c) => AffineExpr::constant(c),
                        None => AffineExpr::symbol(input(&mut symbols, x)),
                    })
                    .collect();
                dim_exprs.push(inner_map.results[0].replace_dims_and_symbols(&idims, &isyms));
            }
            None => dim_exprs.push(AffineExpr::dim(input(&mut dims, v))),
        }
    }
    let results: Vec<AffineExpr> = map
        .results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dim_exprs, &symbol_exprs))
        .collect();
    // Dims that are valid symbols become symbols, after the existing ones (MLIR's
    // `legalizeDemotedDims`).
    let mut kept_dims = Vec::new();
    let mut promote = Vec::with_capacity(dims.len());
    for &v in &dims {
        if is_valid_symbol(ctx, v, scope) {
            promote.push(AffineExpr::symbol(input(&mut symbols, v)));
        } else {
            promote.push(AffineExpr::dim(kept_dims.len() as u32));
            kept_dims.push(v);
        }
    }
    let dims = kept_dims;
    let symbol_identity: Vec<AffineExpr> =
        (0..symbols.len() as u32).map(AffineExpr::symbol).collect();
    let results: Vec<AffineExpr> = results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&promote, &symbol_identity))
        .collect();
    // Drop the inputs no result uses, renumbering the rest.
    let used_dim = |i: usize| results.iter().any(|e| e.is_function_of_dim(i as u32));
    let used_symbol = |i: usize| results.iter().any(|e| e.is_function_of_symbol(i as u32));
    let mut new_dims = Vec::new();
    let mut dim_map = Vec::new();
    for (i, &v) in dims.iter().enumerate() {
        if used_dim(i) {
            dim_map.push(AffineExpr::dim(new_dims.len() as u32));
            new_dims.push(v);
        } else {
            dim_map.push(AffineExpr::constant(0));
        }
    }
    let mut new_symbols = Vec::new();
    let mut symbol_map = Vec::new();
    for (i, &v) in symbols.iter().enumerate() {
        if used_symbol(i) {
            symbol_map.push(AffineExpr::symbol(new_symbols.len() as u32));
            new_symbols.push(v);
        } else {
            symbol_map.push(AffineExpr::constant(0));
        }
    }
    let results = results
        .iter()
        .map(|e| mlir_form(&e.replace_dims_and_symbols(&dim_map, &symbol_map).simplify()))
        .collect();
    let map = AffineMap::new(new_dims.len() as u32, new_symbols.len() as u32, results);
    let mut operands = new_dims;
    operands.extend(new_symbols);
    BoundMap { map, operands }
}

/// `e` with each sum whose right operand is a negative constant or a product by one
/// written as a subtraction, the tree MLIR's printer gives (`x - 4` rather than `x + -4`,
/// `x - y * 3` rather than `x + y * -3`).
fn mlir_form(e: &AffineExpr) -> AffineExpr {
    let Some((kind, lhs, rhs)) = e.as_binary() else {
        return e.clone();
    };
    let (lhs, rhs) = (mlir_form(lhs), mlir_form(rhs));
    let negate =
        |x: AffineExpr| AffineExpr::binary(AffineBinaryKind::Mul, x, AffineExpr::constant(-1));
    if kind == AffineBinaryKind::Add {
        if let Some(c) = rhs.as_constant()
            && c < 0
            && c != i64::MIN
        {
            return AffineExpr::binary(kind, lhs, negate(AffineExpr::constant(-c)));
        }
        if let Some((AffineBinaryKind::Mul, y, factor)) = rhs.as_binary()
            && let Some(c) = factor.as_constant()
            && c < -1
            && c != i64::MIN
        {
            let scaled =
                AffineExpr::binary(AffineBinaryKind::Mul, y.clone(), AffineExpr::constant(-c));
            return AffineExpr::binary(kind, lhs, negate(scaled));
        }
    }
    AffineExpr::binary(kind, lhs, rhs)
}

/// `affine.apply`/`min`/`max` with their map and operands canonicalized.
pub(crate) struct SimplifyMapOperands {
    pub(crate) root: &'static str,
}

impl RewritePattern for SimplifyMapOperands {
    fn debug_name(&self) -> &'static str {
        "affine-simplify-map-operands"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(map) = super::access_map(ctx, op) else {
            return false;
        };
        let operands = ctx.op(op).operands.to_vec();
        if operands.len() != map.num_inputs() as usize || map.num_results() == 0 {
            return false;
        }
        let bound = BoundMap { map, operands };
        let simplified = canonicalize_map(ctx, &bound, affine_scope(ctx, op));
        if simplified.map == bound.map && simplified.operands == bound.operands {
            return false;
        }
        replace_with_map_op(rewriter, op, self.root, simplified.map, simplified.operands);
        true
    }
}

/// The constant value of a bound whose map results are all constant: the max of them for
/// a lower bound, the min for an upper bound.
fn constant_bound(ctx: &Context, op: OpId, name: &str, lower: bool) -> Option<i64> {
    let values = super::map_named(ctx, op, name)?.constant_results()?;
    if lower {
        values.into_iter().max()
    } else {
        values.into_iter().min()
    }
}

/// An `affine.for` that runs no iteration (constant bounds with `lb >= ub`) is replaced by
/// its initial values; one whose body only yields its iteration arguments unchanged (or
/// nothing) is replaced by its initial values too, as MLIR's `AffineForEmptyLoopFolder`.
struct EraseTrivialLoop;

impl RewritePattern for EraseTrivialLoop {
    fn debug_name(&self) -> &'static str {
        "affine-erase-trivial-loop"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::FOR)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(body) = super::region_block(ctx, op, 0) else {
            return false;
        };
        let inits = super::inits(ctx, op).to_vec();
        if inits.len() != ctx.op(op).results.len() {
            return false;
        }
        let zero_trip = matches!(
            (
                constant_bound(ctx, op, "lowerBoundMap", true),
                constant_bound(ctx, op, "upperBoundMap", false),
            ),
            (Some(lb), Some(ub)) if lb >= ub
        );
        let iter_args: Vec<Value> = ctx.block(body).args.iter().skip(1).copied().collect();
        let only_yield = ctx.block(body).first == ctx.block(body).last;
        let does_nothing = only_yield && super::yielded(ctx, body) == iter_args;
        if !zero_trip && !does_nothing {
            return false;
        }
        rewriter.replace_op(op, &inits);
        true
    }
}
