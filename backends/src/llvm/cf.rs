//! `cf` branches as LLVM control flow, shared by targets. Each block of a multi-block
//! function is an LLVM basic block whose arguments are phi nodes (see
//! [`Translator::blocks`]); a branch adds its operands to the phis of the block it goes to.
//! Every edge of a conditional branch or switch gets a block of its own, so two edges
//! into one block (`cf.cond_br %c, ^bb1(%a), ^bb1(%b)`) give the phi one incoming value per
//! LLVM predecessor, as LLVM requires.

use inkwell::IntPredicate;
use inkwell::basic_block::BasicBlock;
use inkwell::values::IntValue;
use tb_dialects::cf::{self, CfOp};
use tb_ir::ods::OpKind;
use tb_ir::{BlockId, Context, OpId, TypeKind};

use super::DialectTranslation;
use super::translator::{Handler, TResult, Translator};

pub(crate) struct CfTranslation;

impl DialectTranslation for CfTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        Some(match CfOp::of(ir, op)? {
            CfOp::Br => br,
            CfOp::CondBr => cond_br,
            CfOp::Switch => switch,
            CfOp::Assert => assert,
        })
    }
}

/// Adds the values `op` passes to successor `index` to that block's phis, coming from the
/// builder's current block, and returns the LLVM block to jump to.
fn bind_successor<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    op: OpId,
    index: usize,
) -> TResult<BasicBlock<'ctx>> {
    let block: BlockId = tr.ir.op(op).successors[index];
    let operands =
        cf::successor_operands(tr.ir, op, index).ok_or("has malformed operand segments")?;
    let values = operands
        .iter()
        .map(|&v| tr.value(v))
        .collect::<TResult<Vec<_>>>()?;
    let from = tr
        .builder
        .get_insert_block()
        .ok_or("is not inside a function")?;
    let (target, phis) = tr
        .blocks
        .get(&block)
        .cloned()
        .ok_or("branches to a block that is not translated")?;
    for (phi, value) in phis.iter().zip(&values) {
        phi.add_incoming(&[(value, from)]);
    }
    Ok(target)
}

/// A new block holding only the edge to successor `index`.
fn edge_block<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    op: OpId,
    index: usize,
) -> TResult<BasicBlock<'ctx>> {
    let function = tr.current_function()?;
    let edge = tr.llvm.append_basic_block(function, "edge");
    let here = tr.builder.get_insert_block();
    tr.builder.position_at_end(edge);
    let target = bind_successor(tr, op, index)?;
    tr.builder.build_unconditional_branch(target)?;
    if let Some(here) = here {
        tr.builder.position_at_end(here);
    }
    Ok(edge)
}

fn br(tr: &mut Translator, op: OpId) -> TResult {
    let target = bind_successor(tr, op, 0)?;
    tr.builder.build_unconditional_branch(target)?;
    Ok(())
}

fn cond_br(tr: &mut Translator, op: OpId) -> TResult {
    let condition = tr.operand(op, 0)?.into_int_value();
    let on_true = edge_block(tr, op, 0)?;
    let on_false = edge_block(tr, op, 1)?;
    tr.builder
        .build_conditional_branch(condition, on_true, on_false)?;
    Ok(())
}

fn switch(tr: &mut Translator, op: OpId) -> TResult {
    let flag = tr.operand(op, 0)?.into_int_value();
    let width = match tr.ir.type_kind(tr.operand_type(op, 0)?) {
        TypeKind::Integer { width, .. } => *width,
        _ => return Err("has a flag that is not an integer".into()),
    };
    let values = cf::case_values(tr.ir, op).ok_or("has malformed case values")?;
    let default = edge_block(tr, op, 0)?;
    // The first of equal case values wins, as in the interpreter; LLVM takes each once.
    let mut cases: Vec<(IntValue, BasicBlock)> = Vec::new();
    let mut seen = Vec::new();
    for (case, &value) in values.iter().enumerate() {
        let bits = truncate(value, width);
        if seen.contains(&bits) {
            continue;
        }
        seen.push(bits);
        let constant = flag
            .get_type()
            .const_int_arbitrary_precision(&[bits as u64, (bits >> 64) as u64]);
        cases.push((constant, edge_block(tr, op, case + 1)?));
    }
    tr.builder.build_switch(flag, default, &cases)?;
    Ok(())
}

/// The low `width` bits of `value`.
fn truncate(value: i128, width: u32) -> u128 {
    if width >= 128 {
        value as u128
    } else {
        (value as u128) & ((1u128 << width) - 1)
    }
}

/// A failed assertion writes its message to standard error and aborts, as MLIR's lowering
/// does.
fn assert(tr: &mut Translator, op: OpId) -> TResult {
    let condition = tr.operand(op, 0)?.into_int_value();
    let message = tr
        .attr(op, "msg")
        .and_then(|m| tr.ir.attr_as_str(m))
        .unwrap_or("")
        .to_string();
    let function = tr.current_function()?;
    let failed = tr.llvm.append_basic_block(function, "assert_failed");
    let holds = tr.llvm.append_basic_block(function, "assert_holds");
    let zero = condition.get_type().const_zero();
    let ok = tr
        .builder
        .build_int_compare(IntPredicate::NE, condition, zero, "")?;
    tr.builder.build_conditional_branch(ok, holds, failed)?;
    tr.builder.position_at_end(failed);
    let line = format!("assertion failed: {message}\n");
    let text = tr
        .builder
        .build_global_string_ptr(&line, "assert_message")?;
    let i32_type = tr.llvm.i32_type();
    let i64_type = tr.llvm.i64_type();
    tr.call_libc(
        "write",
        Some(i64_type.into()),
        &[
            i32_type.const_int(2, false).into(),
            text.as_pointer_value().into(),
            i64_type.const_int(line.len() as u64, false).into(),
        ],
    )?;
    tr.call_libc("abort", None, &[])?;
    tr.builder.build_unreachable()?;
    tr.builder.position_at_end(holds);
    Ok(())
}
