//! Verifiers of the `memref` ops, with MLIR 22's messages. Like MLIR, some are reported
//! as `'memref.x' op ...` and some (view-like ops) without the prefix.

use tb_ir::attributes::AttrKind;
use tb_ir::ods::operand_group;
use tb_ir::printer::{attr_to_string, type_to_string};
use tb_ir::symbol_table::lookup_symbol;
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId, Type};

use super::layout::{MemRef, cast_compatible, element_and_space};
use super::offsets;

/// `'memref.x' op <message>`
pub(crate) fn op_error<T>(ctx: &Context, op: OpId, message: String) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
}

/// `<message>`, as MLIR's `emitError` words it.
pub(crate) fn error<T>(ctx: &Context, op: OpId, message: String) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(ctx.op(op).loc, message))
}

fn result_type(ctx: &Context, op: OpId) -> Option<Type> {
    Some(ctx.value_type(*ctx.op(op).results.first()?))
}

/// One size operand per dynamic dimension of `ty`.
fn dynamic_size_count(
    ctx: &Context,
    op: OpId,
    ty: &MemRef,
    sizes: usize,
) -> Result<(), Diagnostic> {
    if sizes != ty.dynamic_dims() {
        return op_error(
            ctx,
            op,
            format!(
                "incorrect number of dynamic sizes, has {sizes}, expected {}",
                ty.dynamic_dims()
            ),
        );
    }
    Ok(())
}

pub(crate) fn alloc(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(ty) = result_type(ctx, op).and_then(|t| MemRef::of(ctx, t)) else {
        return op_error(ctx, op, "result must be a memref".into());
    };
    dynamic_size_count(ctx, op, &ty, operand_group(ctx, op, 0).len())?;
    let symbols = operand_group(ctx, op, 1).len();
    if symbols != ty.layout_symbols(ctx) {
        return op_error(
            ctx,
            op,
            format!(
                "symbol operand count does not equal memref symbol count: expected {}, got {symbols}",
                ty.layout_symbols(ctx)
            ),
        );
    }
    Ok(())
}

/// Stack memory needs a region whose exit frees it.
pub(crate) fn alloca(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let mut parent = ctx.parent_op(op);
    while let Some(p) = parent {
        if ctx
            .op_traits(p)
            .is_some_and(|t| t.automatic_allocation_scope)
        {
            return alloc(ctx, op);
        }
        parent = ctx.parent_op(p);
    }
    op_error(
        ctx,
        op,
        "requires an ancestor op with AutomaticAllocationScope trait".into(),
    )
}

/// The memref operand's element type is the loaded (or stored) value's.
fn access(
    ctx: &Context,
    op: OpId,
    memref: usize,
    value_ty: Type,
    type_message: &str,
    count_message: impl Fn(usize, usize) -> String,
) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let Some(ty) = MemRef::of(ctx, ctx.value_type(data.operands[memref])) else {
        return Ok(());
    };
    if ty.element != value_ty {
        return op_error(ctx, op, format!("failed to verify that {type_message}"));
    }
    let indices = data.operands.len() - memref - 1;
    if indices != ty.rank() {
        return op_error(ctx, op, count_message(ty.rank(), indices));
    }
    Ok(())
}

pub(crate) fn load(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(result) = result_type(ctx, op) else {
        return Ok(());
    };
    access(
        ctx,
        op,
        0,
        result,
        "result type matches element type of 'memref'",
        |rank, n| format!("incorrect number of indices for load, expected {rank} but got {n}"),
    )
}

pub(crate) fn store(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let value = ctx.value_type(ctx.op(op).operands[0]);
    access(
        ctx,
        op,
        1,
        value,
        "type of 'value' matches element type of 'memref'",
        |_, _| "store index operand count not equal to memref rank".into(),
    )
}

pub(crate) fn cast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let from = ctx.value_type(ctx.op(op).operands[0]);
    let Some(to) = result_type(ctx, op) else {
        return Ok(());
    };
    if !cast_compatible(ctx, from, to) {
        return op_error(
            ctx,
            op,
            format!(
                "operand type '{}' and result type '{}' are cast incompatible",
                type_to_string(ctx, from),
                type_to_string(ctx, to)
            ),
        );
    }
    Ok(())
}

pub(crate) fn copy(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (a, b) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.operands[1]),
    );
    if element_and_space(ctx, a).map(|e| e.0) != element_and_space(ctx, b).map(|e| e.0) {
        return op_error(
            ctx,
            op,
            "requires the same element type for all operands".into(),
        );
    }
    if let (Some(x), Some(y)) = (MemRef::of(ctx, a), MemRef::of(ctx, b)) {
        let compatible = x.rank() == y.rank()
            && x.shape
                .iter()
                .zip(&y.shape)
                .all(|(&p, &q)| p == DYNAMIC || q == DYNAMIC || p == q);
        if !compatible {
            return op_error(ctx, op, "requires the same shape for all operands".into());
        }
    }
    Ok(())
}

/// The global a `get_global` names exists and has the result's type.
pub(crate) fn get_global(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(name) = ctx
        .op_inherent_or_attr(op, "name")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::SymbolRef { root, .. } => Some(root.clone()),
            _ => None,
        })
    else {
        return Ok(());
    };
    let global = lookup_symbol(ctx, op, &name).filter(|&g| ctx.op_name(g) == super::GLOBAL);
    let Some(global) = global else {
        return op_error(
            ctx,
            op,
            format!("'{name}' does not reference a valid global memref"),
        );
    };
    let global_ty = ctx
        .op_inherent_or_attr(global, "type")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Type(t) => Some(*t),
            _ => None,
        });
    let Some(result) = result_type(ctx, op) else {
        return Ok(());
    };
    if let Some(global_ty) = global_ty
        && global_ty != result
    {
        return op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match type '{}' of the global memref @{name}",
                type_to_string(ctx, result),
                type_to_string(ctx, global_ty)
            ),
        );
    }
    Ok(())
}

pub(crate) fn global(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if let Some(visibility) = ctx.op_inherent_or_attr(op, "sym_visibility")
        && let AttrKind::String { value, .. } = ctx.attr_kind(visibility)
        && !matches!(value.as_slice(), b"public" | b"private" | b"nested")
    {
        return op_error(
            ctx,
            op,
            format!(
                "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got \"{}\"",
                String::from_utf8_lossy(value)
            ),
        );
    }
    let in_symbol_table = ctx
        .parent_op(op)
        .and_then(|p| ctx.op_traits(p))
        .is_some_and(|t| t.symbol_table);
    if !in_symbol_table {
        return op_error(
            ctx,
            op,
            "symbol's parent must have the SymbolTable trait".into(),
        );
    }
    let Some(ty) = ctx
        .op_inherent_or_attr(op, "type")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Type(t) => Some(*t),
            _ => None,
        })
    else {
        return Ok(());
    };
    let memref = MemRef::of(ctx, ty).filter(|m| !m.shape.contains(&DYNAMIC));
    let Some(memref) = memref else {
        return op_error(
            ctx,
            op,
            format!(
                "type should be static shaped memref, but got '{}'",
                type_to_string(ctx, ty)
            ),
        );
    };
    let Some(init) = ctx.op_inherent_or_attr(op, "initial_value") else {
        return Ok(());
    };
    let init_ty = match ctx.attr_kind(init) {
        AttrKind::Unit => return Ok(()),
        AttrKind::DenseElements { ty, .. }
        | AttrKind::DenseResource { ty, .. }
        | AttrKind::DenseStrings { ty, .. }
        | AttrKind::Sparse { ty, .. } => *ty,
        _ => {
            return op_error(
                ctx,
                op,
                format!(
                    "initial value should be a unit or elements attribute, but got {}",
                    attr_to_string(ctx, init)
                ),
            );
        }
    };
    let kind = ctx.type_kind(init_ty);
    if let Some(element) = kind.element()
        && element != memref.element
    {
        return op_error(
            ctx,
            op,
            format!(
                "initial value element expected to be of type '{}', but was of type '{}'",
                type_to_string(ctx, memref.element),
                type_to_string(ctx, element)
            ),
        );
    }
    if let Some(shape) = kind.shape()
        && shape != memref.shape
    {
        let list = |s: &[i64]| s.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        return op_error(
            ctx,
            op,
            format!(
                "initial value shape expected to be {} but was {}",
                list(&memref.shape),
                list(shape)
            ),
        );
    }
    Ok(())
}

pub(crate) fn reinterpret_cast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let source_ty = ctx.value_type(data.operands[0]);
    let Some(result_ty) = result_type(ctx, op) else {
        return Ok(());
    };
    let Some(result) = MemRef::of(ctx, result_ty) else {
        return Ok(());
    };
    offsets::verify(ctx, op, [1, result.rank(), result.rank()])?;
    let Some((source_element, source_space)) = element_and_space(ctx, source_ty) else {
        return Ok(());
    };
    let pair = || {
        format!(
            "source type '{}' and result memref type '{}'",
            type_to_string(ctx, source_ty),
            type_to_string(ctx, result_ty)
        )
    };
    if source_space != result.memory_space {
        return error(
            ctx,
            op,
            format!("different memory spaces specified for {}", pair()),
        );
    }
    if source_element != result.element {
        return error(
            ctx,
            op,
            format!("different element types specified for {}", pair()),
        );
    }
    let Some([offsets, sizes, strides]) = offsets::static_lists(ctx, op) else {
        return Ok(());
    };
    let expected = |v: i64| {
        if v == DYNAMIC {
            "dynamic".to_string()
        } else {
            v.to_string()
        }
    };
    for (dim, (&size, &given)) in result.shape.iter().zip(&sizes).enumerate() {
        if size != DYNAMIC && size != given {
            return error(
                ctx,
                op,
                format!(
                    "expected result type with size = {} instead of {size} in dim = {dim}",
                    expected(given)
                ),
            );
        }
    }
    let Some((result_strides, result_offset)) = result.strides_and_offset(ctx) else {
        return error(
            ctx,
            op,
            format!(
                "expected result type to have strided layout but found '{}'",
                type_to_string(ctx, result_ty)
            ),
        );
    };
    if result_offset != DYNAMIC && result_offset != offsets[0] {
        return error(
            ctx,
            op,
            format!(
                "expected result type with offset = {} instead of {result_offset}",
                expected(offsets[0])
            ),
        );
    }
    for (dim, (&stride, &given)) in result_strides.iter().zip(&strides).enumerate() {
        if stride != DYNAMIC && stride != given {
            return error(
                ctx,
                op,
                format!(
                    "expected result type with stride = {} instead of {stride} in dim = {dim}",
                    expected(given)
                ),
            );
        }
    }
    Ok(())
}

pub(crate) fn view(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let base_ty = ctx.value_type(data.operands[0]);
    let (Some(base), Some(view_ty)) = (MemRef::of(ctx, base_ty), result_type(ctx, op)) else {
        return Ok(());
    };
    let Some(view) = MemRef::of(ctx, view_ty) else {
        return Ok(());
    };
    let text = |t: Type| type_to_string(ctx, t);
    if !base.has_identity_layout(ctx) {
        return error(
            ctx,
            op,
            format!("unsupported map for base memref type '{}'", text(base_ty)),
        );
    }
    if !view.has_identity_layout(ctx) {
        return error(
            ctx,
            op,
            format!("unsupported map for result memref type '{}'", text(view_ty)),
        );
    }
    if base.memory_space != view.memory_space {
        return error(
            ctx,
            op,
            format!(
                "different memory spaces specified for base memref type '{}' and view memref type '{}'",
                text(base_ty),
                text(view_ty)
            ),
        );
    }
    dynamic_size_count(ctx, op, &view, operand_group(ctx, op, 2).len())
}
