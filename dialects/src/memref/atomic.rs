//! `memref.atomic_rmw`: an atomic read-modify-write of one element by one of
//! `arith::AtomicRMWKind`'s operations, with MLIR 22's verifier and its fold of a
//! `memref.cast` operand.

use tb_ir::attributes::AttrKind;
use tb_ir::ods::AttrConstraint;
use tb_ir::{Context, Diagnostic, OpId, TypeKind};

use super::verify::op_error;
use crate::affine::REDUCTION_KINDS;

/// The `kind` attribute: an `i64` naming one of [`REDUCTION_KINDS`].
pub(crate) const KIND_ATTR: AttrConstraint = AttrConstraint {
    description: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { value, ty }
            if (0..REDUCTION_KINDS.len() as i128).contains(value)
                && matches!(c.type_kind(*ty), TypeKind::Integer { width: 64, .. }))
    },
};

fn kind(ctx: &Context, op: OpId) -> Option<&'static str> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, "kind")?) {
        AttrKind::Integer { value, .. } => {
            REDUCTION_KINDS.get(usize::try_from(*value).ok()?).copied()
        }
        _ => None,
    }
}

/// One index per dimension; float kinds on floats and integer kinds on integers.
pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (value, memref) = (data.operands[0], data.operands[1]);
    if let TypeKind::MemRef { shape, .. } = ctx.type_kind(ctx.value_type(memref))
        && shape.len() != data.operands.len() - 2
    {
        return op_error(
            ctx,
            op,
            "expects the number of subscripts to be equal to memref rank".to_string(),
        );
    }
    let Some(kind) = kind(ctx, op) else {
        return Ok(());
    };
    let value_ty = ctx.type_kind(ctx.value_type(value));
    let expects = match kind {
        "addf" | "maximumf" | "minimumf" | "mulf" if !matches!(value_ty, TypeKind::Float(_)) => {
            "a floating-point type"
        }
        "addi" | "maxs" | "maxu" | "mins" | "minu" | "muli" | "ori" | "xori" | "andi"
            if !matches!(value_ty, TypeKind::Integer { .. }) =>
        {
            "an integer type"
        }
        _ => return Ok(()),
    };
    op_error(ctx, op, format!("with kind '{kind}' expects {expects}"))
}
