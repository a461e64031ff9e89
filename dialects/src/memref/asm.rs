//! Custom syntax of the `memref` ops no declarative format can spell: `store` (whose
//! value type is the memref's element type), views with index lists, and `global`.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::AttrKind;
use tb_ir::ods::operand_group;
use tb_ir::parser::PResult;
use tb_ir::printer::type_to_string;
use tb_ir::{OpId, Type, TypeKind};

use super::index_list::{self, i64_array, segment_sizes, static_list};
use super::offsets::LISTS;

/// A memref type where one is required, with MLIR's error otherwise.
pub(super) fn parse_memref_type(p: &mut OpAsmParser) -> PResult<(Type, Type)> {
    let at = p.offset();
    let ty = p.parse_type()?;
    match p.ctx().type_kind(ty) {
        TypeKind::MemRef { element, .. } => Ok((ty, *element)),
        _ => {
            let text = type_to_string(p.ctx(), ty);
            p.error_at(
                at,
                format!(
                    "invalid kind of type specified: expected builtin.memref, but found '{text}'"
                ),
            )
        }
    }
}

pub(super) fn resolve_indices(
    p: &mut OpAsmParser,
    operands: &[UnresolvedOperand],
) -> PResult<Vec<tb_ir::Value>> {
    let index = p.ctx().index_type();
    operands
        .iter()
        .map(|o| p.resolve_operand(o, index))
        .collect()
}

pub(super) fn parse_attr_dict(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    Ok(())
}

/// `%v, %m[%i, %j] attr-dict : memref<...>`
pub(crate) fn parse_store(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let value = p.parse_operand()?;
    p.parse_literal(",")?;
    let memref = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let (ty, element) = parse_memref_type(p)?;
    state.operands = vec![
        p.resolve_operand(&value, element)?,
        p.resolve_operand(&memref, ty)?,
    ];
    state.operands.extend(resolve_indices(p, &indices)?);
    Ok(())
}

pub(crate) fn print_store(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str(", ");
    p.print_value(operands[1]);
    p.print_str("[");
    p.print_values(&operands[2..]);
    p.print_str("]");
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    let ty = p.ctx().value_type(operands[1]);
    p.print_type(ty);
}

/// The three index lists of a view; returns their operands and adds the static lists.
fn parse_lists(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    keywords: bool,
) -> PResult<[Vec<UnresolvedOperand>; 3]> {
    let mut groups: [Vec<UnresolvedOperand>; 3] = Default::default();
    for (i, (attr, plural, singular)) in LISTS.iter().enumerate() {
        if keywords {
            if i > 0 {
                p.parse_literal(",")?;
            }
            p.parse_literal(if i == 0 { singular } else { plural })?;
            p.parse_literal(":")?;
        }
        let (operands, statics) = index_list::parse(p)?;
        let array = i64_array(p.ctx(), &statics);
        state.add_attr(attr, array);
        groups[i] = operands;
    }
    Ok(groups)
}

/// Resolves a view's source and lists and records the operand segments.
fn resolve_view(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    source: UnresolvedOperand,
    source_ty: Type,
    groups: [Vec<UnresolvedOperand>; 3],
) -> PResult<()> {
    state.operands = vec![p.resolve_operand(&source, source_ty)?];
    let mut sizes = vec![1];
    for group in &groups {
        sizes.push(group.len());
        state.operands.extend(resolve_indices(p, group)?);
    }
    let segments = segment_sizes(p.ctx(), &sizes);
    state.add_attr("operandSegmentSizes", segments);
    Ok(())
}

fn print_lists(p: &mut OpAsmPrinter, op: OpId, keywords: bool) {
    for (i, (attr, plural, singular)) in LISTS.iter().enumerate() {
        if keywords {
            p.print_str(if i == 0 { " " } else { ", " });
            p.print_str(if i == 0 { singular } else { plural });
            p.print_str(": ");
        } else if i > 0 {
            p.print_str(" ");
        }
        let values = operand_group(p.ctx(), op, i + 1).to_vec();
        let statics = static_list(p.ctx(), op, attr).unwrap_or_default();
        index_list::print(p, &values, &statics);
    }
}

const VIEW_ATTRS: &[&str] = &["static_offsets", "static_sizes", "static_strides"];

/// `%src[offsets] [sizes] [strides] attr-dict : T to U`
pub(crate) fn parse_subview(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let source = p.parse_operand()?;
    let groups = parse_lists(p, state, false)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let source_ty = p.parse_type()?;
    p.parse_literal("to")?;
    let result_ty = p.parse_type()?;
    state.result_types = vec![result_ty];
    resolve_view(p, state, source, source_ty, groups)
}

pub(crate) fn print_subview(p: &mut OpAsmPrinter, op: OpId) {
    print_view_like(p, op, false);
}

fn print_view_like(p: &mut OpAsmPrinter, op: OpId, keywords: bool) {
    let data = p.ctx().op(op);
    let (source, result) = (data.operands[0], data.results[0]);
    p.print_str(" ");
    p.print_value(source);
    if keywords {
        p.print_str(" to");
    }
    print_lists(p, op, keywords);
    p.print_optional_attr_dict(op, VIEW_ATTRS, false);
    p.print_str(" : ");
    let (from, to) = (p.ctx().value_type(source), p.ctx().value_type(result));
    p.print_type(from);
    p.print_str(" to ");
    p.print_type(to);
}

/// `%src to offset: [o], sizes: [..], strides: [..] attr-dict : T to U`
pub(crate) fn parse_reinterpret_cast(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let source = p.parse_operand()?;
    p.parse_literal("to")?;
    let groups = parse_lists(p, state, true)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let source_ty = p.parse_type()?;
    p.parse_literal("to")?;
    let result_ty = p.parse_type()?;
    state.result_types = vec![result_ty];
    resolve_view(p, state, source, source_ty, groups)
}

pub(crate) fn print_reinterpret_cast(p: &mut OpAsmPrinter, op: OpId) {
    print_view_like(p, op, true);
}

/// `%src [[0, 1]] output_shape [2, %n] attr-dict : T into U`
pub(crate) fn parse_expand_shape(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let source = p.parse_operand()?;
    let reassociation = p.parse_attribute()?;
    state.add_attr("reassociation", reassociation);
    p.parse_literal("output_shape")?;
    let (sizes, statics) = index_list::parse(p)?;
    let array = i64_array(p.ctx(), &statics);
    state.add_attr("static_output_shape", array);
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let source_ty = p.parse_type()?;
    p.parse_literal("into")?;
    state.result_types = vec![p.parse_type()?];
    state.operands = vec![p.resolve_operand(&source, source_ty)?];
    state.operands.extend(resolve_indices(p, &sizes)?);
    Ok(())
}

pub(crate) fn print_expand_shape(p: &mut OpAsmPrinter, op: OpId) {
    let data = p.ctx().op(op);
    let (source, result) = (data.operands[0], data.results[0]);
    let sizes = data.operands[1..].to_vec();
    p.print_str(" ");
    p.print_value(source);
    if let Some(groups) = p.ctx().op_inherent_or_attr(op, "reassociation") {
        p.print_str(" ");
        p.print_attr(groups);
    }
    p.print_str(" output_shape ");
    let statics = static_list(p.ctx(), op, "static_output_shape").unwrap_or_default();
    index_list::print(p, &sizes, &statics);
    p.print_optional_attr_dict(op, &["reassociation", "static_output_shape"], false);
    p.print_str(" : ");
    let (from, to) = (p.ctx().value_type(source), p.ctx().value_type(result));
    p.print_type(from);
    p.print_str(" into ");
    p.print_type(to);
}

const GLOBAL_ATTRS: &[&str] = &[
    "sym_visibility",
    "constant",
    "sym_name",
    "type",
    "initial_value",
];

/// `"private"? constant? @name : memref<...> (= uninitialized | = dense<...>)? attr-dict`
pub(crate) fn parse_global(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    if p.peek_is(tb_ir::lexer::TokenKind::String) {
        let visibility = p.parse_string("visibility")?;
        let attr = p.ctx().string_attr(&visibility);
        state.add_attr("sym_visibility", attr);
    }
    if p.parse_optional_literal("constant") {
        let unit = p.ctx().unit_attr();
        state.add_attr("constant", unit);
    }
    let name = p.parse_symbol_name()?;
    let name = p.ctx().string_attr(&name);
    state.add_attr("sym_name", name);
    p.parse_literal(":")?;
    let at = p.offset();
    let ty = p.parse_type()?;
    let shape = match p.ctx().type_kind(ty) {
        TypeKind::MemRef { shape, element, .. } if !shape.contains(&tb_ir::types::DYNAMIC) => {
            Some((shape.clone(), *element))
        }
        _ => None,
    };
    let Some((shape, element)) = shape else {
        let text = type_to_string(p.ctx(), ty);
        return p.error_at(
            at,
            format!("type should be static shaped memref, but got '{text}'"),
        );
    };
    let type_attr = p.ctx().type_attr(ty);
    state.add_attr("type", type_attr);
    if p.parse_optional_literal("=") {
        let init = if p.parse_optional_literal("uninitialized") {
            p.ctx().unit_attr()
        } else {
            let at = p.offset();
            let tensor = p.ctx().intern_type(TypeKind::RankedTensor {
                shape,
                element,
                encoding: None,
            });
            let value = p.parse_attribute_of_type(tensor)?;
            let elements = matches!(
                p.ctx().attr_kind(value),
                AttrKind::DenseElements { .. }
                    | AttrKind::DenseResource { .. }
                    | AttrKind::DenseStrings { .. }
                    | AttrKind::Sparse { .. }
            );
            if !elements {
                return p.error_at(at, "initial value should be a unit or elements attribute");
            }
            value
        };
        state.add_attr("initial_value", init);
    }
    parse_attr_dict(p, state)
}

pub(crate) fn print_global(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let attr = |name: &str| ctx.op_inherent_or_attr(op, name);
    if let Some(visibility) = attr("sym_visibility") {
        p.print_str(" ");
        p.print_attr(visibility);
    }
    if attr("constant").is_some() {
        p.print_str(" constant");
    }
    if let Some(name) = attr("sym_name").and_then(|a| ctx.attr_as_str(a)) {
        p.print_str(" ");
        p.print_symbol_name(name);
    }
    p.print_str(" : ");
    if let Some(AttrKind::Type(ty)) = attr("type").map(|a| ctx.attr_kind(a)) {
        p.print_type(*ty);
    }
    if let Some(init) = attr("initial_value") {
        p.print_str(" = ");
        if matches!(ctx.attr_kind(init), AttrKind::Unit) {
            p.print_str("uninitialized");
        } else {
            p.print_attr_without_type(init);
        }
    }
    p.print_optional_attr_dict(op, GLOBAL_ATTRS, false);
}
