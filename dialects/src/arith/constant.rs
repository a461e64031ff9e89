//! `arith.constant`: its verifier, type inference, result names (`%c0_i32`, `%cst`,
//! `%true`) and the materialization of folded constants.

use tb_ir::attributes::AttrKind;
use tb_ir::ods::constraint::{is_float, is_i1, is_index};
use tb_ir::operation::OperationState;
use tb_ir::printer::type_to_string;
use tb_ir::registry::InferInput;
use tb_ir::{Attr, Context, Diagnostic, Location, OpId, Type, TypeKind};

/// The type a typed attribute carries.
pub(crate) fn attr_type(ctx: &Context, attr: Attr) -> Option<Type> {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { ty, .. }
        | AttrKind::WideInteger { ty, .. }
        | AttrKind::Float { ty, .. }
        | AttrKind::DenseElements { ty, .. }
        | AttrKind::DenseResource { ty, .. } => Some(*ty),
        AttrKind::Sparse { ty, .. } => Some(*ty),
        _ => None,
    }
}

/// MLIR's checks in MLIR's order: the value's type is the result's (the `AllTypesMatch`
/// trait), an integer result is signless, the value is an integer, float or elements
/// attribute, and a scalable vector is initialized by a splat.
pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let err = |m: &str| {
        Err(Diagnostic::error(
            data.loc,
            format!("'arith.constant' op {m}"),
        ))
    };
    let Some(value) = ctx.op_inherent_or_attr(op, "value") else {
        return Ok(());
    };
    let result_ty = ctx.value_type(data.results[0]);
    let value_ty = match ctx.attr_kind(value) {
        AttrKind::String { ty, .. } => *ty,
        _ => attr_type(ctx, value),
    };
    if value_ty != Some(result_ty) {
        return err("failed to verify that all of {value, result} have same type");
    }
    if let TypeKind::Integer { signedness, .. } = ctx.type_kind(result_ty)
        && *signedness != tb_ir::Signedness::Signless
    {
        return err("integer return type must be signless");
    }
    let Some(_) = attr_type(ctx, value) else {
        return err("value must be an integer, float, or elements attribute");
    };
    let scalar = matches!(
        ctx.type_kind(result_ty),
        TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_)
    );
    let shaped = matches!(
        ctx.type_kind(result_ty),
        TypeKind::Vector { .. } | TypeKind::RankedTensor { .. }
    );
    if !scalar && !shaped {
        return err(&format!(
            "result type '{}' must be an integer, index, float, vector or tensor type",
            type_to_string(ctx, result_ty)
        ));
    }
    let scalable = matches!(ctx.type_kind(result_ty), TypeKind::Vector { scalable, .. } if scalable.iter().any(|&s| s));
    let splat = matches!(ctx.attr_kind(value), AttrKind::DenseElements { data, .. } if data.splat || data.elements.len() == 1);
    if scalable && !splat {
        // MLIR 22 spells "intializing" so.
        return err(
            "intializing scalable vectors with elements attribute is not supported unless it's a vector splat",
        );
    }
    Ok(())
}

/// The result type is the type of the value.
pub(crate) fn infer(ctx: &mut Context, input: &InferInput) -> Result<Vec<Type>, String> {
    let value = input
        .attr("value")
        .ok_or("'arith.constant' needs a value")?;
    let ty = attr_type(ctx, value)
        .ok_or("'arith.constant' value must be an integer, float or elements attribute")?;
    Ok(vec![ty])
}

/// MLIR's names for constant results: `%c42_i32`, `%c0` for index, `%true`, `%cst`.
pub fn constant_result_name(ctx: &Context, attr: Attr) -> String {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty } if is_i1(ctx, *ty) => {
            if *value != 0 { "true" } else { "false" }.to_string()
        }
        AttrKind::Integer { value, ty } if is_index(ctx, *ty) => format!("c{value}"),
        AttrKind::Integer { value, ty } => format!("c{value}_{}", type_to_string(ctx, *ty)),
        _ => "cst".to_string(),
    }
}

pub(crate) fn result_names(ctx: &Context, op: OpId) -> Vec<Option<String>> {
    vec![
        ctx.op_inherent_or_attr(op, "value")
            .map(|a| constant_result_name(ctx, a)),
    ]
}

/// A detached `arith.constant` holding `value` of type `ty`.
pub fn build_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> OpId {
    let name = ctx.intern_op_name("arith.constant");
    let props = ctx.dictionary_attr(vec![("value".to_string(), value)]);
    ctx.create_op(OperationState {
        name,
        operands: vec![],
        result_types: vec![ty],
        successors: vec![],
        num_regions: 0,
        properties: Some(props),
        attributes: vec![],
        loc,
    })
}

/// Folded values become `arith.constant`s when the attribute fits the type.
pub(crate) fn materialize(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<OpId> {
    let value_ty = attr_type(ctx, value)?;
    if value_ty != ty {
        return None;
    }
    let element = tb_ir::ods::constraint::element_or_self(ctx, ty);
    let ok = is_float(ctx, element)
        || is_index(ctx, element)
        || matches!(ctx.type_kind(element), TypeKind::Integer { .. });
    ok.then(|| build_constant(ctx, value, ty, loc))
}
