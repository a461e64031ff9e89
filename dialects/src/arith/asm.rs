//! `arith.select`'s custom syntax: `%c, %a, %b : T`, with the condition's type first
//! (`: vector<4xi1>, vector<4xf32>`) when it is not a scalar `i1`.

use tb_ir::OpId;
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::ods::constraint::is_i1;
use tb_ir::parser::PResult;

pub(crate) fn parse_select(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let at = p.op_offset();
    let mut operands = Vec::new();
    for i in 0..3 {
        if i > 0 {
            p.parse_literal(",")?;
        }
        operands.push(p.parse_operand()?);
    }
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let first = p.parse_type()?;
    let (condition, value) = if p.parse_optional_literal(",") {
        (first, p.parse_type()?)
    } else {
        (p.ctx().i1(), first)
    };
    state.operands = p.resolve_operands(&operands, &[condition, value, value], at)?;
    state.result_types = vec![value];
    Ok(())
}

pub(crate) fn print_select(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" ");
    p.print_values(&data.operands);
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    let condition = ctx.value_type(data.operands[0]);
    if !is_i1(ctx, condition) {
        p.print_type(condition);
        p.print_str(", ");
    }
    p.print_type(ctx.value_type(data.results[0]));
}
