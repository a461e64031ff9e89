//! Ops that only state facts about buffers for optimizers, returning their operands:
//! `memref.assume_alignment` (the buffer is aligned) and `memref.distinct_objects` (the
//! buffers never alias), with MLIR 22's syntax, verifiers and folds.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::AttrKind;
use tb_ir::ods::AttrConstraint;
use tb_ir::parser::PResult;
use tb_ir::registry::{FoldResult, InferInput};
use tb_ir::{Attr, Context, Diagnostic, OpId, Signedness, Type, TypeKind};

use super::verify::op_error;

const ALIGNMENT: &str = "alignment";

fn alignment(ctx: &Context, op: OpId) -> Option<i128> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, ALIGNMENT)?) {
        AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// MLIR's `ConfinedAttr<I32Attr, [IntPositive]>`.
pub(crate) const POSITIVE_I32: AttrConstraint = AttrConstraint {
    description: "32-bit signless integer attribute whose value is positive",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { value, ty }
            if *value > 0 && matches!(c.type_kind(*ty),
                TypeKind::Integer { width: 32, signedness: Signedness::Signless }))
    },
};

/// `%m, 16 attr-dict : memref<...>`
pub(crate) fn parse_assume_alignment(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let memref = p.parse_operand()?;
    p.parse_literal(",")?;
    let at = p.offset();
    let value = p.parse_integer("alignment")?;
    if i32::try_from(value).is_err() {
        return p.error_at(at, "integer constant out of range for attribute");
    }
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let attr = p.ctx().integer_attr(value, i32_ty);
    state.add_attr(ALIGNMENT, attr);
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    state.operands = vec![p.resolve_operand(&memref, ty)?];
    state.result_types = vec![ty];
    Ok(())
}

pub(crate) fn print_assume_alignment(p: &mut OpAsmPrinter, op: OpId) {
    let memref = p.ctx().op(op).operands[0];
    p.print_str(" ");
    p.print_value(memref);
    let value = alignment(p.ctx(), op).unwrap_or(0);
    p.print_str(&format!(", {value}"));
    p.print_optional_attr_dict(op, &[ALIGNMENT], false);
    p.print_str(" : ");
    let ty = p.ctx().value_type(memref);
    p.print_type(ty);
}

pub(crate) fn verify_assume_alignment(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    match alignment(ctx, op) {
        Some(a) if !(a as u128).is_power_of_two() || a > u32::MAX as i128 => {
            op_error(ctx, op, "alignment must be power of 2".to_string())
        }
        _ => Ok(()),
    }
}

/// An assumption of the alignment its operand already assumes is that operand.
pub(crate) fn fold_assume_alignment(
    ctx: &Context,
    op: OpId,
    _: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let memref = ctx.op(op).operands[0];
    let inner = ctx
        .defining_op(memref)
        .filter(|&i| ctx.op_name(i) == super::ASSUME_ALIGNMENT)?;
    (alignment(ctx, inner)? == alignment(ctx, op)?).then(|| vec![FoldResult::Value(memref)])
}

pub(crate) fn verify_distinct_objects(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let operand_types: Vec<Type> = data.operands.iter().map(|&v| ctx.value_type(v)).collect();
    let result_types: Vec<Type> = data.results.iter().map(|&v| ctx.value_type(v)).collect();
    if operand_types != result_types {
        return op_error(
            ctx,
            op,
            "operand types and result types must match".to_string(),
        );
    }
    if operand_types.is_empty() {
        return op_error(ctx, op, "expected at least one operand".to_string());
    }
    Ok(())
}

/// Its results have its operands' types.
pub(crate) fn infer_distinct_objects(
    _: &mut Context,
    input: &InferInput,
) -> Result<Vec<Type>, String> {
    Ok(input.operand_types.to_vec())
}
