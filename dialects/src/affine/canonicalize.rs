//! Folds and canonicalization patterns of the `affine` ops, after MLIR's:
//!
//! - `affine.apply` of a map that only forwards an operand is that operand; `affine.apply`,
//!   `affine.min` and `affine.max` whose results are constant once the constant operands
//!   are substituted fold to that constant (the smallest or largest result for min/max);
//! - their maps absorb the `affine.apply`s producing their operands and their constant
//!   operands, and lose repeated and unused operands ([`super::compose`]); so do the maps
//!   of the memory accesses (`affine.load`, `store`, `prefetch`, `vector_load`,
//!   `vector_store`);
//! - a trivial `affine.for` (one that runs no iteration, or whose body only yields) is
//!   replaced by the values it gives, as MLIR's loop folds do; its bounds are canonicalized
//!   by [`super::for_bounds`].

use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::registry::FoldResult;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId, Value};

use super::compose::{BoundMap, canonicalize_map_and_operands, compose_map_and_operands};
use super::min_max::replace_with_map_op;
use super::{APPLY, LOAD, MAX, MIN, PREFETCH, STORE, VECTOR_LOAD, VECTOR_STORE};

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

pub(crate) fn load_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyAccessMap { root: LOAD }));
}

pub(crate) fn store_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyAccessMap { root: STORE }));
}

pub(crate) fn prefetch_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyAccessMap { root: PREFETCH }));
}

pub(crate) fn vector_load_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyAccessMap { root: VECTOR_LOAD }));
}

pub(crate) fn vector_store_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(SimplifyAccessMap { root: VECTOR_STORE }));
}

pub(crate) fn for_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseTrivialLoop));
    patterns.add(Box::new(super::for_bounds::CanonicalizeForBounds));
}

pub(crate) fn if_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(super::if_condition::CanonicalizeIfCondition));
}

pub(crate) fn parallel_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(super::for_bounds::CanonicalizeParallelBounds));
}

pub(super) fn constant_of(ctx: &Context, value: Value) -> Option<i64> {
    let op = ctx.defining_op(value)?;
    constant_index(ctx, constant_value(ctx, op))
}

/// MLIR's `SimplifyAffineOp` on a map and its operands ([`super::compose`]), with the
/// results in the form MLIR prints them.
pub(super) fn canonicalize_map(ctx: &Context, bound: &BoundMap) -> BoundMap {
    let composed = compose_map_and_operands(ctx, bound);
    let mut canonical = canonicalize_map_and_operands(ctx, composed);
    canonical.map = AffineMap::new(
        canonical.map.num_dims,
        canonical.map.num_symbols,
        canonical.map.results.iter().map(mlir_form).collect(),
    );
    canonical
}

/// MLIR's `composeAffineMapAndOperands` alone (loop bounds of `affine.parallel`), with the
/// results in the form MLIR prints them.
pub(super) fn composed_map(ctx: &Context, bound: &BoundMap) -> BoundMap {
    let mut composed = compose_map_and_operands(ctx, bound);
    composed.map = AffineMap::new(
        composed.map.num_dims,
        composed.map.num_symbols,
        composed.map.results.iter().map(mlir_form).collect(),
    );
    composed
}

/// `e` with each sum whose right operand is a negative constant or a product by one
/// written as a subtraction, the tree MLIR's printer gives (`x - 4` rather than `x + -4`,
/// `x - y * 3` rather than `x + y * -3`).
pub(super) fn mlir_form(e: &AffineExpr) -> AffineExpr {
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
        let simplified = canonicalize_map(ctx, &bound);
        if simplified.map == bound.map && simplified.operands == bound.operands {
            return false;
        }
        replace_with_map_op(rewriter, op, self.root, simplified.map, simplified.operands);
        true
    }
}

/// Where the map operands of a memory access start (after the stored value and memref).
fn first_index_operand(name: &str) -> Option<usize> {
    match name {
        LOAD | VECTOR_LOAD | PREFETCH => Some(1),
        STORE | VECTOR_STORE => Some(2),
        _ => None,
    }
}

/// A memory access whose map and indices are canonicalized as those of `affine.apply`
/// (MLIR's `SimplifyAffineOp` on loads, stores and prefetches): producing applies are
/// composed in, constants folded, dims that are valid symbols become symbols, unused and
/// repeated indices dropped. The access is rebuilt with the new map and indices.
struct SimplifyAccessMap {
    root: &'static str,
}

impl RewritePattern for SimplifyAccessMap {
    fn debug_name(&self) -> &'static str {
        "affine-simplify-access-map"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(first) = first_index_operand(self.root) else {
            return false;
        };
        let Some(map) = super::access_map(ctx, op) else {
            return false;
        };
        let operands = ctx.op(op).operands.to_vec();
        if operands.len() != first + map.num_inputs() as usize {
            return false;
        }
        let bound = BoundMap {
            map,
            operands: operands[first..].to_vec(),
        };
        let simplified = canonicalize_map(ctx, &bound);
        if simplified.map == bound.map && simplified.operands == bound.operands {
            return false;
        }
        let data = ctx.op(op);
        let result_types = data.results.iter().map(|&r| ctx.value_type(r)).collect();
        let (name, loc, attributes, properties) =
            (data.name, data.loc, data.attributes, data.properties);
        let mut new_operands = operands[..first].to_vec();
        new_operands.extend(simplified.operands);
        let ctx = rewriter.ctx_mut();
        let map_attr = ctx.intern_attr(AttrKind::AffineMap(simplified.map));
        let mut entries = properties
            .map(|p| ctx.dictionary_entries(p).to_vec())
            .unwrap_or_default();
        entries.retain(|(k, _)| k != "map");
        entries.push(("map".to_string(), map_attr));
        let properties = ctx.dictionary_attr(entries);
        let new_op = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: new_operands,
                result_types,
                successors: Vec::new(),
                num_regions: 0,
                properties: Some(properties),
                attributes: Vec::new(),
                loc,
            },
        );
        rewriter.ctx_mut().op_mut(new_op).attributes = attributes;
        let results = rewriter.ctx().op(new_op).results.to_vec();
        rewriter.replace_op(op, &results);
        true
    }
}

/// The constant of a bound map that is a single constant (MLIR's `hasConstantBound`).
fn single_constant_bound(ctx: &Context, op: OpId, name: &str) -> Option<i64> {
    match super::map_named(ctx, op, name)?.results.as_slice() {
        [only] => only.as_constant(),
        _ => None,
    }
}

/// The number of iterations of an `affine.for` with constant bounds and a positive step
/// (MLIR's `getTrivialConstantTripCount`).
fn trivial_trip_count(ctx: &Context, op: OpId) -> Option<u64> {
    let step = super::step(ctx, op).filter(|&s| s > 0)?;
    let lb = single_constant_bound(ctx, op, "lowerBoundMap")?;
    let ub = single_constant_bound(ctx, op, "upperBoundMap")?;
    let span = i128::from(ub) - i128::from(lb);
    if span <= 0 {
        return Some(0);
    }
    u64::try_from((span + i128::from(step) - 1) / i128::from(step)).ok()
}

/// The values an `affine.for` whose body only yields gives, after MLIR's
/// `AffineForEmptyLoopFolder`: each yielded iteration argument stands for its initial
/// value, a value from outside the loop for itself. That needs a known trip count when a
/// value comes from outside or the arguments are yielded out of order, and at most one
/// iteration in the latter case; a yielded induction variable is never replaced.
fn empty_loop_results(ctx: &Context, op: OpId, body: tb_ir::BlockId) -> Option<Vec<Value>> {
    let args = ctx.block(body).args.to_vec();
    let (&iv, iter_args) = args.split_first()?;
    let inits = super::inits(ctx, op);
    let trip = trivial_trip_count(ctx, op);
    let mut outside = false;
    let mut out_of_order = false;
    let mut replacements = Vec::new();
    for (i, value) in super::yielded(ctx, body).into_iter().enumerate() {
        if value == iv {
            return None;
        }
        match iter_args.iter().position(|&a| a == value) {
            Some(position) => {
                out_of_order |= position != i;
                replacements.push(*inits.get(position)?);
            }
            None => {
                outside = true;
                replacements.push(value);
            }
        }
    }
    if trip.is_none() && (outside || out_of_order) {
        return None;
    }
    if trip.is_some_and(|t| t >= 2) && out_of_order {
        return None;
    }
    Some(replacements)
}

/// MLIR's folds of trivial `affine.for`s: one with results that runs no iteration is
/// replaced by its initial values, one with results whose body only yields by the values
/// [`empty_loop_results`] gives; one without results whose body only yields does nothing
/// and is erased (MLIR removes it as dead).
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
        let num_results = ctx.op(op).results.len();
        let inits = super::inits(ctx, op).to_vec();
        if inits.len() != num_results {
            return false;
        }
        let only_yield = ctx.block(body).first == ctx.block(body).last;
        let replacements = if num_results == 0 {
            if !only_yield {
                return false;
            }
            Vec::new()
        } else if trivial_trip_count(ctx, op) == Some(0) {
            inits
        } else if only_yield {
            match empty_loop_results(ctx, op, body) {
                Some(values) if values.len() == num_results => values,
                _ => return false,
            }
        } else {
            return false;
        };
        rewriter.replace_op(op, &replacements);
        true
    }
}
