//! Function signatures on buffers: every ranked static tensor in a `func.func`'s type, its
//! entry block's arguments and the results of `func.call`s becomes a memref of the same
//! shape and element type with the identity layout, which is what the CPU backend's ABI
//! takes. These types change in place (through the conversion's rewriter, which can undo
//! it), so the ops converted later already see buffers.

use tb_dialects::func;
use tb_ir::rewrite::conversion::ConversionRewriter;
use tb_ir::{AttrKind, Context, OpId, Type, TypeKind};

/// The memref a tensor type becomes; other types stay as they are.
pub(super) fn buffer_type(ctx: &mut Context, ty: Type) -> Type {
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { shape, element, .. } => {
            let kind = TypeKind::MemRef {
                shape: shape.clone(),
                element: *element,
                layout: None,
                memory_space: None,
            };
            ctx.intern_type(kind)
        }
        _ => ty,
    }
}

/// Whether `ty` is a tensor type (ranked or not).
pub(super) fn is_tensor(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
    )
}

/// Whether `function`'s type or any value in its body is a tensor.
pub(super) fn involves_tensors(ctx: &Context, function: OpId) -> bool {
    let in_signature = func::signature(ctx, function)
        .is_some_and(|(inputs, results)| inputs.iter().chain(&results).any(|&t| is_tensor(ctx, t)));
    let mut in_body = false;
    ctx.walk_nested(function, &mut |op| {
        let data = ctx.op(op);
        in_body |= data
            .operands
            .iter()
            .chain(&data.results)
            .any(|&v| is_tensor(ctx, ctx.value_type(v)));
    });
    in_signature || in_body
}

/// Rewrites the type of `function` and of its entry block's arguments to buffers.
pub(super) fn bufferize_function_type(rewriter: &mut ConversionRewriter, function: OpId) {
    let Some((inputs, results)) = func::signature(rewriter.ctx(), function) else {
        return;
    };
    let inputs: Vec<Type> = inputs
        .into_iter()
        .map(|t| rewriter.convert_type(t))
        .collect();
    let results: Vec<Type> = results
        .into_iter()
        .map(|t| rewriter.convert_type(t))
        .collect();
    if let Some(entry) = rewriter
        .ctx()
        .op(function)
        .regions
        .first()
        .and_then(|&r| rewriter.ctx().entry_block(r))
    {
        let args = rewriter.ctx().block(entry).args.clone();
        for (arg, &ty) in args.into_iter().zip(&inputs) {
            rewriter.set_value_type(arg, ty);
        }
    }
    let ctx = rewriter.ctx_mut();
    let function_type = ctx.function_type(inputs, results);
    let attr = ctx.intern_attr(AttrKind::Type(function_type));
    let mut entries = ctx
        .op(function)
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    match entries.iter_mut().find(|(k, _)| k == "function_type") {
        Some(entry) => entry.1 = attr,
        None => entries.push(("function_type".to_owned(), attr)),
    }
    let dict = ctx.dictionary_attr(entries);
    rewriter.set_properties(function, Some(dict));
}
