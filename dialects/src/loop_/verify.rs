//! Verifiers of the `loop` ops.

use tb_ir::ods::operand_group;
use tb_ir::printer::type_to_string;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::{BROADCAST, FMA, FOR, PARALLEL, VECTOR_LOAD, VECTOR_STORE, YIELD};
use tb_ir::affine::Interval;

fn error<T>(ctx: &Context, op: OpId, message: String) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
}

fn memref_parts(ctx: &Context, ty: Type) -> Option<(&[i64], Type)> {
    match ctx.type_kind(ty) {
        TypeKind::MemRef { shape, element, .. } => Some((shape, *element)),
        _ => None,
    }
}

pub(crate) fn alloc(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let ty = ctx.value_type(data.results[0]);
    let Some((shape, _)) = memref_parts(ctx, ty) else {
        return Ok(());
    };
    let dynamic = super::asm::dynamic_dims(shape);
    if data.operands.len() != dynamic {
        return error(
            ctx,
            op,
            format!(
                "has {} dynamic size operands, but '{}' has {dynamic} dynamic dimensions",
                data.operands.len(),
                type_to_string(ctx, ty)
            ),
        );
    }
    let alignment = super::alignment(ctx, op);
    if alignment <= 0 || alignment & (alignment - 1) != 0 {
        return error(
            ctx,
            op,
            format!("alignment must be a positive power of two, but got {alignment}"),
        );
    }
    Ok(())
}

/// Checks one loop's bounds, steps, schedule annotations and body.
fn check_loop(ctx: &Context, op: OpId, num_dims: usize) -> Result<(), Diagnostic> {
    let Some(dims) = super::loop_dims(ctx, op) else {
        let lowers = operand_group(ctx, op, 0).len();
        let uppers = operand_group(ctx, op, 1).len();
        return error(
            ctx,
            op,
            format!(
                "bounds do not match their operands ({lowers} lower and {uppers} upper bound operands) or the {num_dims} induction variables"
            ),
        );
    };
    for (i, dim) in dims.iter().enumerate() {
        for (which, bound) in [("lower", &dim.lower), ("upper", &dim.upper)] {
            if bound.map.num_results() == 0 {
                return error(
                    ctx,
                    op,
                    format!("{which} bound map of dimension {i} has no results"),
                );
            }
        }
        if dim.step <= 0 {
            return error(
                ctx,
                op,
                format!("step must be positive, but got {}", dim.step),
            );
        }
    }
    for (name, value) in [
        ("unroll factor", super::unroll_factor(ctx, op)),
        ("vectorize width", super::vector_width(ctx, op)),
    ] {
        if let Some(v) = value
            && v <= 0
        {
            return error(ctx, op, format!("{name} must be positive, but got {v}"));
        }
    }
    let Some(body) = super::body(ctx, op) else {
        return error(ctx, op, "requires a body block".into());
    };
    for (i, &arg) in ctx.block(body).args.iter().take(num_dims).enumerate() {
        let ty = ctx.value_type(arg);
        if !matches!(ctx.type_kind(ty), TypeKind::Index) {
            return error(
                ctx,
                op,
                format!(
                    "induction variable #{i} must be of index type, but got '{}'",
                    type_to_string(ctx, ty)
                ),
            );
        }
    }
    if ctx
        .block(body)
        .last
        .is_none_or(|last| ctx.op_name(last) != YIELD)
    {
        return error(ctx, op, format!("body must end with '{YIELD}'"));
    }
    if let Some(width) = super::vector_width(ctx, op) {
        for inner in ctx.block_ops(body) {
            let name = ctx.op_name(inner);
            let vector = match name {
                VECTOR_LOAD | BROADCAST | FMA => ctx.op(inner).results.first().copied(),
                VECTOR_STORE => ctx.op(inner).operands.first().copied(),
                _ => None,
            };
            let lanes = vector.and_then(|v| match ctx.type_kind(ctx.value_type(v)) {
                TypeKind::Vector { shape, .. } => shape.last().copied(),
                _ => None,
            });
            if let Some(lanes) = lanes
                && lanes != width
            {
                return error(
                    ctx,
                    op,
                    format!(
                        "vectorize width {width} does not match the {lanes} lanes of a '{name}' in its body"
                    ),
                );
            }
        }
    }
    Ok(())
}

pub(crate) fn for_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let inits = super::inits(ctx, op);
    let results = &ctx.op(op).results;
    if inits.len() != results.len() {
        return error(
            ctx,
            op,
            format!(
                "mismatch in number of loop-carried values ({}) and results ({})",
                inits.len(),
                results.len()
            ),
        );
    }
    let args = super::body(ctx, op).map_or(0, |b| ctx.block(b).args.len());
    if args != 1 + inits.len() {
        return error(
            ctx,
            op,
            format!(
                "expects {} body arguments (the induction variable and {} iter_args), but the body has {args}",
                1 + inits.len(),
                inits.len()
            ),
        );
    }
    if !inits.is_empty() && ctx.op_inherent_or_attr(op, "parallel").is_some() {
        return error(
            ctx,
            op,
            "carries values between iterations (iter_args), so it cannot be marked 'parallel'"
                .into(),
        );
    }
    let iter_args = super::iter_args(ctx, op);
    for (i, ((&init, &result), &arg)) in inits.iter().zip(results).zip(&iter_args).enumerate() {
        let expected = ctx.value_type(result);
        for (what, value) in [("init", init), ("iter_arg", arg)] {
            let ty = ctx.value_type(value);
            if ty != expected {
                return error(
                    ctx,
                    op,
                    format!(
                        "types mismatch between {what} #{i} ('{}') and result #{i} ('{}')",
                        type_to_string(ctx, ty),
                        type_to_string(ctx, expected)
                    ),
                );
            }
        }
    }
    check_loop(ctx, op, 1)
}

pub(crate) fn parallel(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let ivs = super::induction_vars(ctx, op).len();
    if ivs == 0 {
        return error(ctx, op, "expects at least one induction variable".into());
    }
    check_loop(ctx, op, ivs)
}

/// The range of an index value when it is an integer constant (a unit dimension indexed
/// with `%c0`) or the induction variable of an enclosing loop with constant bounds.
fn index_range(ctx: &Context, op: OpId, value: Value) -> Option<Interval> {
    if let Some(def) = ctx.defining_op(value)
        && ctx.op_name(def) == "arith.constant"
        && let Some(attr) = tb_ir::rewrite::folder::constant_value(ctx, def)
        && let tb_ir::AttrKind::Integer { value: c, .. } = ctx.attr_kind(attr)
        && let Ok(c) = i64::try_from(*c)
    {
        return Some(Interval { lo: c, hi: c });
    }
    let mut at = ctx.parent_op(op);
    while let Some(parent) = at {
        if super::is_loop(ctx, parent)
            && let Some(dims) = super::loop_dims(ctx, parent)
            && let Some(dim) = dims.iter().find(|d| d.induction_var == value)
        {
            let lo = dim.lower.constant()?;
            let hi = dim.upper.constant()?;
            if hi <= lo {
                return None;
            }
            let last = lo + (hi - 1 - lo) / dim.step * dim.step;
            return Some(Interval { lo, hi: last });
        }
        at = ctx.parent_op(parent);
    }
    None
}

/// `loop.load`, `loop.store` and their vector forms.
pub(crate) fn access(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let name = ctx.op_name(op);
    let is_store = name == super::STORE || name == VECTOR_STORE;
    let is_vector = name == VECTOR_LOAD || name == VECTOR_STORE;
    let base = usize::from(is_store);
    let memref = operand_group(ctx, op, base)[0];
    let indices = operand_group(ctx, op, base + 1).to_vec();
    if let Some(alignment) = super::access_alignment(ctx, op)
        && (alignment <= 0 || alignment & (alignment - 1) != 0)
    {
        return error(
            ctx,
            op,
            format!("alignment must be a positive power of two, but got {alignment}"),
        );
    }
    let memref_ty = ctx.value_type(memref);
    let Some((shape, element)) = memref_parts(ctx, memref_ty) else {
        return Ok(());
    };
    let what = format!("memref '{}'", type_to_string(ctx, memref_ty));
    let Some(map) = super::access_map(ctx, op) else {
        return error(ctx, op, "requires attribute 'map'".into());
    };
    if map.num_inputs() as usize != indices.len() {
        return error(
            ctx,
            op,
            format!(
                "index map takes {} inputs, but {} indices are given",
                map.num_inputs(),
                indices.len()
            ),
        );
    }
    if map.num_results() != shape.len() {
        return error(
            ctx,
            op,
            format!(
                "index map has {} results, but {what} has rank {}",
                map.num_results(),
                shape.len()
            ),
        );
    }
    let value_ty = if is_store {
        ctx.value_type(ctx.op(op).operands[0])
    } else {
        ctx.value_type(ctx.op(op).results[0])
    };
    let mut vector_shape: &[i64] = &[];
    if is_vector {
        let TypeKind::Vector {
            shape: vshape,
            element: velement,
            ..
        } = ctx.type_kind(value_ty)
        else {
            return Ok(());
        };
        if !ctx.is_signless_of(*velement, element) {
            return error(
                ctx,
                op,
                format!(
                    "vector type '{}' must have the (signless) element type of {what}",
                    type_to_string(ctx, value_ty)
                ),
            );
        }
        if vshape.len() > shape.len() {
            return error(
                ctx,
                op,
                format!(
                    "vector type '{}' has a higher rank than {what}",
                    type_to_string(ctx, value_ty)
                ),
            );
        }
        vector_shape = vshape;
    } else if !ctx.is_signless_of(value_ty, element) {
        return error(
            ctx,
            op,
            format!(
                "{} type '{}' must be the (signless) element type of {what}",
                if is_store { "stored value" } else { "result" },
                type_to_string(ctx, value_ty)
            ),
        );
    }
    // Bounds, where the indices are induction variables of loops with constant bounds.
    let dims = map.num_dims as usize;
    let ranges: Vec<Option<Interval>> = indices[..dims]
        .iter()
        .map(|&v| index_range(ctx, op, v))
        .collect();
    let lanes_map = extend_by_vector(shape.len(), vector_shape);
    crate::te::check_map_bounds(&map, &ranges, shape, &lanes_map, &what)
        .or_else(|m| error(ctx, op, m))
}

/// How many extra elements past the index each result of an access covers: `lanes - 1`
/// for the innermost dimensions a vector spans, 0 elsewhere.
fn extend_by_vector(rank: usize, vector_shape: &[i64]) -> Vec<i64> {
    let mut extra = vec![0; rank];
    for (i, &lanes) in vector_shape.iter().rev().enumerate() {
        if let Some(slot) = rank.checked_sub(i + 1) {
            extra[slot] = (lanes - 1).max(0);
        }
    }
    extra
}

pub(crate) fn broadcast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let input = ctx.value_type(ctx.op(op).operands[0]);
    let result = ctx.value_type(ctx.op(op).results[0]);
    if matches!(ctx.type_kind(input), TypeKind::Vector { .. })
        || ctx.type_kind(result).element() != Some(input)
    {
        return error(
            ctx,
            op,
            format!(
                "result '{}' must be a vector of the scalar input type '{}'",
                type_to_string(ctx, result),
                type_to_string(ctx, input)
            ),
        );
    }
    Ok(())
}

/// A `loop.yield` gives one value per iter_arg of its loop, of the iter_arg's type.
pub(crate) fn yield_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(parent) = ctx
        .parent_op(op)
        .filter(|&p| matches!(ctx.op_name(p), FOR | PARALLEL))
    else {
        return error(
            ctx,
            op,
            format!("expects parent op '{FOR}' or '{PARALLEL}'"),
        );
    };
    let carried: Vec<Type> = ctx
        .op(parent)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let operands = &ctx.op(op).operands;
    if operands.len() != carried.len() {
        return error(
            ctx,
            op,
            format!(
                "yields {} values, but the parent '{}' carries {}",
                operands.len(),
                ctx.op_name(parent),
                carried.len()
            ),
        );
    }
    for (i, (&value, &expected)) in operands.iter().zip(&carried).enumerate() {
        let ty = ctx.value_type(value);
        if ty != expected {
            return error(
                ctx,
                op,
                format!(
                    "types mismatch between yielded value #{i} ('{}') and the loop-carried value ('{}')",
                    type_to_string(ctx, ty),
                    type_to_string(ctx, expected)
                ),
            );
        }
    }
    Ok(())
}

/// A `loop.dot`: `acc` and the result are one `vector<W x i32>`, `b` a `vector<G*W x iN>`
/// and `a` a `vector<G x iN>` (the group every lane multiplies), with `N` 8 or 16, so
/// that each lane's sum of `G` products is exact in 32 bits.
pub(crate) fn dot(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let operands = &ctx.op(op).operands;
    let vector = |v: Value| match ctx.type_kind(ctx.value_type(v)) {
        TypeKind::Vector { shape, element, .. } if shape.len() == 1 => {
            match ctx.type_kind(*element) {
                TypeKind::Integer { width, .. } => Some((shape[0], *width)),
                _ => None,
            }
        }
        _ => None,
    };
    let result = ctx.op(op).results[0];
    let acc = vector(operands[0]).filter(|&(_, w)| w == 32);
    let (Some((lanes, _)), Some((group, a_width)), Some((b_lanes, b_width))) =
        (acc, vector(operands[1]), vector(operands[2]))
    else {
        return error(
            ctx,
            op,
            "expects a 1-D vector of i32 accumulators and 1-D integer vectors a and b".into(),
        );
    };
    if ctx.value_type(result) != ctx.value_type(operands[0]) {
        return error(ctx, op, "result must have the accumulators' type".into());
    }
    if a_width != b_width || !matches!(a_width, 8 | 16) {
        return error(
            ctx,
            op,
            format!("a and b must both be of i8 or of i16, got i{a_width} and i{b_width}"),
        );
    }
    if b_lanes != group * lanes {
        return error(
            ctx,
            op,
            format!(
                "b must have {group} elements per accumulator lane ({} in all), got {b_lanes}",
                group * lanes
            ),
        );
    }
    Ok(())
}
