//! Printing an op's custom form by interpreting its declarative [`Format`], with MLIR's
//! spacing rules around punctuation.

use super::format::{Anchor, Element, Format, TypeRef};
use super::printer::{OpAsmPrinter, attr_matches_text};
use crate::attributes::AttrKind;
use crate::ods::{AttrSyntax, OpDef, group_sizes};
use crate::operation::OpId;
use crate::types::Type;
use crate::value::Value;

/// Where spaces go: after `(`-like literals none, before `)`-like and `,` none.
struct Spacing {
    emit_space: bool,
    last_was_punctuation: bool,
}

pub fn print_with_format(p: &mut OpAsmPrinter, format: &Format, op: OpId) {
    let def: &'static OpDef = p
        .ctx()
        .op_info_of(op)
        .and_then(|i| i.def)
        .expect("formats belong to defined ops");
    let mut spacing = Spacing {
        emit_space: true,
        last_was_punctuation: false,
    };
    print_elements(p, def, format, &format.elements, op, &mut spacing);
}

fn operand_groups(p: &OpAsmPrinter, def: &OpDef, op: OpId) -> Vec<Vec<Value>> {
    let ctx = p.ctx();
    let operands = &ctx.op(op).operands;
    let sizes = group_sizes(ctx, op, def.operands, operands.len(), true);
    let mut start = 0;
    sizes
        .iter()
        .map(|&n| {
            let end = (start + n).min(operands.len());
            let group = operands[start.min(end)..end].to_vec();
            start = end;
            group
        })
        .collect()
}

fn result_groups(p: &OpAsmPrinter, def: &OpDef, op: OpId) -> Vec<Vec<Value>> {
    let ctx = p.ctx();
    let results = &ctx.op(op).results;
    let sizes = group_sizes(ctx, op, def.results, results.len(), false);
    let mut start = 0;
    sizes
        .iter()
        .map(|&n| {
            let end = (start + n).min(results.len());
            let group = results[start.min(end)..end].to_vec();
            start = end;
            group
        })
        .collect()
}

fn types_of(p: &OpAsmPrinter, def: &OpDef, op: OpId, r: TypeRef) -> Vec<Type> {
    let ctx = p.ctx();
    let values = match r {
        TypeRef::Operand(i) => operand_groups(p, def, op)[i].clone(),
        TypeRef::Result(i) => result_groups(p, def, op)[i].clone(),
        TypeRef::Operands => ctx.op(op).operands.to_vec(),
        TypeRef::Results => ctx.op(op).results.to_vec(),
    };
    values.iter().map(|&v| ctx.value_type(v)).collect()
}

fn anchor_present(p: &OpAsmPrinter, def: &OpDef, op: OpId, anchor: Anchor) -> bool {
    let ctx = p.ctx();
    match anchor {
        Anchor::Operand(i) => !operand_groups(p, def, op)[i].is_empty(),
        Anchor::Region(i) => ctx
            .op(op)
            .regions
            .get(i)
            .is_some_and(|&r| !ctx.region(r).blocks.is_empty()),
        Anchor::Results => !ctx.op(op).results.is_empty(),
        Anchor::Attr(i) => {
            let attr_def = &def.attributes[i];
            match ctx.op_inherent_or_attr(op, attr_def.name) {
                None => false,
                Some(value) => !attr_def
                    .default
                    .is_some_and(|text| attr_matches_text(ctx, value, text)),
            }
        }
    }
}

fn print_elements(
    p: &mut OpAsmPrinter,
    def: &OpDef,
    format: &Format,
    elements: &[Element],
    op: OpId,
    spacing: &mut Spacing,
) {
    for element in elements {
        match element {
            Element::Literal(l) => print_literal(p, l, spacing),
            Element::Optional {
                then,
                otherwise,
                anchor,
            } => {
                let chosen = if anchor_present(p, def, op, *anchor) {
                    then
                } else {
                    otherwise
                };
                print_elements(p, def, format, chosen, op, spacing);
            }
            Element::AttrDict { keyword } => {
                p.print_optional_attr_dict(op, &format.named_attrs, *keyword);
                spacing.emit_space = true;
                spacing.last_was_punctuation = false;
            }
            other => {
                if spacing.emit_space {
                    p.print_str(" ");
                }
                print_value_element(p, def, other, op);
                spacing.emit_space = true;
                spacing.last_was_punctuation = false;
            }
        }
    }
}

fn print_literal(p: &mut OpAsmPrinter, literal: &str, spacing: &mut Spacing) {
    if literal.is_empty() {
        spacing.emit_space = false;
        spacing.last_was_punctuation = true;
        return;
    }
    if literal == " " {
        p.print_str(" ");
        spacing.emit_space = false;
        return;
    }
    let first = literal.chars().next().unwrap_or(' ');
    let space_before = if literal.len() != 1 && literal != "->" {
        true
    } else if spacing.last_was_punctuation {
        !">)}],".contains(first)
    } else {
        !"<>(){}[],".contains(first)
    };
    if spacing.emit_space && space_before {
        p.print_str(" ");
    }
    p.print_str(literal);
    spacing.emit_space = literal.len() != 1 || !"<({[".contains(first);
    spacing.last_was_punctuation = first != '_' && !first.is_ascii_alphabetic();
}

fn print_value_element(p: &mut OpAsmPrinter, def: &OpDef, element: &Element, op: OpId) {
    let ctx = p.ctx();
    match element {
        Element::Operand(i) => {
            let group = operand_groups(p, def, op)[*i].clone();
            p.print_values(&group);
        }
        Element::Operands => {
            let all = ctx.op(op).operands.to_vec();
            p.print_values(&all);
        }
        Element::Attr(i) => {
            let attr_def = &def.attributes[*i];
            let Some(value) = ctx.op_inherent_or_attr(op, attr_def.name) else {
                return;
            };
            match (attr_def.syntax, ctx.attr_kind(value)) {
                (AttrSyntax::SymbolName, AttrKind::String { value: bytes, .. }) => {
                    p.print_symbol_name(&String::from_utf8_lossy(bytes))
                }
                (AttrSyntax::Enum(words), AttrKind::Integer { value: v, .. })
                    if (*v as usize) < words.len() && *v >= 0 =>
                {
                    p.print_str(words[*v as usize])
                }
                (AttrSyntax::BitEnum(flags), AttrKind::Opaque { body, .. }) => {
                    let body = flags.canonical_body(body).unwrap_or_else(|| body.clone());
                    let mnemonic = flags.attr.split_once('.').map_or(flags.attr, |(_, m)| m);
                    p.print_str(body.strip_prefix(mnemonic).unwrap_or(&body))
                }
                (AttrSyntax::BitEnum(_) | AttrSyntax::Stripped(_), AttrKind::Dialect(value)) => {
                    p.print_str(&value.body())
                }
                (AttrSyntax::Stripped(name), AttrKind::Opaque { body, .. }) => {
                    let mnemonic = name.split_once('.').map_or(name, |(_, m)| m);
                    p.print_str(body.strip_prefix(mnemonic).unwrap_or(body))
                }
                _ => p.print_attr(value),
            }
        }
        Element::Region(i) => {
            if let Some(&r) = ctx.op(op).regions.get(*i) {
                p.print_region(r, true, true);
            }
        }
        Element::Regions => {
            let regions = ctx.op(op).regions.to_vec();
            for (i, r) in regions.into_iter().enumerate() {
                if i > 0 {
                    p.print_str(", ");
                }
                p.print_region(r, true, true);
            }
        }
        Element::Type(r) => {
            let types = types_of(p, def, op, *r);
            p.print_types(&types);
        }
        Element::FunctionalType(a, b) => {
            let inputs = types_of(p, def, op, *a);
            let results = types_of(p, def, op, *b);
            p.print_functional_type(&inputs, &results);
        }
        Element::Literal(_) | Element::AttrDict { .. } | Element::Optional { .. } => {}
    }
}
