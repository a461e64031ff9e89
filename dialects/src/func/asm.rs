//! `func.func`'s custom syntax, MLIR's:
//! `func.func private? @name(%arg0: T {attrs}, ...) -> (R {attrs}, ...) attributes {...} { body }`,
//! where a declaration lists bare types and has no body.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, RegionArgument};
use tb_ir::attributes::AttrKind;
use tb_ir::lexer::TokenKind;
use tb_ir::parser::PResult;
use tb_ir::{Attr, OpId, Type};

const ELIDED: &[&str] = &[
    "sym_name",
    "function_type",
    "sym_visibility",
    "arg_attrs",
    "res_attrs",
];

/// A dictionary attribute for argument or result attributes (empty when absent).
fn parse_optional_arg_dict(p: &mut OpAsmParser) -> PResult<Attr> {
    let entries = p.parse_optional_attr_dict()?;
    Ok(p.ctx().dictionary_attr(entries))
}

/// Stores per-argument dictionaries unless all are empty, as MLIR does.
fn store_arg_dicts(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    name: &str,
    dicts: Vec<Attr>,
) {
    let any = dicts
        .iter()
        .any(|&d| !p.ctx().dictionary_entries(d).is_empty());
    if any {
        let array = p.ctx().intern_attr(AttrKind::Array(dicts));
        state.add_attr(name, array);
    }
}

pub(crate) fn parse_func(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for visibility in ["private", "public", "nested"] {
        if p.parse_optional_literal(visibility) {
            let attr = p.ctx().string_attr(visibility);
            state.add_attr("sym_visibility", attr);
            break;
        }
    }
    let name = p.parse_symbol_name()?;
    let name_attr = p.ctx().string_attr(&name);
    state.add_attr("sym_name", name_attr);

    p.parse_literal("(")?;
    let mut arguments: Vec<RegionArgument> = Vec::new();
    let mut inputs: Vec<Type> = Vec::new();
    let mut arg_dicts = Vec::new();
    let mut named: Option<bool> = None;
    if !p.parse_optional_literal(")") {
        loop {
            let is_named = p.peek_operand();
            match named {
                // Reported at the offending token, as MLIR does.
                Some(n) if n != is_named => {
                    let at = p.offset();
                    return p.error_at(
                        at,
                        if n {
                            "expected SSA identifier"
                        } else {
                            "expected type instead of SSA identifier"
                        },
                    );
                }
                _ => named = Some(is_named),
            }
            if is_named {
                let (arg, dict) = p.parse_region_argument_with_attrs()?;
                inputs.push(arg.ty);
                arg_dicts.push(dict);
                arguments.push(arg);
            } else {
                inputs.push(p.parse_type()?);
                arg_dicts.push(parse_optional_arg_dict(p)?);
            }
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal(")")?;
    }

    let mut results = Vec::new();
    let mut res_dicts = Vec::new();
    if p.parse_optional_literal("->") {
        if p.parse_optional_literal("(") {
            if !p.parse_optional_literal(")") {
                loop {
                    results.push(p.parse_type()?);
                    res_dicts.push(parse_optional_arg_dict(p)?);
                    if !p.parse_optional_literal(",") {
                        break;
                    }
                }
                p.parse_literal(")")?;
            }
        } else {
            results.push(p.parse_type()?);
            res_dicts.push(p.ctx().dictionary_attr(vec![]));
        }
    }
    let fn_ty = p.ctx().function_type(inputs, results);
    let fn_attr = p.ctx().type_attr(fn_ty);
    state.add_attr("function_type", fn_attr);
    store_arg_dicts(p, state, "arg_attrs", arg_dicts);
    store_arg_dicts(p, state, "res_attrs", res_dicts);

    let attrs_at = p.offset();
    let attrs = p.parse_optional_attr_dict_with_keyword()?;
    // The signature spells these; MLIR refuses them in the dictionary.
    for inferred in ["sym_visibility", "sym_name", "function_type"] {
        if attrs.iter().any(|(k, _)| k == inferred) {
            return p.error_at(
                attrs_at,
                format!("'{inferred}' is an inferred attribute and should not be specified in the explicit attribute dictionary"),
            );
        }
    }
    for (k, v) in attrs {
        state.add_attr(&k, v);
    }
    let region = p.new_region();
    if p.peek_is(TokenKind::LBrace) {
        // With bare argument types the body spells its entry block (`^bb0(%a: f32):`), whose
        // arguments the verifier checks against the signature, as MLIR accepts it.
        let at = p.offset();
        p.parse_region(region, arguments)?;
        // `{}` would print as a declaration, so MLIR does not read it as a body.
        if p.ctx().region(region).blocks.is_empty() {
            return p.error_at(at, "expected non-empty function body");
        }
    }
    state.regions.push(region);
    Ok(())
}

/// The dictionary at `index` of the array attribute `name`, if non-empty.
fn arg_dict(p: &OpAsmPrinter, op: OpId, name: &str, index: usize) -> Option<Attr> {
    let ctx = p.ctx();
    let array = ctx.op_inherent_or_attr(op, name)?;
    let AttrKind::Array(items) = ctx.attr_kind(array) else {
        return None;
    };
    let dict = *items.get(index)?;
    (!ctx.dictionary_entries(dict).is_empty()).then_some(dict)
}

pub(crate) fn print_func(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    p.print_str(" ");
    if let Some(v) = ctx
        .op_inherent_or_attr(op, "sym_visibility")
        .and_then(|a| ctx.attr_as_str(a))
    {
        p.print_str(v);
        p.print_str(" ");
    }
    let name = tb_ir::symbol_table::symbol_name(ctx, op).unwrap_or("");
    p.print_symbol_name(name);
    let (inputs, results) = super::signature(ctx, op).unwrap_or_default();
    let region = ctx.op(op).regions.first().copied();
    let entry = region.and_then(|r| ctx.entry_block(r));
    p.print_str("(");
    for (i, &ty) in inputs.iter().enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        let dict = arg_dict(p, op, "arg_attrs", i);
        match entry.and_then(|b| ctx.block(b).args.get(i).copied()) {
            Some(arg) => p.print_argument_declaration(arg, dict),
            None => {
                p.print_type(ty);
                if let Some(dict) = dict {
                    p.print_str(" ");
                    p.print_attr(dict);
                }
            }
        }
    }
    p.print_str(")");
    if !results.is_empty() {
        p.print_str(" -> ");
        let any_attrs = (0..results.len()).any(|i| arg_dict(p, op, "res_attrs", i).is_some());
        if !any_attrs {
            p.print_result_types(&results);
        } else {
            p.print_str("(");
            for (i, &ty) in results.iter().enumerate() {
                if i > 0 {
                    p.print_str(", ");
                }
                p.print_type(ty);
                if let Some(dict) = arg_dict(p, op, "res_attrs", i) {
                    p.print_str(" ");
                    p.print_attr(dict);
                }
            }
            p.print_str(")");
        }
    }
    p.print_optional_attr_dict(op, ELIDED, true);
    if let Some(r) = region
        && !ctx.region(r).blocks.is_empty()
    {
        p.print_str(" ");
        p.print_region(r, false, true);
    }
}
