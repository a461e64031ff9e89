//! `graph.if`: ONNX If with a condition computed at run time. Its two single-block regions
//! (then, else) compute the results and end in `graph.yield`; like MLIR's regions they use
//! values defined above the op directly (an ONNX branch reads outer values by name).
//!
//! ```mlir
//! %y = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
//!   %t = graph.relu %x : tensor<2x3xf32>
//!   graph.yield %t : tensor<2x3xf32>
//! } else {
//!   %e = graph.neg %x : tensor<2x3xf32>
//!   graph.yield %e : tensor<2x3xf32>
//! }
//! ```
//!
//! Canonicalization replaces a `graph.if` on a constant condition by the ops of the region
//! it selects.

use tb_ir::ods::{OpDef, operand, single_block_region, variadic};
use tb_ir::printer::type_to_string;
use tb_ir::registry::OpTraits;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Context, Diagnostic, OpId, RegionId, Value};

use crate::graph::literal::Literal;
use crate::graph::types::{TENSOR_ANY, TENSOR_BOOL, static_tensor};

pub const IF: &str = "graph.if";
pub const YIELD: &str = "graph.yield";

fn op_error(ctx: &Context, op: OpId, message: impl AsRef<str>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.as_ref()),
    )
}

/// The `graph.yield` ending `region`'s block, if it has one.
pub fn yield_of(ctx: &Context, region: RegionId) -> Option<OpId> {
    let block = *ctx.region(region).blocks.first()?;
    ctx.block(block).last.filter(|&t| ctx.op_name(t) == YIELD)
}

/// Both branches yield the op's result types; the condition holds one element; every
/// result is a statically shaped tensor.
fn verify_if(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (Some(&condition), [then_region, else_region]) = (data.operands.first(), &data.regions[..])
    else {
        return Err(op_error(ctx, op, "needs a condition and two regions"));
    };
    let cond = ctx.value_type(condition);
    match static_tensor(ctx, cond) {
        Some((shape, _)) if shape.iter().product::<i64>() == 1 => {}
        _ => {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "condition must be a statically shaped tensor of one element, not {}",
                    type_to_string(ctx, cond)
                ),
            ));
        }
    }
    let results: Vec<_> = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    for (i, &ty) in results.iter().enumerate() {
        if static_tensor(ctx, ty).is_none() {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "result #{i} must be a statically shaped tensor, not {}",
                    type_to_string(ctx, ty)
                ),
            ));
        }
    }
    for (&region, which) in [then_region, else_region].into_iter().zip(["then", "else"]) {
        let Some(block) = ctx.region(region).blocks.first() else {
            return Err(op_error(
                ctx,
                op,
                format!("{which} region must have a block"),
            ));
        };
        if !ctx.block(*block).args.is_empty() {
            return Err(op_error(
                ctx,
                op,
                format!("{which} region must not have block arguments"),
            ));
        }
        let Some(term) = yield_of(ctx, region) else {
            return Err(op_error(
                ctx,
                op,
                format!("{which} region must end in '{YIELD}'"),
            ));
        };
        let yielded: Vec<_> = ctx
            .op(term)
            .operands
            .iter()
            .map(|&v| ctx.value_type(v))
            .collect();
        if yielded != results {
            let list = |tys: &[tb_ir::Type]| {
                tys.iter()
                    .map(|&t| type_to_string(ctx, t))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(op_error(
                ctx,
                op,
                format!(
                    "{which} region yields ({}) but the op's results are ({})",
                    list(&yielded),
                    list(&results)
                ),
            ));
        }
    }
    Ok(())
}

/// The value of a condition a constant op defines.
fn constant_condition(ctx: &Context, condition: Value) -> Option<bool> {
    let ValueDef::Result { op, .. } = ctx.value(condition).def else {
        return None;
    };
    let value = Literal::from_attr(ctx, constant_value(ctx, op)?)?.splat_value()?;
    Some(value.to_f64_vec().first()? != &0.0)
}

/// `graph.if` on a constant condition: the selected region's ops move before the op, whose
/// results become the values the region yields.
struct IfConstantCondition;

impl RewritePattern for IfConstantCondition {
    fn debug_name(&self) -> &'static str {
        "graph-if-constant-condition"
    }

    fn root(&self) -> Option<&'static str> {
        Some(IF)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(taken) = constant_condition(ctx, ctx.op(op).operands[0]) else {
            return false;
        };
        let region = ctx.op(op).regions[if taken { 0 } else { 1 }];
        let (Some(&block), Some(terminator)) =
            (ctx.region(region).blocks.first(), yield_of(ctx, region))
        else {
            return false;
        };
        if !ctx.block(block).args.is_empty()
            || ctx.op(terminator).operands.len() != ctx.op(op).results.len()
        {
            return false;
        }
        rewriter.inline_block_before(block, op, &[]);
        let yielded = rewriter.ctx().op(terminator).operands.to_vec();
        rewriter.erase_op(terminator);
        rewriter.replace_op(op, &yielded);
        true
    }
}

fn if_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(IfConstantCondition));
}

fn verify_yield(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    match ctx.parent_op(op) {
        Some(p) if [IF, super::loops::LOOP, super::loops::SCAN].contains(&ctx.op_name(p)) => Ok(()),
        _ => Err(op_error(
            ctx,
            op,
            format!(
                "expects parent op '{IF}', '{}' or '{}'",
                super::loops::LOOP,
                super::loops::SCAN
            ),
        )),
    }
}

pub(super) static DEFS: &[OpDef] = &[
    OpDef {
        name: IF,
        summary: "computes its results by its then region or its else region, as a \
                  one-element boolean tensor says",
        operands: &[operand("condition", TENSOR_BOOL)],
        results: &[variadic("results", TENSOR_ANY)],
        regions: &[
            single_block_region("then_branch"),
            single_block_region("else_branch"),
        ],
        // Unused, it computes nothing anyone reads; its regions hold only graph ops.
        traits: OpTraits {
            single_block: true,
            removable_if_unused: true,
            ..OpDef::EMPTY.traits
        },
        format: Some(
            "$condition attr-dict `:` functional-type(operands, results) $then_branch `else` \
             $else_branch",
        ),
        verify: Some(verify_if),
        canonicalize: Some(if_patterns),
        ..OpDef::EMPTY
    },
    OpDef {
        name: YIELD,
        summary: "ends a region of a graph control-flow op, giving the op's results",
        operands: &[variadic("results", TENSOR_ANY)],
        traits: OpTraits {
            terminator: true,
            pure: true,
            ..OpDef::EMPTY.traits
        },
        format: Some("attr-dict ($results^ `:` type($results))?"),
        verify: Some(verify_yield),
        ..OpDef::EMPTY
    },
];
