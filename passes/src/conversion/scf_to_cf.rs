//! `convert-scf-to-cf`: structured control flow becomes branches between blocks, as MLIR's
//! pass of that name lowers it, so that the CPU backend (which compiles multi-block
//! functions) and every pass that knows `cf` can run `scf` code:
//!
//! - `scf.for`: a condition block `^cond(%iv, %carried...)` compares the induction
//!   variable with the upper bound (`slt`, or `ult` for `scf.for unsigned`) and enters the
//!   body or leaves to the block after the loop; the body's `scf.yield` adds the step and
//!   branches back;
//! - `scf.if`: `cf.cond_br` to the then and else regions, each `scf.yield` branching to the
//!   block after the op, whose arguments are the op's results;
//! - `scf.while`: the 'before' region's `scf.condition` becomes a `cf.cond_br` into the
//!   'after' region or out of the loop, whose `scf.yield` branches back to 'before';
//! - `scf.execute_region`: its blocks are spliced in, each `scf.yield` branching out;
//! - `scf.index_switch`: a `cf.switch` on the index (cast to `i64`, which holds every
//!   index) to the case regions.
//!
//! Nested ops are lowered first, so each region spliced into its parent is already made of
//! `cf` branches. `scf.parallel` is not lowered: the pass reports it.

use tb_ir::attributes::{AttrKind, DenseArrayData, DenseData, DenseElement};
use tb_ir::operation::OperationState;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Attr, BlockId, Context, Diagnostic, Location, OpId, RegionId, TypeKind, Value};

use tb_dialects::scf::{self, ScfOp};
use tb_ir::ods::OpKind;

use crate::conversion::te_to_loop::builder::Builder;

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-scf-to-cf",
        description: "Lower structured control flow (scf) to branches between blocks (cf)",
        options: &[],
        create: |_: &PassOptions| Box::new(ConvertScfToCf),
    }
}

struct ConvertScfToCf;

impl Pass for ConvertScfToCf {
    fn argument(&self) -> &'static str {
        "convert-scf-to-cf"
    }

    fn display_name(&self) -> &'static str {
        "SCFToControlFlowPass"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> Result<(), Diagnostic> {
        // Post-order: the ops nested in a region are lowered before the op holding it.
        let mut ops = Vec::new();
        ctx.walk_nested(root, &mut |op| {
            if ScfOp::of(ctx, op).is_some_and(|k| k != ScfOp::Yield) {
                ops.push(op);
            }
        });
        for op in ops.iter().copied() {
            if let Some(ScfOp::Parallel) = ScfOp::of(ctx, op) {
                return Err(Diagnostic::error(
                    ctx.op(op).loc,
                    "'scf.parallel' op is not lowered by convert-scf-to-cf",
                ));
            }
        }
        for op in ops.into_iter().rev() {
            match ScfOp::of(ctx, op) {
                Some(ScfOp::For) => lower_for(ctx, op)?,
                Some(ScfOp::If) => lower_if(ctx, op)?,
                Some(ScfOp::While) => lower_while(ctx, op)?,
                Some(ScfOp::ExecuteRegion) => lower_execute_region(ctx, op)?,
                Some(ScfOp::IndexSwitch) => lower_index_switch(ctx, op)?,
                // Terminators go with the op that holds them; nothing else is left.
                _ => {}
            }
        }
        Ok(())
    }
}

fn error(ctx: &Context, op: OpId, message: &str) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    )
}

fn i32_array(ctx: &mut Context, values: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

/// Creates the branch `name` at the end of `block` (or before `before`).
fn branch(
    ctx: &mut Context,
    at: BranchAt,
    name: &str,
    operands: Vec<Value>,
    successors: Vec<BlockId>,
    properties: Vec<(String, Attr)>,
    loc: Location,
) {
    let properties = (!properties.is_empty()).then(|| ctx.dictionary_attr(properties));
    let state = OperationState {
        name: ctx.intern_op_name(name),
        operands,
        result_types: vec![],
        successors,
        num_regions: 0,
        properties,
        attributes: vec![],
        loc,
    };
    let op = ctx.create_op(state);
    match at {
        BranchAt::End(block) => ctx.append_op(block, op),
        BranchAt::Before(before) => ctx.insert_op_before(before, op),
    }
}

#[derive(Clone, Copy)]
enum BranchAt {
    End(BlockId),
    Before(OpId),
}

fn br(ctx: &mut Context, at: BranchAt, dest: BlockId, operands: Vec<Value>, loc: Location) {
    branch(ctx, at, "cf.br", operands, vec![dest], vec![], loc);
}

#[allow(clippy::too_many_arguments)]
fn cond_br(
    ctx: &mut Context,
    at: BranchAt,
    condition: Value,
    on_true: (BlockId, Vec<Value>),
    on_false: (BlockId, Vec<Value>),
    loc: Location,
) {
    let sizes = i32_array(ctx, &[1, on_true.1.len(), on_false.1.len()]);
    let mut operands = vec![condition];
    operands.extend(on_true.1);
    operands.extend(on_false.1);
    branch(
        ctx,
        at,
        "cf.cond_br",
        operands,
        vec![on_true.0, on_false.0],
        vec![("operandSegmentSizes".into(), sizes)],
        loc,
    );
}

/// Splits the block of `op` after it: the ops that follow move to a new block, placed
/// right after, whose arguments (one per result of `op`, of its types) replace its results.
fn split_after(ctx: &mut Context, op: OpId) -> Result<(BlockId, RegionId), Diagnostic> {
    let block = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let region = ctx
        .block(block)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a region"))?;
    let rest = ctx.create_block();
    let next = ctx
        .region(region)
        .blocks
        .iter()
        .position(|&b| b == block)
        .and_then(|i| ctx.region(region).blocks.get(i + 1).copied());
    ctx.insert_blocks(region, next, &[rest]);
    let mut following = Vec::new();
    let mut cursor = ctx.op(op).next;
    while let Some(current) = cursor {
        following.push(current);
        cursor = ctx.op(current).next;
    }
    for moved in following {
        ctx.unlink_op(moved);
        ctx.append_op(rest, moved);
    }
    let loc = ctx.op(op).loc;
    let results = ctx.op(op).results.to_vec();
    for result in results {
        let ty = ctx.value_type(result);
        let arg = ctx.add_block_argument(rest, ty, Some(loc));
        ctx.replace_all_uses(result, arg);
    }
    Ok((rest, region))
}

/// Moves the blocks of `from` into `into`, before `before`; gives them.
fn splice(ctx: &mut Context, from: RegionId, into: RegionId, before: BlockId) -> Vec<BlockId> {
    let blocks = ctx.take_blocks(from);
    ctx.insert_blocks(into, Some(before), &blocks);
    blocks
}

/// Replaces each `terminator`-named op ending one of `blocks` by what `replace` builds
/// before it (given the terminator's operands).
fn rewrite_terminators(
    ctx: &mut Context,
    blocks: &[BlockId],
    terminator: &str,
    mut replace: impl FnMut(&mut Context, OpId, Vec<Value>),
) {
    for &block in blocks {
        let Some(last) = ctx.block(block).last else {
            continue;
        };
        if ctx.op_name(last) != terminator {
            continue;
        }
        let operands = ctx.op(last).operands.to_vec();
        replace(ctx, last, operands);
        ctx.erase_op(last);
    }
}

fn lower_for(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    let (lb, ub, step) = scf::for_bounds(ctx, op).ok_or_else(|| error(ctx, op, "has no bounds"))?;
    let inits = scf::for_inits(ctx, op).to_vec();
    let unsigned = scf::for_is_unsigned(ctx, op);
    let body = *ctx
        .op(op)
        .regions
        .first()
        .ok_or_else(|| error(ctx, op, "has no body"))?;
    let Some(entry) = ctx.entry_block(body) else {
        return Err(error(ctx, op, "has an empty body"));
    };
    let from = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let (rest, region) = split_after(ctx, op)?;
    // ^cond(%iv, %carried...): enter the body or leave.
    let cond = ctx.create_block();
    ctx.insert_blocks(region, Some(rest), &[cond]);
    let iv_type = ctx.value_type(lb);
    let iv = ctx.add_block_argument(cond, iv_type, Some(loc));
    let carried: Vec<Value> = inits
        .iter()
        .map(|&v| {
            let ty = ctx.value_type(v);
            ctx.add_block_argument(cond, ty, Some(loc))
        })
        .collect();
    let blocks = splice(ctx, body, region, rest);
    let predicate = if unsigned { "ult" } else { "slt" };
    let more = Builder::at_end(cond, loc).cmpi(ctx, predicate, iv, ub);
    let mut enter = vec![iv];
    enter.extend(carried.iter().copied());
    cond_br(
        ctx,
        BranchAt::End(cond),
        more,
        (entry, enter),
        (rest, carried),
        loc,
    );
    let body_iv = ctx.block(entry).args.first().copied().unwrap_or(iv);
    rewrite_terminators(ctx, &blocks, scf::YIELD, |ctx, yield_op, yielded| {
        let next = Builder::before(yield_op, loc).binary(ctx, "arith.addi", body_iv, step);
        let mut operands = vec![next];
        operands.extend(yielded);
        br(ctx, BranchAt::Before(yield_op), cond, operands, loc);
    });
    let mut start = vec![lb];
    start.extend(inits);
    ctx.erase_op(op);
    br(ctx, BranchAt::End(from), cond, start, loc);
    Ok(())
}

fn lower_if(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    let condition = ctx.op(op).operands[0];
    let [then_region, else_region] = ctx.op(op).regions[..] else {
        return Err(error(ctx, op, "needs two regions"));
    };
    let from = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let (rest, region) = split_after(ctx, op)?;
    let then_entry = ctx.entry_block(then_region).unwrap_or(rest);
    let else_entry = ctx.entry_block(else_region).unwrap_or(rest);
    let mut blocks = splice(ctx, then_region, region, rest);
    blocks.extend(splice(ctx, else_region, region, rest));
    rewrite_terminators(ctx, &blocks, scf::YIELD, |ctx, yield_op, yielded| {
        br(ctx, BranchAt::Before(yield_op), rest, yielded, loc);
    });
    ctx.erase_op(op);
    cond_br(
        ctx,
        BranchAt::End(from),
        condition,
        (then_entry, vec![]),
        (else_entry, vec![]),
        loc,
    );
    Ok(())
}

fn lower_while(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    let inits = ctx.op(op).operands.to_vec();
    let [before, after] = ctx.op(op).regions[..] else {
        return Err(error(ctx, op, "needs two regions"));
    };
    let (Some(before_entry), Some(after_entry)) = (ctx.entry_block(before), ctx.entry_block(after))
    else {
        return Err(error(ctx, op, "has an empty region"));
    };
    let from = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let (rest, region) = split_after(ctx, op)?;
    let before_blocks = splice(ctx, before, region, rest);
    let after_blocks = splice(ctx, after, region, rest);
    rewrite_terminators(
        ctx,
        &before_blocks,
        scf::CONDITION,
        |ctx, condition, operands| {
            let forwarded = operands[1..].to_vec();
            cond_br(
                ctx,
                BranchAt::Before(condition),
                operands[0],
                (after_entry, forwarded.clone()),
                (rest, forwarded),
                loc,
            );
        },
    );
    rewrite_terminators(ctx, &after_blocks, scf::YIELD, |ctx, yield_op, yielded| {
        br(ctx, BranchAt::Before(yield_op), before_entry, yielded, loc);
    });
    ctx.erase_op(op);
    br(ctx, BranchAt::End(from), before_entry, inits, loc);
    Ok(())
}

fn lower_execute_region(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    let body = *ctx
        .op(op)
        .regions
        .first()
        .ok_or_else(|| error(ctx, op, "has no region"))?;
    let Some(entry) = ctx.entry_block(body) else {
        return Err(error(ctx, op, "has an empty region"));
    };
    let from = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let (rest, region) = split_after(ctx, op)?;
    let blocks = splice(ctx, body, region, rest);
    rewrite_terminators(ctx, &blocks, scf::YIELD, |ctx, yield_op, yielded| {
        br(ctx, BranchAt::Before(yield_op), rest, yielded, loc);
    });
    ctx.erase_op(op);
    br(ctx, BranchAt::End(from), entry, vec![], loc);
    Ok(())
}

fn lower_index_switch(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let loc = ctx.op(op).loc;
    let selector = ctx.op(op).operands[0];
    let cases = scf::switch_cases(ctx, op);
    let regions = ctx.op(op).regions.to_vec();
    let mut entries = Vec::with_capacity(regions.len());
    for &region in &regions {
        entries.push(
            ctx.entry_block(region)
                .ok_or_else(|| error(ctx, op, "has an empty region"))?,
        );
    }
    let from = ctx
        .op(op)
        .parent
        .ok_or_else(|| error(ctx, op, "is not in a block"))?;
    let (rest, parent_region) = split_after(ctx, op)?;
    let mut blocks = Vec::new();
    for &region in &regions {
        blocks.extend(splice(ctx, region, parent_region, rest));
    }
    rewrite_terminators(ctx, &blocks, scf::YIELD, |ctx, yield_op, yielded| {
        br(ctx, BranchAt::Before(yield_op), rest, yielded, loc);
    });
    ctx.erase_op(op);
    // `cf.switch` takes an integer flag: the index as i64, which holds every index.
    let i64_ty = ctx.i64();
    let flag =
        Builder::at_end(from, loc).value(ctx, "arith.index_cast", vec![selector], i64_ty, vec![]);
    let mut properties = vec![
        (
            "operandSegmentSizes".to_string(),
            i32_array(ctx, &[1, 0, 0]),
        ),
        (
            "case_operand_segments".to_string(),
            i32_array(ctx, &vec![0; cases.len()]),
        ),
    ];
    if !cases.is_empty() {
        let vector = ctx.intern_type(TypeKind::Vector {
            shape: vec![cases.len() as i64],
            scalable: vec![false],
            element: i64_ty,
        });
        let splat = cases.iter().all(|&c| c == cases[0]);
        let elements = if splat { &cases[..1] } else { &cases[..] };
        let values = ctx.intern_attr(AttrKind::DenseElements {
            ty: vector,
            data: DenseData {
                splat,
                elements: elements
                    .iter()
                    .map(|&v| DenseElement::Int(v.into()))
                    .collect(),
            },
        });
        properties.push(("case_values".to_string(), values));
    }
    branch(
        ctx,
        BranchAt::End(from),
        "cf.switch",
        vec![flag],
        entries,
        properties,
        loc,
    );
    Ok(())
}
