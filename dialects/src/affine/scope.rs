//! Which index values may be dims and symbols of affine maps, after MLIR's
//! `isValidDim`/`isValidSymbol`.
//!
//! An affine scope is the region of the closest enclosing op that opens one (functions,
//! modules and other symbol tables). A value is a valid symbol in it when it is defined at
//! its top level (an argument of the region or the result of an op directly in it), when
//! it is a constant, an `affine.apply`/`min`/`max` or pure op of valid symbols, or a
//! `memref.dim` of a top-level memref (or of a size given to its allocation as a valid
//! symbol); or when it is defined above the scope.
//! A valid dim is a valid symbol, an induction variable of `affine.for`/`affine.parallel`,
//! or an `affine.apply` of valid dims.

use tb_ir::attributes::AttrKind;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::types::DYNAMIC;
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, RegionId, TypeKind, Value};

use super::{APPLY, FOR, MAX, MIN, PARALLEL};

fn opens_scope(ctx: &Context, op: OpId) -> bool {
    ctx.op_info_of(op)
        .is_some_and(|info| info.traits.function_like || info.traits.symbol_table)
        || ctx.op_name(op) == "builtin.module"
}

/// The region that holds `op`'s affine scope: the region of its closest scope-opening
/// ancestor that contains it.
pub(crate) fn affine_scope(ctx: &Context, op: OpId) -> Option<RegionId> {
    let mut current = op;
    loop {
        let block = ctx.op(current).parent?;
        let region = ctx.block(block).parent?;
        let parent = ctx.region(region).parent?;
        if opens_scope(ctx, parent) {
            return Some(region);
        }
        current = parent;
    }
}

/// The region `value` is defined in (as a block argument or an op result).
fn defining_region(ctx: &Context, value: Value) -> Option<RegionId> {
    let block = match ctx.value(value).def {
        ValueDef::Result { op, .. } => ctx.op(op).parent?,
        ValueDef::BlockArgument { block, .. } => block,
        ValueDef::Placeholder => return None,
    };
    ctx.block(block).parent
}

fn is_index(ctx: &Context, value: Value) -> bool {
    matches!(ctx.type_kind(ctx.value_type(value)), TypeKind::Index)
}

/// Whether `region` lies (at any depth) inside `ancestor`.
fn region_within(ctx: &Context, region: RegionId, ancestor: RegionId) -> bool {
    let mut current = region;
    loop {
        if current == ancestor {
            return true;
        }
        let Some(op) = ctx.region(current).parent else {
            return false;
        };
        let Some(block) = ctx.op(op).parent else {
            return false;
        };
        let Some(parent) = ctx.block(block).parent else {
            return false;
        };
        current = parent;
    }
}

fn is_pure(ctx: &Context, op: OpId) -> bool {
    ctx.op_info_of(op).is_some_and(|info| info.traits.pure) && ctx.op(op).regions.is_empty()
}

fn is_constant(ctx: &Context, op: OpId) -> bool {
    ctx.op_info_of(op)
        .is_some_and(|info| info.traits.constant_like)
}

/// Whether `value` may be a symbol of a map used in `scope` (the affine scope of the op
/// using it; `None` when that op has none).
pub fn is_valid_symbol(ctx: &Context, value: Value, scope: Option<RegionId>) -> bool {
    if !is_index(ctx, value) {
        return false;
    }
    let Some(home) = defining_region(ctx, value) else {
        return false;
    };
    if let Some(scope) = scope
        && (home == scope || !region_within(ctx, home, scope))
    {
        // Top-level in the scope, or defined above it.
        return true;
    }
    let Some(op) = ctx.defining_op(value) else {
        return false;
    };
    if is_constant(ctx, op) {
        return true;
    }
    let name = ctx.op_name(op);
    if name == "memref.dim" {
        return is_valid_dim_op_symbol(ctx, op, scope);
    }
    if matches!(name, APPLY | MIN | MAX) || is_pure(ctx, op) {
        return ctx
            .op(op)
            .operands
            .iter()
            .all(|&v| is_valid_symbol(ctx, v, scope));
    }
    false
}

/// Whether `value` may be a dim of a map used in `scope`.
pub fn is_valid_dim(ctx: &Context, value: Value, scope: Option<RegionId>) -> bool {
    if !is_index(ctx, value) {
        return false;
    }
    if is_valid_symbol(ctx, value, scope) {
        return true;
    }
    match ctx.value(value).def {
        ValueDef::BlockArgument { block, .. } => ctx
            .block(block)
            .parent
            .and_then(|r| ctx.region(r).parent)
            .is_some_and(|owner| matches!(ctx.op_name(owner), FOR | PARALLEL)),
        ValueDef::Result { op, .. } => {
            ctx.op_name(op) == APPLY
                && ctx
                    .op(op)
                    .operands
                    .iter()
                    .all(|&v| is_valid_dim(ctx, v, scope))
        }
        ValueDef::Placeholder => false,
    }
}

/// A `memref.dim` is a valid symbol when its memref is defined at the top level of the
/// scope (or above it), or when the size it reads is static or a valid symbol given to the
/// `memref.alloc`/`memref.alloca` that made the memref.
fn is_valid_dim_op_symbol(ctx: &Context, op: OpId, scope: Option<RegionId>) -> bool {
    let operands = &ctx.op(op).operands;
    let (Some(&memref), Some(&index)) = (operands.first(), operands.get(1)) else {
        return false;
    };
    if let (Some(home), Some(scope)) = (defining_region(ctx, memref), scope)
        && (home == scope || !region_within(ctx, home, scope))
    {
        return true;
    }
    let Some(alloc) = ctx
        .defining_op(memref)
        .filter(|&a| matches!(ctx.op_name(a), "memref.alloc" | "memref.alloca"))
    else {
        return false;
    };
    let Some(position) = ctx
        .defining_op(index)
        .and_then(|c| constant_value(ctx, c))
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Integer { value, .. } => usize::try_from(*value).ok(),
            _ => None,
        })
    else {
        return false;
    };
    let TypeKind::MemRef { shape, .. } = ctx.type_kind(ctx.value_type(memref)) else {
        return false;
    };
    match shape.get(position) {
        Some(&size) if size != DYNAMIC => true,
        Some(_) => {
            let dynamic_index = shape[..position].iter().filter(|&&d| d == DYNAMIC).count();
            ctx.op(alloc)
                .operands
                .get(dynamic_index)
                .is_some_and(|&size| is_valid_symbol(ctx, size, scope))
        }
        None => false,
    }
}
