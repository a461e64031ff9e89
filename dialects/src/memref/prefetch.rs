//! `memref.prefetch`: a hint to fetch one element's cache line, with MLIR 22's syntax
//! (`%m[%i], read, locality<3>, data : memref<...>`), attributes and verifier.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::AttrKind;
use tb_ir::ods::AttrConstraint;
use tb_ir::parser::PResult;
use tb_ir::{Context, Diagnostic, OpId, Signedness, TypeKind};

use super::verify::op_error;

/// MLIR's `ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<3>]>`.
pub(crate) const LOCALITY: AttrConstraint = AttrConstraint {
    description: "32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { value, ty }
            if (0..=3).contains(value) && matches!(c.type_kind(*ty),
                TypeKind::Integer { width: 32, signedness: Signedness::Signless }))
    },
};

pub(crate) fn parse(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let memref = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    p.parse_literal(",")?;
    let rw = p.parse_keyword_ident("keyword")?;
    p.parse_literal(",")?;
    p.parse_literal("locality")?;
    p.parse_literal("<")?;
    let at = p.offset();
    let hint = p.parse_integer("integer")?;
    if i32::try_from(hint).is_err() {
        return p.error_at(at, "integer constant out of range for attribute");
    }
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let hint = p.ctx().integer_attr(hint, i32_ty);
    state.add_attr("localityHint", hint);
    p.parse_literal(">")?;
    p.parse_literal(",")?;
    let cache = p.parse_keyword_ident("keyword")?;
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    let index = p.ctx().index_type();
    let mut operands = vec![p.resolve_operand(&memref, ty)?];
    for i in &indices {
        operands.push(p.resolve_operand(i, index)?);
    }
    state.operands = operands;
    if rw != "read" && rw != "write" {
        return p.error_at(p.op_offset(), "rw specifier has to be 'read' or 'write'");
    }
    let i1 = p.ctx().integer_type(1, Signedness::Signless);
    let is_write = p.ctx().integer_attr((rw == "write") as i128, i1);
    state.add_attr("isWrite", is_write);
    if cache != "data" && cache != "instr" {
        return p.error_at(p.op_offset(), "cache type has to be 'data' or 'instr'");
    }
    let is_data = p.ctx().integer_attr((cache == "data") as i128, i1);
    state.add_attr("isDataCache", is_data);
    Ok(())
}

fn flag(ctx: &Context, op: OpId, name: &str) -> bool {
    ctx.op_inherent_or_attr(op, name)
        .is_some_and(|a| matches!(ctx.attr_kind(a), AttrKind::Integer { value, .. } if *value != 0))
}

pub(crate) fn print(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str("[");
    p.print_values(&operands[1..]);
    p.print_str("]");
    let rw = if flag(p.ctx(), op, "isWrite") {
        "write"
    } else {
        "read"
    };
    let hint = match p
        .ctx()
        .op_inherent_or_attr(op, "localityHint")
        .map(|a| p.ctx().attr_kind(a))
    {
        Some(AttrKind::Integer { value, .. }) => *value,
        _ => 0,
    };
    let cache = if flag(p.ctx(), op, "isDataCache") {
        "data"
    } else {
        "instr"
    };
    p.print_str(&format!(", {rw}, locality<{hint}>, {cache}"));
    p.print_optional_attr_dict(op, &["localityHint", "isWrite", "isDataCache"], false);
    p.print_str(" : ");
    let ty = p.ctx().value_type(operands[0]);
    p.print_type(ty);
}

pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let operands = &ctx.op(op).operands;
    if let TypeKind::MemRef { shape, .. } = ctx.type_kind(ctx.value_type(operands[0]))
        && operands.len() != 1 + shape.len()
    {
        return op_error(ctx, op, "too few indices".to_string());
    }
    Ok(())
}
