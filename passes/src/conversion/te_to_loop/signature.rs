//! Function signatures on buffers: every ranked static tensor in a `func.func`'s type, its
//! entry block's arguments and the results of `func.call`s becomes a memref of the same
//! shape and element type with the identity layout, which is what the CPU backend's ABI
//! takes.

use tb_dialects::func;
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

/// Rewrites the signatures of `functions` and the result types of every `func.call` in
/// them to buffers.
pub(super) fn bufferize_signatures(ctx: &mut Context, functions: &[OpId]) {
    for &function in functions {
        bufferize_function_type(ctx, function);
        let mut calls = Vec::new();
        ctx.walk_nested(function, &mut |op| {
            if ctx.op_name(op) == func::CALL {
                calls.push(op);
            }
        });
        for call in calls {
            let results = ctx.op(call).results.clone();
            for result in results {
                let ty = buffer_type(ctx, ctx.value_type(result));
                ctx.set_value_type(result, ty);
            }
        }
    }
}

fn bufferize_function_type(ctx: &mut Context, function: OpId) {
    let Some((inputs, results)) = func::signature(ctx, function) else {
        return;
    };
    let inputs: Vec<Type> = inputs.into_iter().map(|t| buffer_type(ctx, t)).collect();
    let results: Vec<Type> = results.into_iter().map(|t| buffer_type(ctx, t)).collect();
    if let Some(entry) = ctx
        .op(function)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
    {
        let args = ctx.block(entry).args.clone();
        for (arg, &ty) in args.into_iter().zip(&inputs) {
            ctx.set_value_type(arg, ty);
        }
    }
    let function_type = ctx.function_type(inputs, results);
    let attr = ctx.intern_attr(AttrKind::Type(function_type));
    set_property(ctx, function, "function_type", attr);
}

/// Sets the inherent attribute `name` of `op` to `value`.
fn set_property(ctx: &mut Context, op: OpId, name: &str, value: tb_ir::Attr) {
    let mut entries = ctx
        .op(op)
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    match entries.iter_mut().find(|(k, _)| k == name) {
        Some(entry) => entry.1 = value,
        None => entries.push((name.to_owned(), value)),
    }
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).properties = Some(dict);
}
