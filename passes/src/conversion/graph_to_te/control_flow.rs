//! `graph.if` becomes `scf.if` on tensors: the condition's one element is read with
//! `te.extract` (at index 0 of each dimension, as the condition may be `tensor<1xi1>`), and
//! the two branches move, block and all, into the `scf.if`'s regions, where their graph ops
//! are lowered like any other; each `graph.yield` becomes an `scf.yield`.
//!
//! ```mlir
//! %c = te.extract %cond[] : tensor<i1>
//! %y = scf.if %c -> (tensor<2x3xf32>) {
//!   %t = te.compute ...            // the then branch, lowered
//!   scf.yield %t : tensor<2x3xf32>
//! } else {
//!   ...
//! }
//! ```

use tb_dialects::graph::GraphOp;
use tb_dialects::{scf, te};
use tb_ir::ods::OpKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::conversion::{ConversionPattern, ConversionRewriter, PatternRoots, op_failure};
use tb_ir::{Diagnostic, OpId, Value};

/// The patterns of this family.
pub(super) fn patterns() -> Vec<Box<dyn ConversionPattern>> {
    vec![Box::new(IfToScf), Box::new(YieldToScf)]
}

/// `graph.if` → `te.extract` of the condition and an `scf.if` holding its branches.
struct IfToScf;

impl ConversionPattern for IfToScf {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![GraphOp::If.name()])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let ctx = rewriter.ctx();
        let (Some(&condition), [then_region, else_region]) =
            (operands.first(), &ctx.op(op).regions[..])
        else {
            return Err(op_failure(ctx, op, "needs a condition and two regions"));
        };
        let (then_region, else_region) = (*then_region, *else_region);
        let rank = ctx
            .type_kind(ctx.value_type(condition))
            .shape()
            .map(<[i64]>::len)
            .ok_or_else(|| op_failure(ctx, op, "condition must be a ranked tensor"))?;
        let loc = ctx.op(op).loc;
        let result_types: Vec<_> = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();

        // The condition's single element, at index 0 of every dimension.
        let mut extract_operands = vec![condition];
        if rank > 0 {
            let ctx = rewriter.ctx_mut();
            let index = ctx.index_type();
            let zero = ctx.integer_attr(0, index);
            let constant = tb_dialects::arith::build_constant(ctx, zero, index, loc);
            ctx.insert_op_before(op, constant);
            let zero = ctx.op(constant).results[0];
            extract_operands.extend(std::iter::repeat_n(zero, rank));
        }
        let ctx = rewriter.ctx_mut();
        let i1 = ctx.integer_type(1, tb_ir::Signedness::Signless);
        let name = ctx.intern_op_name(te::EXTRACT);
        let extract = ctx.create_op(OperationState {
            name,
            operands: extract_operands,
            result_types: vec![i1],
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes: vec![],
            loc,
        });
        ctx.insert_op_before(op, extract);
        let flag = ctx.op(extract).results[0];

        // The scf.if is recorded before its regions receive the branches, so that a
        // rollback moves them back before erasing it.
        let name = ctx.intern_op_name(scf::IF);
        let if_op = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: vec![flag],
                result_types,
                successors: vec![],
                num_regions: 2,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        let regions = rewriter.ctx().op(if_op).regions.to_vec();
        rewriter.move_blocks(then_region, regions[0]);
        rewriter.move_blocks(else_region, regions[1]);
        let results = rewriter.ctx().op(if_op).results.to_vec();
        rewriter.replace_op(op, &results);
        Ok(())
    }
}

/// `graph.yield` → `scf.yield` of the same (lowered) values.
struct YieldToScf;

impl ConversionPattern for YieldToScf {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![GraphOp::Yield.name()])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let loc = rewriter.ctx().op(op).loc;
        let name = rewriter.ctx_mut().intern_op_name(scf::YIELD);
        rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: operands.to_vec(),
                result_types: vec![],
                successors: vec![],
                num_regions: 0,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        rewriter.erase_op(op);
        Ok(())
    }
}
