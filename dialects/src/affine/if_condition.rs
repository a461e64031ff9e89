//! The condition of `affine.if` canonicalized as MLIR's `AffineIfOp` fold does: the
//! constraints of its integer set, seen as the results of a map, absorb the `affine.apply`s
//! feeding the operands (only when one does), then the operands are canonicalized as map
//! operands ([`super::compose`]): dims that are valid symbols become symbols, unused and
//! repeated operands go, constant symbols fold into the constraints.

use tb_ir::affine::{AffineMap, IntegerSet};
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{RewritePattern, Rewriter};
use tb_ir::{Attr, OpId};

use super::canonicalize::mlir_form;
use super::compose::{BoundMap, canonicalize_map_and_operands, compose_map_and_operands};
use super::{APPLY, IF, condition};

pub(super) struct CanonicalizeIfCondition;

impl RewritePattern for CanonicalizeIfCondition {
    fn debug_name(&self) -> &'static str {
        "affine-canonicalize-if-condition"
    }

    fn root(&self) -> Option<&'static str> {
        Some(IF)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(set) = condition(ctx, op) else {
            return false;
        };
        let operands = ctx.op(op).operands.to_vec();
        if operands.len() != set.num_inputs() as usize {
            return false;
        }
        let as_map = BoundMap {
            map: AffineMap::new(set.num_dims, set.num_symbols, set.constraints.clone()),
            operands: operands.clone(),
        };
        let fed_by_apply = operands
            .iter()
            .any(|&v| ctx.defining_op(v).is_some_and(|p| ctx.op_name(p) == APPLY));
        let composed = if fed_by_apply {
            compose_map_and_operands(ctx, &as_map)
        } else {
            as_map
        };
        let canonical = canonicalize_map_and_operands(ctx, composed);
        if canonical.map.results == set.constraints && canonical.operands == operands {
            return false;
        }
        // Rewritten constraints take the simplified form MLIR's expression builders give.
        let constraints = canonical
            .map
            .results
            .iter()
            .map(|e| mlir_form(&e.simplify()))
            .collect();
        let Some(new_set) = IntegerSet::try_new(
            canonical.map.num_dims,
            canonical.map.num_symbols,
            constraints,
            set.eq_flags.clone(),
        ) else {
            return false;
        };
        if new_set == set && canonical.operands == operands {
            return false;
        }
        let data = ctx.op(op);
        let result_types = data.results.iter().map(|&r| ctx.value_type(r)).collect();
        let (name, loc) = (data.name, data.loc);
        let attributes = ctx.dictionary_entries(data.attributes).to_vec();
        let mut properties: Vec<(String, Attr)> = data
            .properties
            .map(|p| ctx.dictionary_entries(p).to_vec())
            .unwrap_or_default();
        let old_regions = data.regions.to_vec();
        if old_regions.len() != 2 {
            return false;
        }
        let ctx = rewriter.ctx_mut();
        let set_attr = ctx.intern_attr(AttrKind::IntegerSet(new_set));
        properties.retain(|(k, _)| k != "condition");
        properties.push(("condition".to_string(), set_attr));
        let properties = Some(ctx.dictionary_attr(properties));
        let new_if = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: canonical.operands,
                result_types,
                successors: vec![],
                num_regions: 2,
                properties,
                attributes,
                loc,
            },
        );
        let new_regions = rewriter.ctx().op(new_if).regions.to_vec();
        for (&old, &new) in old_regions.iter().zip(&new_regions) {
            rewriter.inline_region_before(old, new, None);
        }
        let results = rewriter.ctx().op(new_if).results.to_vec();
        rewriter.replace_op(op, &results);
        true
    }
}
