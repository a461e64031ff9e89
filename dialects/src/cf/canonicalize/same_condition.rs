//! Canonicalization patterns of `cf.cond_br` and `cf.switch` that use what the block's
//! only predecessor already decided, after MLIR 22's: a branch on the same condition (or
//! switch on the same flag) as the branch that led here has a known outcome.

use tb_ir::rewrite::{RewritePattern, Rewriter};
use tb_ir::{BlockId, Context, OpId};

use super::{replace_with_br, same_bits, switch_state};
use crate::cf::{COND_BR, SWITCH, case_values, successor_operands};

/// The one block whose terminator branches to `block` (possibly by several edges), if
/// there is exactly one.
fn single_predecessor(ctx: &Context, block: BlockId) -> Option<BlockId> {
    let region = ctx.block(block).parent?;
    let mut found = None;
    for &b in &ctx.region(region).blocks {
        let reaches = ctx
            .block_terminator(b)
            .is_some_and(|t| ctx.op(t).successors.contains(&block));
        if reaches {
            if found.is_some() {
                return None;
            }
            found = Some(b);
        }
    }
    found
}

/// The terminator of the single predecessor of `op`'s block, when it is named `name`.
fn predecessor_branch(ctx: &Context, op: OpId, name: &str) -> Option<(BlockId, OpId)> {
    let block = ctx.op(op).parent?;
    let pred = single_predecessor(ctx, block)?;
    let terminator = ctx.block_terminator(pred)?;
    (ctx.op_name(terminator) == name).then_some((block, terminator))
}

/// `cf.cond_br %c` in a block reached only from a `cf.cond_br %c` goes where that branch
/// came through: to its true destination when this block is the true one.
pub(super) struct CondBranchOnKnownCondition;

impl RewritePattern for CondBranchOnKnownCondition {
    fn debug_name(&self) -> &'static str {
        "cf-cond-br-on-known-condition"
    }
    fn root(&self) -> Option<&'static str> {
        Some(COND_BR)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((block, pred)) = predecessor_branch(ctx, op, COND_BR) else {
            return false;
        };
        if ctx.op(pred).operands.first() != ctx.op(op).operands.first() {
            return false;
        }
        let index = if ctx.op(pred).successors.first() == Some(&block) {
            0
        } else {
            1
        };
        let (Some(&dest), Some(operands)) = (
            ctx.op(op).successors.get(index),
            successor_operands(ctx, op, index),
        ) else {
            return false;
        };
        replace_with_br(rewriter, op, dest, operands);
        true
    }
}

/// The width of the integer flag of a `cf.switch`.
fn flag_width(ctx: &Context, op: OpId) -> Option<u32> {
    match ctx.type_kind(ctx.value_type(*ctx.op(op).operands.first()?)) {
        tb_ir::TypeKind::Integer { width, .. } => Some(*width),
        _ => None,
    }
}

/// `cf.switch %f` in a block reached only through a case of a `cf.switch %f` (not its
/// default) branches where that case value leads.
pub(super) struct SwitchOnKnownCase;

impl RewritePattern for SwitchOnKnownCase {
    fn debug_name(&self) -> &'static str {
        "cf-switch-on-known-case"
    }
    fn root(&self) -> Option<&'static str> {
        Some(SWITCH)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((block, pred)) = predecessor_branch(ctx, op, SWITCH) else {
            return false;
        };
        let pred_dests = &ctx.op(pred).successors;
        if ctx.op(pred).operands.first() != ctx.op(op).operands.first()
            || pred_dests.first() == Some(&block)
        {
            return false;
        }
        let (Some(pred_values), Some(values), Some(width)) = (
            case_values(ctx, pred),
            case_values(ctx, op),
            flag_width(ctx, op),
        ) else {
            return false;
        };
        // The first case of the predecessor that leads here gives the flag's value.
        let index = match pred_dests[1..].iter().position(|&d| d == block) {
            Some(case) => {
                let Some(&known) = pred_values.get(case) else {
                    return false;
                };
                values
                    .iter()
                    .position(|&v| same_bits(v, known, width))
                    .map_or(0, |c| c + 1)
            }
            None => 0,
        };
        let (Some(&dest), Some(operands)) = (
            ctx.op(op).successors.get(index),
            successor_operands(ctx, op, index),
        ) else {
            return false;
        };
        replace_with_br(rewriter, op, dest, operands);
        true
    }
}

/// `cf.switch %f` in a block reached only as the default of a `cf.switch %f` drops the
/// cases whose values the predecessor sent elsewhere.
pub(super) struct SwitchAfterDefault;

impl RewritePattern for SwitchAfterDefault {
    fn debug_name(&self) -> &'static str {
        "cf-switch-after-default"
    }
    fn root(&self) -> Option<&'static str> {
        Some(SWITCH)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((block, pred)) = predecessor_branch(ctx, op, SWITCH) else {
            return false;
        };
        let pred_dests = ctx.op(pred).successors.to_vec();
        if ctx.op(pred).operands.first() != ctx.op(op).operands.first()
            || pred_dests.first() != Some(&block)
        {
            return false;
        }
        let (Some(pred_values), Some(values), Some(width)) = (
            case_values(ctx, pred),
            case_values(ctx, op),
            flag_width(ctx, op),
        ) else {
            return false;
        };
        // Values the predecessor sends to another block cannot reach this switch.
        let impossible: Vec<i128> = pred_values
            .iter()
            .enumerate()
            .filter(|&(i, _)| pred_dests.get(i + 1) != Some(&block))
            .map(|(_, &v)| v)
            .collect();
        let successors = ctx.op(op).successors.to_vec();
        let Some(default_operands) = successor_operands(ctx, op, 0) else {
            return false;
        };
        let mut kept = Vec::new();
        for (case, &value) in values.iter().enumerate() {
            if impossible.iter().any(|&v| same_bits(v, value, width)) {
                continue;
            }
            let Some(operands) = successor_operands(ctx, op, case + 1) else {
                return false;
            };
            kept.push((value, successors[case + 1], operands));
        }
        if kept.len() == values.len() {
            return false;
        }
        let flag = ctx.op(op).operands[0];
        let state = switch_state(
            rewriter.ctx_mut(),
            op,
            flag,
            (successors[0], default_operands),
            kept,
        );
        rewriter.create_op_before(op, state);
        rewriter.erase_op(op);
        true
    }
}
