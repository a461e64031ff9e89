//! MLIR 22's syntax of `vector.from_elements` and `vector.extract`.

use tb_ir::OpId;
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::parser::PResult;

use super::{extract_position, vector_shape};

/// `%a, %b, ... attr-dict : vector<..>`: each element has the vector's element type.
pub(crate) fn parse_from_elements(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let at = p.offset();
    let elements = p.parse_operand_list()?;
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let ty = p.parse_colon_type()?;
    let Some((shape, element)) = vector_shape(p.ctx(), ty).map(|(s, e)| (s.to_vec(), e)) else {
        return p.error_at(at, "expected a vector result type");
    };
    let lanes: i64 = shape.iter().product();
    if elements.len() as i64 != lanes {
        return p.error_at(
            at,
            format!(
                "number of operands and types do not match: got {} operands and {lanes} types",
                elements.len()
            ),
        );
    }
    for e in &elements {
        let v = p.resolve_operand(e, element)?;
        state.operands.push(v);
    }
    state.result_types.push(ty);
    Ok(())
}

pub(crate) fn print_from_elements(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.clone();
    p.print_str(" ");
    p.print_values(&operands);
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    let ty = ctx.value_type(ctx.op(op).results[0]);
    p.print_type(ty);
}

/// `%v[1, 0] attr-dict : f32 from vector<2x2xf32>` (constant positions only).
pub(crate) fn parse_extract(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let source = p.parse_operand()?;
    p.parse_literal("[")?;
    let mut position = Vec::new();
    if !p.parse_optional_literal("]") {
        loop {
            if p.peek_operand() {
                return p.error(
                    "dynamic positions in 'vector.extract' are not supported by TensorBind yet",
                );
            }
            position.push(p.parse_integer("position")?);
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal("]")?;
    }
    let i64_ty = p.ctx().i64();
    let attr = p.ctx().intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(position.clone()),
    });
    state.add_attr("static_position", attr);
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let result = p.parse_colon_type()?;
    p.parse_literal("from")?;
    let source_ty = p.parse_type()?;
    let source = p.resolve_operand(&source, source_ty)?;
    state.operands.push(source);
    state.result_types.push(result);
    Ok(())
}

pub(crate) fn print_extract(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let source = ctx.op(op).operands[0];
    p.print_str(" ");
    p.print_value(source);
    let position = extract_position(ctx, op).unwrap_or_default();
    let words: Vec<String> = position.iter().map(i64::to_string).collect();
    p.print_str(&format!("[{}]", words.join(", ")));
    p.print_optional_attr_dict(op, &["static_position"], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(ctx.op(op).results[0]));
    p.print_str(" from ");
    p.print_type(ctx.value_type(source));
}
