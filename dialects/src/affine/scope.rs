//! Which index values may be dims and symbols of affine maps, after MLIR's
//! `isValidDim`/`isValidSymbol`.
//!
//! An affine scope is the region of the closest enclosing op that opens one (functions,
//! modules and other symbol tables). A value is a valid symbol in it when it is defined at
//! its top level (an argument of the region or the result of an op directly in it), when
//! it is a constant, an `affine.apply`/`min`/`max` or pure op of valid symbols, or a
//! `memref.dim` of a top-level memref (or of a size given to the `memref.alloc`, `view`
//! or `subview` making it as a valid symbol); or when it is defined above the scope.
//! A valid dim is a valid symbol, an induction variable of `affine.for`/`affine.parallel`,
//! an `affine.apply` or index (de)linearization of valid dims, or a `memref.dim` of a
//! top-level memref.

use tb_ir::attributes::AttrKind;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::types::DYNAMIC;
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, RegionId, TypeKind, Value};

use tb_ir::ods::operand_group;

use super::{APPLY, DELINEARIZE_INDEX, FOR, LINEARIZE_INDEX, MAX, MIN, PARALLEL};
use crate::memref;

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
    if matches!(name, "memref.dim" | "tensor.dim") {
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
        ValueDef::Result { op, .. } => match ctx.op_name(op) {
            // The index (de)linearizations are special forms of `affine.apply`.
            APPLY | DELINEARIZE_INDEX | LINEARIZE_INDEX => ctx
                .op(op)
                .operands
                .iter()
                .all(|&v| is_valid_dim(ctx, v, scope)),
            // A size of a memref defined at the top level of a scope.
            "memref.dim" | "tensor.dim" => ctx
                .op(op)
                .operands
                .first()
                .is_some_and(|&shaped| is_top_level_value(ctx, shaped)),
            _ => false,
        },
        ValueDef::Placeholder => false,
    }
}

/// Whether `value` is defined at the top level of an affine scope (an argument of the
/// scope's region or a result of an op directly in it): MLIR's `isTopLevelValue`.
fn is_top_level_value(ctx: &Context, value: Value) -> bool {
    defining_region(ctx, value)
        .and_then(|r| ctx.region(r).parent)
        .is_some_and(|owner| opens_scope(ctx, owner))
}

/// The constant `index` operand of a `memref.dim`, as a position.
fn constant_position(ctx: &Context, index: Value) -> Option<usize> {
    let attr = constant_value(ctx, ctx.defining_op(index)?)?;
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => usize::try_from(*value).ok(),
        _ => None,
    }
}

/// A `memref.dim` is a valid symbol when its memref is defined at the top level of an
/// affine scope, or (looking through `memref.cast`s) is made by a `memref.alloc`,
/// `memref.view` or `memref.subview` whose size in that dimension is static or a valid
/// symbol (MLIR's `isDimOpValidSymbol`).
fn is_valid_dim_op_symbol(ctx: &Context, op: OpId, scope: Option<RegionId>) -> bool {
    let operands = &ctx.op(op).operands;
    let (Some(&memref), Some(&index)) = (operands.first(), operands.get(1)) else {
        return false;
    };
    if is_top_level_value(ctx, memref) {
        return true;
    }
    let Some(position) = constant_position(ctx, index) else {
        return false;
    };
    let mut maker = ctx.defining_op(memref);
    while let Some(cast) = maker.filter(|&c| ctx.op_name(c) == memref::CAST) {
        let source = ctx.op(cast).operands[0];
        if matches!(
            ctx.type_kind(ctx.value_type(source)),
            TypeKind::UnrankedMemRef { .. }
        ) {
            return false;
        }
        maker = ctx.defining_op(source);
    }
    let Some(maker) = maker else {
        return false;
    };
    // The dynamic sizes each maker gives, in the order of its result's dynamic dimensions.
    let dynamic_sizes = match ctx.op_name(maker) {
        memref::ALLOC => operand_group(ctx, maker, 0),
        memref::SUBVIEW => operand_group(ctx, maker, 2),
        memref::VIEW => ctx.op(maker).operands.get(2..).unwrap_or_default(),
        _ => return false,
    };
    let Some(&result) = ctx.op(maker).results.first() else {
        return false;
    };
    let TypeKind::MemRef { shape, .. } = ctx.type_kind(ctx.value_type(result)) else {
        return false;
    };
    match shape.get(position) {
        Some(&size) if size != DYNAMIC => true,
        Some(_) => {
            let dynamic_index = shape[..position].iter().filter(|&&d| d == DYNAMIC).count();
            dynamic_sizes
                .get(dynamic_index)
                .is_some_and(|&size| is_valid_symbol(ctx, size, scope))
        }
        None => false,
    }
}

/// Whether `value` is a valid symbol in the affine scope where it is defined (MLIR's
/// `isValidSymbol` without a region): canonicalization asks this of map operands.
pub(crate) fn is_valid_symbol_where_defined(ctx: &Context, value: Value) -> bool {
    if !is_index(ctx, value) {
        return false;
    }
    if is_top_level_value(ctx, value) {
        return true;
    }
    match ctx.defining_op(value) {
        Some(op) => is_valid_symbol(ctx, value, affine_scope(ctx, op)),
        None => false,
    }
}

/// Whether `value` is a valid dim in the affine scope where it is defined (MLIR's
/// `isValidDim` without a region).
pub(crate) fn is_valid_dim_where_defined(ctx: &Context, value: Value) -> bool {
    if !is_index(ctx, value) {
        return false;
    }
    match ctx.defining_op(value) {
        Some(op) => is_valid_dim(ctx, value, affine_scope(ctx, op)),
        // An induction variable, or an argument of a scope-opening op.
        None => match ctx.value(value).def {
            ValueDef::BlockArgument { block, .. } => ctx
                .block(block)
                .parent
                .and_then(|r| ctx.region(r).parent)
                .is_some_and(|owner| {
                    matches!(ctx.op_name(owner), FOR | PARALLEL) || opens_scope(ctx, owner)
                }),
            _ => false,
        },
    }
}
