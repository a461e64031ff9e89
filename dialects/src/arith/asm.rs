//! The `arith` syntax MLIR's declarative formats express with directives ours lack:
//! `arith.select`'s condition type, written only when it is not a scalar `i1`
//! (`: vector<4xi1>, vector<4xf32>`), the `exact` unit keyword of divisions and right
//! shifts, and the `i32` rounding-mode keyword of `arith.truncf`.

use tb_ir::OpId;
use tb_ir::dialect_attr::TypedAttr;

use super::attrs::{FastMathFlags, RoundingMode};
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

/// `$lhs, $rhs (exact)? attr-dict : T` of `divsi`, `divui`, `shrsi`, `shrui`: the
/// `exact` keyword is the unit property `isExact`, which the declarative format has no
/// directive for.
pub(crate) fn parse_exact_binary(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let at = p.op_offset();
    let lhs = p.parse_operand()?;
    p.parse_literal(",")?;
    let rhs = p.parse_operand()?;
    if p.parse_optional_literal("exact") {
        let unit = p.ctx().unit_attr();
        state.add_attr("isExact", unit);
    }
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    state.operands = p.resolve_operands(&[lhs, rhs], &[ty, ty], at)?;
    state.result_types = vec![ty];
    Ok(())
}

pub(crate) fn print_exact_binary(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    let exact = ctx.op_inherent_or_attr(op, "isExact").is_some();
    p.print_str(" ");
    p.print_values(&data.operands);
    if exact {
        p.print_str(" exact");
    }
    p.print_optional_attr_dict(op, &["isExact"], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(data.results[0]));
}

/// `$in ($roundingmode^)? (fastmath $fastmath^)? attr-dict : T to U` of `truncf`: the
/// rounding mode is an `i32` enum written as its keyword (`downward`).
pub(crate) fn parse_truncf(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    parse_rounded_cast(p, state, false)
}

/// `$in, $scale ($roundingmode^)? (fastmath $fastmath^)? attr-dict : T, S to U` of
/// `scaling_truncf`.
pub(crate) fn parse_scaling_truncf(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    parse_rounded_cast(p, state, true)
}

fn parse_rounded_cast(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    scaled: bool,
) -> PResult<()> {
    let at = p.op_offset();
    let mut operands = vec![p.parse_operand()?];
    if scaled {
        p.parse_literal(",")?;
        operands.push(p.parse_operand()?);
    }
    if let Some(mode) = RoundingMode::ALL
        .iter()
        .find(|m| p.parse_optional_literal(m.keyword()))
    {
        let i32_ty = p.ctx().integer_type(32, tb_ir::Signedness::Signless);
        let attr = p.ctx().integer_attr(*mode as i128, i32_ty);
        state.add_attr("roundingmode", attr);
    }
    if p.parse_optional_literal("fastmath") {
        let flags_at = p.offset();
        p.parse_literal("<")?;
        let mut words = vec![p.parse_keyword_ident("a fastmath flag")?];
        while p.parse_optional_literal(",") {
            words.push(p.parse_keyword_ident("a fastmath flag")?);
        }
        p.parse_literal(">")?;
        let flags = match FastMathFlags::parse(&format!("<{}>", words.join(","))) {
            Ok(flags) => flags,
            Err(message) => return p.error_at(flags_at, message),
        };
        let attr = p.ctx().typed_attr_of(flags);
        state.add_attr("fastmath", attr);
    }
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let mut types = vec![p.parse_type()?];
    if scaled {
        p.parse_literal(",")?;
        types.push(p.parse_type()?);
    }
    p.parse_literal("to")?;
    let to = p.parse_type()?;
    state.operands = p.resolve_operands(&operands, &types, at)?;
    state.result_types = vec![to];
    Ok(())
}

/// Prints `truncf` and `scaling_truncf` (whose scale is the second operand).
pub(crate) fn print_truncf(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" ");
    p.print_values(&data.operands);
    if let Some(mode) = RoundingMode::of(ctx, op) {
        p.print_str(" ");
        p.print_str(mode.keyword());
    }
    if let Some(flags) = ctx
        .op_inherent_or_attr(op, "fastmath")
        .and_then(|a| ctx.typed_attr::<FastMathFlags>(a))
    {
        let mut body = String::new();
        flags.print(&mut body);
        p.print_str(" fastmath");
        p.print_str(&body);
    }
    p.print_optional_attr_dict(op, &["roundingmode", "fastmath"], false);
    p.print_str(" : ");
    let operand_types: Vec<_> = data.operands.iter().map(|&v| ctx.value_type(v)).collect();
    p.print_types(&operand_types);
    p.print_str(" to ");
    p.print_type(ctx.value_type(data.results[0]));
}
