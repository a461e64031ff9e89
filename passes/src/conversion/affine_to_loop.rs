//! `convert-affine-to-loop`: rewrites the `affine` dialect into TensorBind's `loop` level,
//! so that upstream loop-level MLIR is scheduled, compiled and run like tb's own loops.
//!
//! - `affine.for` becomes `loop.for` with the same bound maps and operands, step and
//!   iter_args (the body moves over; `affine.yield` becomes `loop.yield`);
//! - `affine.parallel` without reductions becomes `loop.parallel`, one lower and upper bound
//!   map per dimension (the results of its group, over all the bound operands);
//! - `affine.load`/`affine.store` become `loop.load`/`loop.store` with the same map, and
//!   `affine.vector_load`/`affine.vector_store` become `loop.vector_load`/
//!   `loop.vector_store` (both read consecutive elements along the innermost dimensions);
//! - `affine.apply`, `affine.min` and `affine.max` become `arith` on `index` values
//!   (`floordiv`, `ceildiv` and `mod` by positive constants, rounding as MLIR does);
//! - `affine.prefetch` is dropped (a hint only).
//!
//! `affine.if`, reductions of `affine.parallel`, the index (de)linearizations, the DMA ops
//! and maps that divide by non-constants have no `loop` form: the pass fails on them with
//! their location.

use tb_dialects::affine::{self as aff, AffineOp};
use tb_dialects::loop_;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::ods::OpKind;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Attr, Context, Diagnostic, OpId, Signedness, Value};

use super::te_to_loop::builder::Builder;
use super::te_to_loop::index_arith;

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-affine-to-loop",
        description: "Convert affine loops, accesses and index maps to the loop dialect and arith",
        options: &[],
        create: |_: &PassOptions| Box::new(AffineToLoop),
    }
}

struct AffineToLoop;

impl Pass for AffineToLoop {
    fn argument(&self) -> &'static str {
        "convert-affine-to-loop"
    }

    fn display_name(&self) -> &'static str {
        "ConvertAffineToLoop"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut ops = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if AffineOp::of(ctx, inner).is_some() {
                ops.push(inner);
            }
        });
        for &inner in &ops {
            check_supported(ctx, inner)?;
        }
        // Loops first: their bodies move into the new loops, keeping the ops inside.
        for &inner in &ops {
            match AffineOp::of(ctx, inner) {
                Some(AffineOp::For) => convert_for(ctx, inner),
                Some(AffineOp::Parallel) => convert_parallel(ctx, inner)?,
                _ => {}
            }
        }
        for &inner in &ops {
            match AffineOp::of(ctx, inner) {
                Some(AffineOp::Yield) => convert_yield(ctx, inner),
                Some(AffineOp::Load) => rename_access(ctx, inner, loop_::LOAD),
                Some(AffineOp::Store) => rename_access(ctx, inner, loop_::STORE),
                Some(AffineOp::VectorLoad) => rename_access(ctx, inner, loop_::VECTOR_LOAD),
                Some(AffineOp::VectorStore) => rename_access(ctx, inner, loop_::VECTOR_STORE),
                Some(AffineOp::Apply | AffineOp::Min | AffineOp::Max) => convert_map_op(ctx, inner),
                Some(AffineOp::Prefetch) => ctx.erase_op(inner),
                _ => {}
            }
        }
        Ok(())
    }
}

fn unsupported(ctx: &Context, op: OpId, why: &str) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!(
            "'{}' op cannot be converted to the loop dialect: {why}",
            ctx.op_name(op)
        ),
    )
}

/// Why a map cannot become `arith` on `index` values, if it cannot.
fn map_unsupported(map: &AffineMap) -> Option<&'static str> {
    let as_dims = symbols_as_dims(map);
    as_dims.results.iter().find_map(index_arith::unsupported)
}

fn check_supported(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    match AffineOp::of(ctx, op) {
        Some(AffineOp::If) => Err(unsupported(ctx, op, "the loop dialect has no conditional")),
        Some(AffineOp::DelinearizeIndex | AffineOp::LinearizeIndex) => Err(unsupported(
            ctx,
            op,
            "index (de)linearization is not lowered yet",
        )),
        Some(AffineOp::DmaStart | AffineOp::DmaWait) => Err(unsupported(
            ctx,
            op,
            "the loop dialect has no asynchronous copies",
        )),
        Some(AffineOp::Parallel) if !ctx.op(op).results.is_empty() => {
            Err(unsupported(ctx, op, "loop.parallel has no reductions"))
        }
        Some(AffineOp::Apply | AffineOp::Min | AffineOp::Max) => {
            let map =
                aff::access_map(ctx, op).ok_or_else(|| unsupported(ctx, op, "it has no map"))?;
            match map_unsupported(&map) {
                Some(why) => Err(unsupported(ctx, op, &format!("its map {why}"))),
                None => Ok(()),
            }
        }
        Some(AffineOp::For) if aff::step(ctx, op).is_none_or(|s| s <= 0) => {
            Err(unsupported(ctx, op, "loop.for needs a positive step"))
        }
        _ => Ok(()),
    }
}

/// `map` with symbol `j` renamed to dim `num_dims + j`, so that its inputs are all dims.
fn symbols_as_dims(map: &AffineMap) -> AffineMap {
    let nd = map.num_dims;
    let dims: Vec<AffineExpr> = (0..nd).map(AffineExpr::dim).collect();
    let symbols: Vec<AffineExpr> = (0..map.num_symbols)
        .map(|j| AffineExpr::dim(nd + j))
        .collect();
    let results = map
        .results
        .iter()
        .map(|e| e.replace_dims_and_symbols(&dims, &symbols))
        .collect();
    AffineMap::new(map.num_inputs(), 0, results)
}

fn map_attr(ctx: &mut Context, map: AffineMap) -> Attr {
    ctx.intern_attr(AttrKind::AffineMap(map))
}

fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    })
}

/// Moves the body of `from` into the first region of `to`.
fn move_body(ctx: &mut Context, from: OpId, to: OpId) {
    let (Some(&old), Some(&new)) = (ctx.op(from).regions.first(), ctx.op(to).regions.first())
    else {
        return;
    };
    let blocks = ctx.take_blocks(old);
    ctx.insert_blocks(new, None, &blocks);
}

/// Replaces `old`'s results by `new`'s and erases `old`.
fn replace(ctx: &mut Context, old: OpId, new: OpId) {
    let pairs: Vec<(Value, Value)> = ctx
        .op(old)
        .results
        .iter()
        .copied()
        .zip(ctx.op(new).results.iter().copied())
        .collect();
    for (from, to) in pairs {
        ctx.replace_all_uses(from, to);
    }
    ctx.erase_op(old);
}

fn convert_for(ctx: &mut Context, op: OpId) {
    let (Some(lower), Some(upper), Some(step)) = (
        aff::map_named(ctx, op, "lowerBoundMap"),
        aff::map_named(ctx, op, "upperBoundMap"),
        aff::step(ctx, op),
    ) else {
        return;
    };
    let sizes = [
        aff::lower_operands(ctx, op).len(),
        aff::upper_operands(ctx, op).len(),
        aff::inits(ctx, op).len(),
    ];
    let operands = ctx.op(op).operands.to_vec();
    let result_types: Vec<_> = ctx
        .op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let lower = map_attr(ctx, lower);
    let upper = map_attr(ctx, upper);
    let i64_ty = ctx.i64();
    let step = ctx.integer_attr(step.into(), i64_ty);
    let sizes = segment_sizes(ctx, &sizes);
    let loc = ctx.op(op).loc;
    let new = Builder::before(op, loc).create(
        ctx,
        loop_::FOR,
        operands,
        result_types,
        vec![
            ("lower_bound", lower),
            ("upper_bound", upper),
            ("step", step),
            ("operandSegmentSizes", sizes),
        ],
        1,
    );
    move_body(ctx, op, new);
    replace(ctx, op, new);
}

fn convert_parallel(ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
    let (lower, upper) =
        aff::parallel_bounds(ctx, op).ok_or_else(|| unsupported(ctx, op, "malformed bounds"))?;
    let steps = ctx
        .op_inherent_or_attr(op, "steps")
        .and_then(|a| aff::int_array(ctx, a))
        .ok_or_else(|| unsupported(ctx, op, "malformed steps"))?;
    let all = ctx.op(op).operands.to_vec();
    let split = (lower.map.num_inputs() as usize).min(all.len());
    let mut operands = Vec::new();
    let mut sizes = [0usize; 2];
    let mut bound_maps = [Vec::new(), Vec::new()];
    for (side, (bounds, inputs)) in [(&lower, &all[..split]), (&upper, &all[split..])]
        .into_iter()
        .enumerate()
    {
        let mut first = 0;
        for &group in &bounds.groups {
            let indices: Vec<usize> = (first..first + group).collect();
            first += group;
            let map = bounds
                .map
                .sub_map(&indices)
                .ok_or_else(|| unsupported(ctx, op, "malformed bound groups"))?;
            bound_maps[side].push(map_attr(ctx, map));
            operands.extend_from_slice(inputs);
            sizes[side] += inputs.len();
        }
    }
    let [lowers, uppers] = bound_maps;
    let lowers = ctx.intern_attr(AttrKind::Array(lowers));
    let uppers = ctx.intern_attr(AttrKind::Array(uppers));
    let i64_ty = ctx.i64();
    let steps = ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(steps.iter().map(|&s| s.into()).collect()),
    });
    let sizes = segment_sizes(ctx, &sizes);
    let loc = ctx.op(op).loc;
    let new = Builder::before(op, loc).create(
        ctx,
        loop_::PARALLEL,
        operands,
        Vec::new(),
        vec![
            ("lower_bounds", lowers),
            ("upper_bounds", uppers),
            ("steps", steps),
            ("operandSegmentSizes", sizes),
        ],
        1,
    );
    move_body(ctx, op, new);
    replace(ctx, op, new);
    Ok(())
}

fn convert_yield(ctx: &mut Context, op: OpId) {
    let operands = ctx.op(op).operands.to_vec();
    let loc = ctx.op(op).loc;
    Builder::before(op, loc).create(ctx, loop_::YIELD, operands, Vec::new(), Vec::new(), 0);
    ctx.erase_op(op);
}

/// `affine.load`/`store` and `loop.load`/`store` share operands and their `map`.
fn rename_access(ctx: &mut Context, op: OpId, name: &str) {
    let Some(map) = aff::access_map(ctx, op) else {
        return;
    };
    let operands = ctx.op(op).operands.to_vec();
    let result_types: Vec<_> = ctx
        .op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let map = map_attr(ctx, map);
    let loc = ctx.op(op).loc;
    let new =
        Builder::before(op, loc).create(ctx, name, operands, result_types, vec![("map", map)], 0);
    replace(ctx, op, new);
}

fn convert_map_op(ctx: &mut Context, op: OpId) {
    let Some(map) = aff::access_map(ctx, op) else {
        return;
    };
    let map = symbols_as_dims(&map).simplify();
    let inputs = ctx.op(op).operands.to_vec();
    let at = Builder::before(op, ctx.op(op).loc);
    let values: Vec<Value> = map
        .results
        .iter()
        .map(|e| index_arith::emit(ctx, &at, e, &inputs))
        .collect();
    let combine = match ctx.op_name(op) {
        aff::MIN => "arith.minsi",
        _ => "arith.maxsi",
    };
    let Some((&first, rest)) = values.split_first() else {
        return;
    };
    let result = rest
        .iter()
        .fold(first, |acc, &v| at.binary(ctx, combine, acc, v));
    let old = ctx.op(op).results[0];
    ctx.replace_all_uses(old, result);
    ctx.erase_op(op);
}
