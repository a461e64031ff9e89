//! Canonicalization patterns of `affine.min` and `affine.max`, after MLIR's, tried in
//! MLIR's order:
//!
//! 1. a single-result min/max is an `affine.apply`;
//! 2. repeated results are dropped;
//! 3. a result that is just a dim or symbol bound to another min (max) of the same kind
//!    is replaced by that op's results (min(a, min(b, c)) = min(a, b, c));
//! 4. the map and operands are canonicalized (see `canonicalize`);
//! 5. the results are sorted by their flattened coefficients (dims, symbols, constant),
//!    when all of them are pure affine without divisions.

use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Context, OpId, Value};

use super::APPLY;

pub(crate) fn min_max_patterns(patterns: &mut PatternSet, root: &'static str) {
    patterns.add(Box::new(SingleResultMinMax { root }));
    patterns.add(Box::new(DeduplicateResults { root }));
    patterns.add(Box::new(MergeProducerMinMax { root }));
    patterns.add(Box::new(super::canonicalize::SimplifyMapOperands { root }));
    patterns.add(Box::new(SortResults { root }));
}

/// The map and operands of a map op whose operands match its map.
fn map_and_operands(ctx: &Context, op: OpId) -> Option<(AffineMap, Vec<Value>)> {
    let map = super::access_map(ctx, op)?;
    let operands = ctx.op(op).operands.to_vec();
    (operands.len() == map.num_inputs() as usize).then_some((map, operands))
}

/// Replaces `op` by a new map op `name` with `map` applied to `operands`, keeping its
/// discardable attributes.
pub(crate) fn replace_with_map_op(
    rewriter: &mut Rewriter,
    op: OpId,
    name: &str,
    map: AffineMap,
    operands: Vec<Value>,
) {
    let ctx = rewriter.ctx();
    let result_ty = ctx.value_type(ctx.op(op).results[0]);
    let loc = ctx.op(op).loc;
    let attrs = ctx.op(op).attributes;
    let ctx = rewriter.ctx_mut();
    let map_attr = ctx.intern_attr(AttrKind::AffineMap(map));
    let properties = ctx.dictionary_attr(vec![("map".to_string(), map_attr)]);
    let name = ctx.intern_op_name(name);
    let new_op = rewriter.create_op_before(
        op,
        OperationState {
            name,
            operands,
            result_types: vec![result_ty],
            successors: Vec::new(),
            num_regions: 0,
            properties: Some(properties),
            attributes: Vec::new(),
            loc,
        },
    );
    rewriter.ctx_mut().op_mut(new_op).attributes = attrs;
    let result = rewriter.ctx().op(new_op).results[0];
    rewriter.replace_op(op, &[result]);
}

struct SingleResultMinMax {
    root: &'static str,
}

impl RewritePattern for SingleResultMinMax {
    fn debug_name(&self) -> &'static str {
        "CanonicalizeSingleResultAffineMinMaxOp"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some((map, operands)) = map_and_operands(rewriter.ctx(), op) else {
            return false;
        };
        if map.num_results() != 1 {
            return false;
        }
        replace_with_map_op(rewriter, op, APPLY, map, operands);
        true
    }
}

struct DeduplicateResults {
    root: &'static str,
}

impl RewritePattern for DeduplicateResults {
    fn debug_name(&self) -> &'static str {
        "DeduplicateAffineMinMaxExpressions"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some((map, operands)) = map_and_operands(rewriter.ctx(), op) else {
            return false;
        };
        let mut results: Vec<AffineExpr> = Vec::with_capacity(map.num_results());
        for e in &map.results {
            if !results.contains(e) {
                results.push(e.clone());
            }
        }
        if results.len() == map.num_results() {
            return false;
        }
        let map = AffineMap::new(map.num_dims, map.num_symbols, results);
        replace_with_map_op(rewriter, op, self.root, map, operands);
        true
    }
}

struct MergeProducerMinMax {
    root: &'static str,
}

impl RewritePattern for MergeProducerMinMax {
    fn debug_name(&self) -> &'static str {
        "MergeAffineMinMaxOp"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((map, operands)) = map_and_operands(ctx, op) else {
            return false;
        };
        let num_dims = map.num_dims as usize;
        let same_kind = |v: Value| {
            ctx.defining_op(v)
                .filter(|&p| ctx.op_name(p) == self.root)
                .and_then(|p| map_and_operands(ctx, p))
        };
        let mut results = Vec::new();
        let mut producers = Vec::new();
        for e in &map.results {
            let bound = match (e.as_dim(), e.as_symbol()) {
                (Some(d), _) => Some(operands[d as usize]),
                (_, Some(s)) => Some(operands[num_dims + s as usize]),
                _ => None,
            };
            match bound.and_then(same_kind) {
                Some(producer) => producers.push(producer),
                None => results.push(e.clone()),
            }
        }
        if producers.is_empty() {
            return false;
        }
        let mut dims = operands[..num_dims].to_vec();
        let mut symbols = operands[num_dims..].to_vec();
        for (producer_map, producer_operands) in producers {
            let producer_dims = producer_map.num_dims as usize;
            // The producer's inputs go after the ones in use so far.
            let dim_shift: Vec<AffineExpr> = (0..producer_dims)
                .map(|i| AffineExpr::dim((dims.len() + i) as u32))
                .collect();
            let symbol_shift: Vec<AffineExpr> = (0..producer_map.num_symbols as usize)
                .map(|i| AffineExpr::symbol((symbols.len() + i) as u32))
                .collect();
            results.extend(
                producer_map
                    .results
                    .iter()
                    .map(|e| e.replace_dims_and_symbols(&dim_shift, &symbol_shift)),
            );
            dims.extend_from_slice(&producer_operands[..producer_dims]);
            symbols.extend_from_slice(&producer_operands[producer_dims..]);
        }
        let map = AffineMap::new(dims.len() as u32, symbols.len() as u32, results);
        dims.extend(symbols);
        replace_with_map_op(rewriter, op, self.root, map, dims);
        true
    }
}

/// The coefficients of `e` over the dims, then the symbols, then its constant; `None`
/// when `e` is not a sum of scaled dims and symbols (MLIR's flattening would need local
/// variables or fail).
fn flattened(e: &AffineExpr, num_dims: u32, num_symbols: u32) -> Option<Vec<i64>> {
    let mut divides = false;
    e.walk(&mut |node| {
        if let Some((kind, _, _)) = node.as_binary() {
            divides |= kind != AffineBinaryKind::Add && kind != AffineBinaryKind::Mul;
        }
    });
    if divides || !e.is_pure_affine() {
        return None;
    }
    let linear = e.linear_form()?;
    let mut row = vec![0; (num_dims + num_symbols) as usize + 1];
    for (atom, k) in linear.terms() {
        let slot = match (atom.as_dim(), atom.as_symbol()) {
            (Some(d), _) => d as usize,
            (_, Some(s)) => (num_dims + s) as usize,
            _ => return None,
        };
        row[slot] = k;
    }
    row[(num_dims + num_symbols) as usize] = linear.constant_term();
    Some(row)
}

struct SortResults {
    root: &'static str,
}

impl RewritePattern for SortResults {
    fn debug_name(&self) -> &'static str {
        "CanonicalizeAffineMinMaxOpExprAndTermOrder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some((map, operands)) = map_and_operands(rewriter.ctx(), op) else {
            return false;
        };
        let Some(rows) = map
            .results
            .iter()
            .map(|e| flattened(e, map.num_dims, map.num_symbols))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        if rows.is_sorted() {
            return false;
        }
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| rows[a].cmp(&rows[b]));
        let results = order.iter().map(|&i| map.results[i].clone()).collect();
        let map = AffineMap::new(map.num_dims, map.num_symbols, results);
        replace_with_map_op(rewriter, op, self.root, map, operands);
        true
    }
}
