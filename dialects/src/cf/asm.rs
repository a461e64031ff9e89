//! Custom syntax of the `cf` branches, as MLIR 22 prints them:
//!
//! ```mlir
//! cf.br ^bb1(%a, %b : i32, f32)
//! cf.cond_br %c weights([3, 5]), ^bb1(%a : i32), ^bb2
//! cf.switch %x : i32, [
//!   default: ^bb1(%a : i32),
//!   42: ^bb2
//! ]
//! ```

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::{AttrKind, DenseArrayData, DenseData, DenseElement};
use tb_ir::parser::PResult;
use tb_ir::{Attr, BlockId, OpId, Signedness, Type, Value};

use super::{branch_weights, case_values, successor_operands};

fn i32_array(p: &mut OpAsmParser, values: &[i128]) -> Attr {
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    p.ctx().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(values.to_vec()),
    })
}

/// `^bb(%a, %b : T, U)` or `^bb`.
fn parse_destination(p: &mut OpAsmParser) -> PResult<(BlockId, Vec<Value>)> {
    let block = p.parse_successor()?;
    if !p.parse_optional_literal("(") {
        return Ok((block, Vec::new()));
    }
    let at = p.offset();
    let operands = p.parse_operand_list()?;
    p.parse_literal(":")?;
    let types = p.parse_type_list()?;
    p.parse_literal(")")?;
    let values = p.resolve_operands(&operands, &types, at)?;
    Ok((block, values))
}

fn print_destination(p: &mut OpAsmPrinter, block: BlockId, operands: &[Value]) {
    p.print_successor(block);
    if operands.is_empty() {
        return;
    }
    p.print_str("(");
    p.print_values(operands);
    p.print_str(" : ");
    let types: Vec<Type> = operands.iter().map(|&v| p.ctx().value_type(v)).collect();
    p.print_types(&types);
    p.print_str(")");
}

/// Successor `index` of `op` with the operands it passes (none if malformed, which the
/// verifier reports).
fn destination(p: &OpAsmPrinter, op: OpId, index: usize) -> (BlockId, Vec<Value>) {
    let ctx = p.ctx();
    let block = ctx.op(op).successors[index];
    (
        block,
        successor_operands(ctx, op, index).unwrap_or_default(),
    )
}

/// `weights([a, b, ...])` if present.
fn parse_optional_weights(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    if !p.parse_optional_literal("weights") {
        return Ok(());
    }
    p.parse_literal("(")?;
    p.parse_literal("[")?;
    let mut weights = Vec::new();
    if !p.parse_optional_literal("]") {
        loop {
            weights.push(p.parse_integer("branch weight")?);
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal("]")?;
    }
    p.parse_literal(")")?;
    let attr = i32_array(p, &weights);
    state.add_attr("branch_weights", attr);
    Ok(())
}

pub(crate) fn parse_br(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (block, operands) = parse_destination(p)?;
    state.successors.push(block);
    state.operands.extend(operands);
    let attrs = p.parse_optional_attr_dict()?;
    state.attributes.extend(attrs);
    Ok(())
}

pub(crate) fn print_br(p: &mut OpAsmPrinter, op: OpId) {
    p.print_str(" ");
    let (block, operands) = destination(p, op, 0);
    print_destination(p, block, &operands);
    p.print_optional_attr_dict(op, &[], false);
}

pub(crate) fn parse_cond_br(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let condition = p.parse_operand()?;
    let i1 = p.ctx().integer_type(1, Signedness::Signless);
    let condition = p.resolve_operand(&condition, i1)?;
    parse_optional_weights(p, state)?;
    p.parse_literal(",")?;
    let (on_true, true_operands) = parse_destination(p)?;
    p.parse_literal(",")?;
    let (on_false, false_operands) = parse_destination(p)?;
    let sizes = [1, true_operands.len() as i128, false_operands.len() as i128];
    let sizes = i32_array(p, &sizes);
    state.add_attr("operandSegmentSizes", sizes);
    state.operands.push(condition);
    state.operands.extend(true_operands);
    state.operands.extend(false_operands);
    state.successors.extend([on_true, on_false]);
    let attrs = p.parse_optional_attr_dict()?;
    state.attributes.extend(attrs);
    Ok(())
}

pub(crate) fn print_cond_br(p: &mut OpAsmPrinter, op: OpId) {
    let condition = p.ctx().op(op).operands[0];
    p.print_str(" ");
    p.print_value(condition);
    if let Some(weights) = branch_weights(p.ctx(), op) {
        let list: Vec<String> = weights.iter().map(usize::to_string).collect();
        p.print_str(&format!(" weights([{}])", list.join(", ")));
    }
    for index in 0..2 {
        p.print_str(", ");
        let (block, operands) = destination(p, op, index);
        print_destination(p, block, &operands);
    }
    p.print_optional_attr_dict(op, &["branch_weights"], false);
}

pub(crate) fn parse_switch(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let flag = p.parse_operand()?;
    p.parse_literal(":")?;
    let flag_type = p.parse_type()?;
    let flag = p.resolve_operand(&flag, flag_type)?;
    p.parse_literal(",")?;
    p.parse_literal("[")?;
    p.parse_literal("default")?;
    p.parse_literal(":")?;
    let (default, default_operands) = parse_destination(p)?;
    let mut values = Vec::new();
    let mut case_operands = Vec::new();
    let mut segments = Vec::new();
    let mut blocks = vec![default];
    while p.parse_optional_literal(",") {
        let negative = p.parse_optional_literal("-");
        let value = p.parse_integer("case value")?;
        values.push(if negative { -value } else { value });
        p.parse_literal(":")?;
        let (block, operands) = parse_destination(p)?;
        blocks.push(block);
        segments.push(operands.len() as i128);
        case_operands.extend(operands);
    }
    p.parse_literal("]")?;
    let sizes = [
        1,
        default_operands.len() as i128,
        case_operands.len() as i128,
    ];
    let sizes = i32_array(p, &sizes);
    state.add_attr("operandSegmentSizes", sizes);
    let segments = i32_array(p, &segments);
    state.add_attr("case_operand_segments", segments);
    if !values.is_empty() {
        let vector = p.ctx().intern_type(tb_ir::TypeKind::Vector {
            shape: vec![values.len() as i64],
            scalable: vec![false],
            element: flag_type,
        });
        let splat = values.iter().all(|&v| v == values[0]);
        let elements = if splat { &values[..1] } else { &values[..] };
        let attr = p.ctx().intern_attr(AttrKind::DenseElements {
            ty: vector,
            data: DenseData {
                splat,
                elements: elements.iter().map(|&v| DenseElement::Int(v)).collect(),
            },
        });
        state.add_attr("case_values", attr);
    }
    state.operands.push(flag);
    state.operands.extend(default_operands);
    state.operands.extend(case_operands);
    state.successors.extend(blocks);
    let attrs = p.parse_optional_attr_dict()?;
    state.attributes.extend(attrs);
    Ok(())
}

pub(crate) fn print_switch(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let flag = ctx.op(op).operands[0];
    let flag_type = ctx.value_type(flag);
    p.print_str(" ");
    p.print_value(flag);
    p.print_str(" : ");
    p.print_type(flag_type);
    p.print_str(", [");
    p.print_newline(2);
    p.print_str("default: ");
    let (block, operands) = destination(p, op, 0);
    print_destination(p, block, &operands);
    let values = case_values(ctx, op).unwrap_or_default();
    let cases = ctx.op(op).successors.len() - 1;
    for index in 0..cases {
        p.print_str(",");
        p.print_newline(2);
        let value = values.get(index).copied().unwrap_or_default();
        p.print_str(&format!("{value}: "));
        let (block, operands) = destination(p, op, index + 1);
        print_destination(p, block, &operands);
    }
    if cases > 0 {
        p.print_newline(0);
    }
    p.print_str("]");
    p.print_optional_attr_dict(op, &["case_values", "case_operand_segments"], false);
}
