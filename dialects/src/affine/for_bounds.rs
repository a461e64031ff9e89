//! Canonical bounds of `affine.for`, after MLIR's loop bound folding and canonicalization:
//!
//! - a bound whose results are all constant once constant operands are substituted
//!   becomes that constant (the largest result for the lower bound, the smallest for the
//!   upper bound);
//! - otherwise its map absorbs the `affine.apply`s producing its operands and its constant
//!   operands, dims that are valid symbols become symbols, unused and repeated operands
//!   are dropped, and repeated results are dropped.
//!
//! As in MLIR, a bound is only rewritten when its map changes. The bounds of
//! `affine.parallel` are composed the same way (without dropping results, which belong to
//! groups), and rewritten when their maps or operands change.

use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId, Signedness, Value};

use super::canonicalize::{canonicalize_map, composed_map, constant_of};
use super::compose::BoundMap;
use super::{FOR, PARALLEL, inits, lower_operands, map_named, parallel_bounds, upper_operands};

/// The constant a bound folds to when every result is constant with the constant operands
/// substituted.
fn folded_constant(ctx: &Context, bound: &BoundMap, lower: bool) -> Option<i64> {
    let values = bound
        .operands
        .iter()
        .map(|&v| constant_of(ctx, v))
        .collect::<Option<Vec<i64>>>()?;
    let num_dims = bound.map.num_dims as usize;
    let results = bound
        .map
        .evaluate(&values[..num_dims], &values[num_dims..])?;
    if lower {
        results.into_iter().max()
    } else {
        results.into_iter().min()
    }
}

/// `map` without results equal to an earlier one (MLIR's `removeDuplicateExprs`).
fn without_duplicate_results(map: AffineMap) -> AffineMap {
    let mut results: Vec<AffineExpr> = Vec::with_capacity(map.results.len());
    for e in map.results {
        if !results.contains(&e) {
            results.push(e);
        }
    }
    AffineMap::new(map.num_dims, map.num_symbols, results)
}

/// The canonical form of one bound, if its map changes.
fn canonical_bound(ctx: &Context, bound: &BoundMap, lower: bool) -> Option<BoundMap> {
    let is_constant = bound.operands.is_empty()
        && bound.map.num_results() == 1
        && bound.map.results[0].as_constant().is_some();
    if is_constant {
        return None;
    }
    if let Some(value) = folded_constant(ctx, bound, lower) {
        return Some(BoundMap {
            map: AffineMap::constant(value),
            operands: Vec::new(),
        });
    }
    let canonical = canonicalize_map(ctx, bound);
    let map = without_duplicate_results(canonical.map);
    (map != bound.map).then_some(BoundMap {
        map,
        operands: canonical.operands,
    })
}

fn map_attr(ctx: &mut Context, map: AffineMap) -> Attr {
    ctx.intern_attr(AttrKind::AffineMap(map))
}

/// An `affine.for` whose bounds are not canonical is rebuilt with canonical ones.
pub(super) struct CanonicalizeForBounds;

impl RewritePattern for CanonicalizeForBounds {
    fn debug_name(&self) -> &'static str {
        "affine-canonicalize-for-bounds"
    }

    fn root(&self) -> Option<&'static str> {
        Some(FOR)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let (Some(lower_map), Some(upper_map)) = (
            map_named(ctx, op, "lowerBoundMap"),
            map_named(ctx, op, "upperBoundMap"),
        ) else {
            return false;
        };
        let lower = BoundMap {
            map: lower_map,
            operands: lower_operands(ctx, op).to_vec(),
        };
        let upper = BoundMap {
            map: upper_map,
            operands: upper_operands(ctx, op).to_vec(),
        };
        let well_formed = [&lower, &upper]
            .iter()
            .all(|b| b.map.num_results() > 0 && b.operands.len() == b.map.num_inputs() as usize);
        if !well_formed {
            return false;
        }
        let new_lower = canonical_bound(ctx, &lower, true);
        let new_upper = canonical_bound(ctx, &upper, false);
        if new_lower.is_none() && new_upper.is_none() {
            return false;
        }
        let lower = new_lower.unwrap_or(lower);
        let upper = new_upper.unwrap_or(upper);
        let inits: Vec<Value> = inits(ctx, op).to_vec();
        let ctx = rewriter.ctx_mut();
        let i32_ty = ctx.integer_type(32, Signedness::Signless);
        let sizes = [lower.operands.len(), upper.operands.len(), inits.len()];
        let sizes = ctx.intern_attr(AttrKind::DenseArray {
            element: i32_ty,
            data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
        });
        let lower_attr = map_attr(ctx, lower.map);
        let upper_attr = map_attr(ctx, upper.map);
        let mut operands = lower.operands;
        operands.extend(upper.operands);
        operands.extend(inits);
        recreate(
            rewriter,
            op,
            vec![
                ("lowerBoundMap", lower_attr),
                ("upperBoundMap", upper_attr),
                ("operandSegmentSizes", sizes),
            ],
            operands,
        )
    }
}

/// An `affine.parallel` whose bound maps absorb the `affine.apply`s and constants feeding
/// them, as MLIR's `AffineParallelOp` fold composes them (results stay in their groups:
/// composition keeps every result).
pub(super) struct CanonicalizeParallelBounds;

impl RewritePattern for CanonicalizeParallelBounds {
    fn debug_name(&self) -> &'static str {
        "affine-canonicalize-parallel-bounds"
    }

    fn root(&self) -> Option<&'static str> {
        Some(PARALLEL)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((lower, upper)) = parallel_bounds(ctx, op) else {
            return false;
        };
        let operands = ctx.op(op).operands.to_vec();
        let split = lower.map.num_inputs() as usize;
        if operands.len() != split + upper.map.num_inputs() as usize {
            return false;
        }
        let bounds = [
            BoundMap {
                map: lower.map,
                operands: operands[..split].to_vec(),
            },
            BoundMap {
                map: upper.map,
                operands: operands[split..].to_vec(),
            },
        ];
        let composed = bounds.each_ref().map(|b| composed_map(ctx, b));
        if composed == bounds {
            return false;
        }
        let [new_lower, new_upper] = composed;
        let ctx = rewriter.ctx_mut();
        let lower_attr = map_attr(ctx, new_lower.map);
        let upper_attr = map_attr(ctx, new_upper.map);
        let mut operands = new_lower.operands;
        operands.extend(new_upper.operands);
        recreate(
            rewriter,
            op,
            vec![
                ("lowerBoundsMap", lower_attr),
                ("upperBoundsMap", upper_attr),
            ],
            operands,
        )
    }
}

/// Replaces `op` by a copy with `operands`, the `replaced` properties set (its other
/// properties and attributes kept) and its region moved over; false when it has no region.
fn recreate(
    rewriter: &mut Rewriter,
    op: OpId,
    replaced: Vec<(&str, Attr)>,
    operands: Vec<Value>,
) -> bool {
    let ctx = rewriter.ctx();
    let data = ctx.op(op);
    let result_types = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    let (name, loc) = (data.name, data.loc);
    let attributes = ctx.dictionary_entries(data.attributes).to_vec();
    let mut properties: Vec<(String, Attr)> = data
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    let Some(&old_region) = data.regions.first() else {
        return false;
    };
    properties.retain(|(k, _)| !replaced.iter().any(|(name, _)| name == k));
    properties.extend(replaced.into_iter().map(|(k, v)| (k.to_string(), v)));
    let properties = Some(rewriter.ctx_mut().dictionary_attr(properties));
    let new_op = rewriter.create_op_before(
        op,
        OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions: 1,
            properties,
            attributes,
            loc,
        },
    );
    let new_region = rewriter.ctx().op(new_op).regions[0];
    rewriter.inline_region_before(old_region, new_region, None);
    let results = rewriter.ctx().op(new_op).results.to_vec();
    rewriter.replace_op(op, &results);
    true
}
