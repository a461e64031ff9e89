//! Verifiers of the `func` ops.

use tb_ir::attributes::AttrKind;
use tb_ir::printer::type_to_string;
use tb_ir::symbol_table::{lookup_symbol, symbol_name};
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

use super::{CALL, CONSTANT, FUNC, RETURN};

fn error(ctx: &Context, op: OpId, name: &str, message: String) -> Result<(), Diagnostic> {
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{name}' op {message}"),
    ))
}

/// The `(inputs, results)` of a `func.func`'s `function_type`.
pub fn signature(ctx: &Context, func: OpId) -> Option<(Vec<Type>, Vec<Type>)> {
    let attr = ctx.op_inherent_or_attr(func, "function_type")?;
    let AttrKind::Type(ty) = ctx.attr_kind(attr) else {
        return None;
    };
    match ctx.type_kind(*ty) {
        TypeKind::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

pub(crate) fn func(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    if !data.operands.is_empty() || !data.results.is_empty() || data.regions.len() != 1 {
        return error(
            ctx,
            op,
            FUNC,
            "requires zero operands and results and one region".into(),
        );
    }
    if symbol_name(ctx, op).is_none() {
        return error(ctx, op, FUNC, "requires string attribute 'sym_name'".into());
    }
    let Some((inputs, results)) = signature(ctx, op) else {
        return error(
            ctx,
            op,
            FUNC,
            "requires attribute 'function_type' holding a function type".into(),
        );
    };
    // A symbol lives in a symbol table (an unregistered parent might be one).
    if ctx
        .parent_op(op)
        .is_some_and(|p| ctx.op_traits(p).is_some_and(|t| !t.symbol_table))
    {
        return error(
            ctx,
            op,
            FUNC,
            "symbol's parent must have the SymbolTable trait".into(),
        );
    }
    verify_arg_attrs(ctx, op, "arg_attrs", "argument", inputs.len())?;
    verify_arg_attrs(ctx, op, "res_attrs", "result", results.len())?;
    let Some(entry) = ctx.entry_block(data.regions[0]) else {
        return Ok(());
    }; // a declaration
    let args = &ctx.block(entry).args;
    if args.len() != inputs.len() {
        return error(
            ctx,
            op,
            FUNC,
            format!(
                "entry block must have {} arguments to match function signature",
                inputs.len()
            ),
        );
    }
    for (i, (&arg, &want)) in args.iter().zip(&inputs).enumerate() {
        let got = ctx.value_type(arg);
        if got != want {
            return error(
                ctx,
                op,
                FUNC,
                format!(
                    "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{}')",
                    type_to_string(ctx, got),
                    type_to_string(ctx, want)
                ),
            );
        }
    }
    Ok(())
}

/// `arg_attrs`/`res_attrs`: one dictionary per argument (result), holding only dialect
/// attributes (names with a dialect prefix), as MLIR's function interface requires.
fn verify_arg_attrs(
    ctx: &Context,
    op: OpId,
    name: &str,
    what: &str,
    expected: usize,
) -> Result<(), Diagnostic> {
    let Some(attr) = ctx.op_inherent_or_attr(op, name) else {
        return Ok(());
    };
    let AttrKind::Array(dicts) = ctx.attr_kind(attr) else {
        return Ok(());
    };
    if dicts.len() != expected {
        return error(
            ctx,
            op,
            FUNC,
            format!(
                "expects {what} attribute array to have the same number of elements as the number of function {what}s, got {}, but expected {expected}",
                dicts.len()
            ),
        );
    }
    for &dict in dicts {
        if ctx
            .dictionary_entries(dict)
            .iter()
            .any(|(k, _)| !k.contains('.'))
        {
            return error(
                ctx,
                op,
                FUNC,
                format!("{what}s may only have dialect attributes"),
            );
        }
    }
    Ok(())
}

pub(crate) fn return_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let parent = ctx.parent_op(op).filter(|&p| ctx.op_name(p) == FUNC);
    let Some(parent) = parent else {
        return error(ctx, op, RETURN, format!("expects parent op '{FUNC}'"));
    };
    let Some((_, results)) = signature(ctx, parent) else {
        return Ok(());
    };
    let operands = &ctx.op(op).operands;
    let name = symbol_name(ctx, parent).unwrap_or("");
    if operands.len() != results.len() {
        return error(
            ctx,
            op,
            RETURN,
            format!(
                "has {} operands, but enclosing function (@{name}) returns {}",
                operands.len(),
                results.len()
            ),
        );
    }
    for (i, (&v, &want)) in operands.iter().zip(&results).enumerate() {
        let got = ctx.value_type(v);
        if got != want {
            return error(
                ctx,
                op,
                RETURN,
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{name}",
                    type_to_string(ctx, got),
                    type_to_string(ctx, want)
                ),
            );
        }
    }
    Ok(())
}

pub(crate) fn call(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let callee = ctx.op_inherent_or_attr(op, "callee");
    let Some(AttrKind::SymbolRef { root, nested }) = callee.map(|c| ctx.attr_kind(c)) else {
        return error(
            ctx,
            op,
            CALL,
            "requires attribute 'callee' holding a flat symbol reference".into(),
        );
    };
    if !nested.is_empty() {
        return error(
            ctx,
            op,
            CALL,
            "requires a flat symbol reference as 'callee'".into(),
        );
    }
    let target = lookup_symbol(ctx, op, root).filter(|&f| ctx.op_name(f) == FUNC);
    let Some(target) = target else {
        return error(
            ctx,
            op,
            CALL,
            format!("'{root}' does not reference a valid function"),
        );
    };
    let Some((inputs, results)) = signature(ctx, target) else {
        return Ok(());
    };
    let data = ctx.op(op);
    if data.operands.len() != inputs.len() {
        return error(
            ctx,
            op,
            CALL,
            "incorrect number of operands for callee".into(),
        );
    }
    for (i, (&v, &want)) in data.operands.iter().zip(&inputs).enumerate() {
        if ctx.value_type(v) != want {
            return error(
                ctx,
                op,
                CALL,
                format!(
                    "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                    type_to_string(ctx, want),
                    type_to_string(ctx, ctx.value_type(v))
                ),
            );
        }
    }
    if data.results.len() != results.len() {
        return error(
            ctx,
            op,
            CALL,
            "incorrect number of results for callee".into(),
        );
    }
    for (i, (&v, &want)) in data.results.iter().zip(&results).enumerate() {
        if ctx.value_type(v) != want {
            // MLIR lists both result type lists, aligned, as notes.
            let list = |types: &mut dyn Iterator<Item = Type>| {
                types
                    .map(|t| format!("'{}'", type_to_string(ctx, t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let actual = list(&mut data.results.iter().map(|&r| ctx.value_type(r)));
            let expected = list(&mut results.iter().copied());
            let loc = data.loc;
            return Err(Diagnostic::error(
                loc,
                format!("'{CALL}' op result type mismatch at index {i}"),
            )
            .with_note(loc, format!("      op result types: {actual}"))
            .with_note(loc, format!("function result types: {expected}")));
        }
    }
    Ok(())
}

/// `func.constant`: its symbol names a `func.func` (the nearest one in scope) whose type is
/// the result's type.
pub(crate) fn constant(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let value = ctx.op_inherent_or_attr(op, "value");
    let Some(AttrKind::SymbolRef { root, .. }) = value.map(|v| ctx.attr_kind(v)) else {
        return Ok(()); // the attribute's constraint reports it
    };
    let target = lookup_symbol(ctx, op, root).filter(|&f| ctx.op_name(f) == FUNC);
    let Some(target) = target else {
        return error(
            ctx,
            op,
            CONSTANT,
            format!("reference to undefined function '{root}'"),
        );
    };
    let function_type = ctx
        .op_inherent_or_attr(target, "function_type")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Type(ty) => Some(*ty),
            _ => None,
        });
    let result = ctx.op(op).results.first().map(|&r| ctx.value_type(r));
    if function_type != result {
        return error(
            ctx,
            op,
            CONSTANT,
            "reference to function with mismatched type".into(),
        );
    }
    Ok(())
}
