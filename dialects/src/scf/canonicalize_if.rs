//! Canonicalization patterns of `scf.if` that look at what its regions yield and how its
//! condition is used, after MLIR 22's: results chosen between values defined outside the
//! `scf.if` become `arith.select`s, and inside the regions the condition is known (true
//! in the then region, false in the else region).

use tb_ir::operation::OperationState;
use tb_ir::rewrite::{RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, RegionId, TypeKind, Value};

use super::verify::constant_int;
use super::{YIELD, yield_of};

/// The region that directly holds `value`.
fn value_region(ctx: &Context, value: Value) -> Option<RegionId> {
    let block = match ctx.value(value).def {
        ValueDef::Result { op, .. } => ctx.op(op).parent?,
        ValueDef::BlockArgument { block, .. } => block,
        ValueDef::Placeholder => return None,
    };
    ctx.block(block).parent
}

/// A new `scf.yield` giving `operands`, replacing `terminator`.
fn replace_yield(rewriter: &mut Rewriter, terminator: OpId, operands: Vec<Value>) {
    let name = rewriter.ctx_mut().intern_op_name(YIELD);
    let loc = rewriter.ctx().op(terminator).loc;
    rewriter.create_op_before(
        terminator,
        OperationState {
            name,
            operands,
            result_types: vec![],
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes: vec![],
            loc,
        },
    );
    rewriter.erase_op(terminator);
}

/// `scf.if` results whose two yielded values are both defined outside the `scf.if`
/// become `arith.select %cond, %then, %else` (or the value itself when both are the same);
/// the `scf.if` keeps only the other results.
pub(super) struct IfYieldsToSelect;

impl RewritePattern for IfYieldsToSelect {
    fn debug_name(&self) -> &'static str {
        "scf-if-yields-to-select"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::IF)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let results = ctx.op(op).results.to_vec();
        let [then_region, else_region] = ctx.op(op).regions[..] else {
            return false;
        };
        if results.is_empty() {
            return false;
        }
        let (Some(then_yield), Some(else_yield)) =
            (yield_of(ctx, then_region), yield_of(ctx, else_region))
        else {
            return false;
        };
        let then_values = ctx.op(then_yield).operands.to_vec();
        let else_values = ctx.op(else_yield).operands.to_vec();
        if then_values.len() != results.len() || else_values.len() != results.len() {
            return false;
        }
        // Tensor results stay in the `scf.if`: TensorBind's te level lowers a run-time
        // choice between tensors as an `scf.if` (buffers chosen by branch), not as a
        // select of whole tensors.
        let inside: Vec<bool> = (0..results.len())
            .map(|i| {
                value_region(ctx, then_values[i]) == Some(then_region)
                    || value_region(ctx, else_values[i]) == Some(else_region)
                    || matches!(
                        ctx.type_kind(ctx.value_type(results[i])),
                        TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
                    )
            })
            .collect();
        if inside.iter().all(|&x| x) {
            return false;
        }
        let condition = ctx.op(op).operands[0];
        let data = ctx.op(op);
        let kept: Vec<usize> = (0..results.len()).filter(|&i| inside[i]).collect();
        let state = OperationState {
            name: data.name,
            operands: data.operands.to_vec(),
            result_types: kept.iter().map(|&i| ctx.value_type(results[i])).collect(),
            successors: vec![],
            num_regions: 2,
            properties: data.properties,
            attributes: ctx.dictionary_entries(data.attributes).to_vec(),
            loc: data.loc,
        };
        let loc = data.loc;
        let replacement = rewriter.create_op_before(op, state);
        let new_regions = rewriter.ctx().op(replacement).regions.to_vec();
        rewriter.inline_region_before(then_region, new_regions[0], None);
        rewriter.inline_region_before(else_region, new_regions[1], None);
        let new_results = rewriter.ctx().op(replacement).results.to_vec();
        let select = rewriter.ctx_mut().intern_op_name("arith.select");
        let mut values = Vec::with_capacity(results.len());
        for i in 0..results.len() {
            let (t, f) = (then_values[i], else_values[i]);
            if inside[i] {
                let k = kept.iter().position(|&x| x == i).unwrap_or(0);
                values.push(new_results[k]);
            } else if t == f {
                values.push(t);
            } else {
                let ty = rewriter.ctx().value_type(t);
                let sel = rewriter.create_op_before(
                    replacement,
                    OperationState {
                        name: select,
                        operands: vec![condition, t, f],
                        result_types: vec![ty],
                        successors: vec![],
                        num_regions: 0,
                        properties: None,
                        attributes: vec![],
                        loc,
                    },
                );
                values.push(rewriter.ctx().op(sel).results[0]);
            }
        }
        let pick = |from: &[Value]| kept.iter().map(|&i| from[i]).collect::<Vec<_>>();
        replace_yield(rewriter, then_yield, pick(&then_values));
        replace_yield(rewriter, else_yield, pick(&else_values));
        rewriter.replace_op(op, &values);
        true
    }
}

/// Which region of an `scf.if` a use lies in (at any depth).
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Then,
    Else,
}

/// The side of `op` that `region` is nested in, looking no further out than `stop`.
fn side_of(ctx: &Context, op: OpId, mut region: RegionId, stop: Option<RegionId>) -> Option<Side> {
    let [then_region, else_region] = ctx.op(op).regions[..] else {
        return None;
    };
    loop {
        if region == then_region {
            return Some(Side::Then);
        }
        if region == else_region {
            return Some(Side::Else);
        }
        if Some(region) == stop {
            return None;
        }
        let parent = ctx.region(region).parent?;
        region = ctx.block(ctx.op(parent).parent?).parent?;
    }
}

/// Inside its then region an `scf.if`'s condition is `true`, inside its else region
/// `false`: uses there are replaced by constants made before the `scf.if`.
pub(super) struct IfConditionPropagation;

impl RewritePattern for IfConditionPropagation {
    fn debug_name(&self) -> &'static str {
        "scf-if-condition-propagation"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::IF)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let condition = ctx.op(op).operands[0];
        if constant_int(ctx, condition).is_some() {
            return false;
        }
        let stop = value_region(ctx, condition);
        let uses: Vec<(OpId, usize, Side)> = ctx
            .value(condition)
            .uses
            .iter()
            .filter_map(|u| {
                let region = ctx.block(ctx.op(u.op).parent?).parent?;
                side_of(ctx, op, region, stop).map(|s| (u.op, u.index as usize, s))
            })
            .collect();
        if uses.is_empty() {
            return false;
        }
        let mut constants: [Option<Value>; 2] = [None, None];
        for (user, index, side) in uses {
            let slot = usize::from(side == Side::Then);
            let value = match constants[slot] {
                Some(v) => v,
                None => {
                    let v = make_bool(rewriter, op, side == Side::Then);
                    constants[slot] = Some(v);
                    v
                }
            };
            rewriter.set_operand(user, index, value);
        }
        true
    }
}

/// An `arith.constant` of type i1 holding `value`, made before `before`.
fn make_bool(rewriter: &mut Rewriter, before: OpId, value: bool) -> Value {
    let ctx = rewriter.ctx_mut();
    let i1 = ctx.i1();
    let attr = ctx.integer_attr(i128::from(value), i1);
    let props = ctx.dictionary_attr(vec![("value".to_string(), attr)]);
    let name = ctx.intern_op_name("arith.constant");
    let loc = ctx.op(before).loc;
    let constant = rewriter.create_op_before(
        before,
        OperationState {
            name,
            operands: vec![],
            result_types: vec![i1],
            successors: vec![],
            num_regions: 0,
            properties: Some(props),
            attributes: vec![],
            loc,
        },
    );
    rewriter.ctx().op(constant).results[0]
}
