//! `convert-loop-to-gpu`: maps the loop nests of loop-level functions onto `gpu.launch`
//! kernels, so that everything a function computes runs on the GPU and its own body only
//! allocates buffers, takes views, launches kernels and returns.
//!
//! - A top-level `loop.parallel` with constant bounds becomes a one-dimensional grid of
//!   `block-size`-thread blocks (at most `max-blocks` of them). Each thread walks the
//!   flattened iteration space with a grid-stride `loop.for` (first iteration: its global
//!   id; step: the number of threads), so any iteration count is covered without a bounds
//!   check, and recovers the loop's indices by division and remainder. Inner loops
//!   (reductions) run sequentially inside the thread.
//! - Any other top-level computation (a sequential loop, a store, a copy) runs in a
//!   launch of one thread, in program order: correct, and slow only for what no parallel
//!   loop describes.
//! - A returned buffer that is a view (of a planned arena, say) is first copied into a
//!   buffer of its own, so a runtime can hand back whole allocations.
//!
//! What stays outside the kernels: constants and index arithmetic on them, allocations and
//! deallocations, globals and views. Kernels may use them: the NVPTX backend passes the
//! buffers as kernel parameters and recomputes constants and views inside the kernel.
//!
//! - A parallel loop whose body reduces over a long axis (at least `warp-reduce-min`
//!   elements; see `warp_reduce`) gives each output to a warp instead of a thread: the
//!   lanes split the reduction and combine their partial values with shuffles.
//! - When such a loop has few outputs (at most 512) and a reduction of at least
//!   `block-reduce-min` elements, each output takes a whole block instead (see
//!   `block_reduce`): the warps' values meet in a workgroup buffer between two barriers.
//!
//! The options are the mapping's knobs: `block-size` in [1, 1024], `max-blocks` in
//! [1, 2^31 - 1], `warp-reduce-min` (0 turns warps off) and `block-reduce-min` (0 turns
//! blocks off); a grid never has more blocks than the iteration space needs.

use tb_dialects::arith::ArithOp;
use tb_dialects::gpu;
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::memref::MemRefOp;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{AttrKind, BlockId, Context, Diagnostic, OpId, TypeKind, Value};

use super::{block_reduce, warp_reduce};
use crate::conversion::te_to_loop::builder::Builder;

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "block-size",
        kind: OptionKind::Int,
        default: "256",
        help: "Threads per block of each mapped parallel loop, in [1, 1024]",
    },
    PassOptionInfo {
        name: "max-blocks",
        kind: OptionKind::Int,
        default: "65535",
        help: "Most blocks per grid; threads then take several iterations each (grid-stride)",
    },
    PassOptionInfo {
        name: "warp-reduce-min",
        kind: OptionKind::Int,
        default: "64",
        help: "Reductions at least this long run one output per warp, combined with shuffles (0: never)",
    },
    PassOptionInfo {
        name: "block-reduce-min",
        kind: OptionKind::Int,
        default: "2048",
        help: "Reductions at least this long, in a loop of at most 512 outputs, run one output per block: warps combine with shuffles, then through a workgroup buffer (0: never)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-loop-to-gpu",
        description: "Map the loop nests of loop-level functions onto gpu.launch kernels",
        options: OPTIONS,
        create: |options: &PassOptions| {
            Box::new(LoopToGpu {
                block_size: options.int("block-size"),
                max_blocks: options.int("max-blocks"),
                warp_reduce_min: options.int("warp-reduce-min"),
                block_reduce_min: options.int("block-reduce-min"),
            })
        },
    }
}

struct LoopToGpu {
    block_size: i64,
    max_blocks: i64,
    warp_reduce_min: i64,
    block_reduce_min: i64,
}

impl Pass for LoopToGpu {
    fn argument(&self) -> &'static str {
        "convert-loop-to-gpu"
    }

    fn display_name(&self) -> &'static str {
        "ConvertLoopToGpu"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let at_root = |m: String| Diagnostic::error(ctx.op(op).loc, m);
        if !(1..=1024).contains(&self.block_size) {
            return Err(at_root(format!(
                "convert-loop-to-gpu: block-size={} is outside [1, 1024]",
                self.block_size
            )));
        }
        if !(1..=i64::from(i32::MAX)).contains(&self.max_blocks) {
            return Err(at_root(format!(
                "convert-loop-to-gpu: max-blocks={} is outside [1, 2147483647]",
                self.max_blocks
            )));
        }
        if self.warp_reduce_min < 0 {
            return Err(at_root(format!(
                "convert-loop-to-gpu: warp-reduce-min={} is negative",
                self.warp_reduce_min
            )));
        }
        if self.block_reduce_min < 0 {
            return Err(at_root(format!(
                "convert-loop-to-gpu: block-reduce-min={} is negative",
                self.block_reduce_min
            )));
        }
        let mut functions = Vec::new();
        if ctx.op_name(op) == "func.func" {
            functions.push(op);
        } else {
            ctx.walk_nested(op, &mut |inner| {
                if ctx.op_name(inner) == "func.func" {
                    functions.push(inner);
                }
            });
        }
        for func in functions {
            self.map_function(ctx, func)?;
        }
        Ok(())
    }
}

/// Ops that stay in the function body: no computation on buffer contents.
fn is_host_op(ctx: &Context, op: OpId, host_values: &std::collections::HashSet<Value>) -> bool {
    if gpu::GpuOp::of(ctx, op).is_some() {
        return true;
    }
    if let Some(kind) = LoopOp::of(ctx, op) {
        return matches!(kind, LoopOp::Alloc | LoopOp::Dealloc);
    }
    if let Some(kind) = MemRefOp::of(ctx, op) {
        use MemRefOp as M;
        return matches!(
            kind,
            M::Alloc
                | M::Dealloc
                | M::GetGlobal
                | M::View
                | M::Subview
                | M::ReinterpretCast
                | M::CollapseShape
                | M::ExpandShape
                | M::Cast
                | M::Dim
                | M::Rank
        );
    }
    // Scalar arithmetic on values known before any kernel runs (constants, sizes).
    ArithOp::of(ctx, op).is_some()
        && ctx.op(op).regions.is_empty()
        && ctx.op(op).operands.iter().all(|v| host_values.contains(v))
        && ctx
            .op(op)
            .results
            .iter()
            .all(|&r| !matches!(ctx.type_kind(ctx.value_type(r)), TypeKind::MemRef { .. }))
}

/// A `loop.parallel` whose bounds are all constants: its `(lower, step, extent)` per
/// dimension.
fn constant_parallel(ctx: &Context, op: OpId) -> Option<Vec<(i64, i64, i64)>> {
    if LoopOp::of(ctx, op) != Some(LoopOp::Parallel) {
        return None;
    }
    loop_::loop_dims(ctx, op)?
        .iter()
        .map(|dim| {
            let lower = dim.lower.map.constant_results()?;
            let upper = dim.upper.map.constant_results()?;
            // Several results mean max (lower) and min (upper).
            let lower = *lower.iter().max()?;
            let upper = *upper.iter().min()?;
            let step = dim.step;
            let extent = if upper <= lower {
                0
            } else {
                (upper - lower).checked_add(step - 1)? / step
            };
            Some((lower, step, extent))
        })
        .collect()
}

/// Whether the store `op` stores a value one of `ops` computes.
fn stored_from(ctx: &Context, op: OpId, ops: &[OpId]) -> bool {
    ctx.op(op)
        .operands
        .first()
        .and_then(|&v| ctx.defining_op(v))
        .is_some_and(|d| ops.contains(&d))
}

/// The buffers a function's caller can be handed whole: arguments and fresh allocations
/// and globals.
fn is_root_buffer(ctx: &Context, value: Value) -> bool {
    match ctx.defining_op(value) {
        None => true,
        Some(op) => {
            matches!(LoopOp::of(ctx, op), Some(LoopOp::Alloc))
                || matches!(
                    MemRefOp::of(ctx, op),
                    Some(MemRefOp::Alloc | MemRefOp::GetGlobal)
                )
        }
    }
}

impl LoopToGpu {
    fn map_function(&self, ctx: &mut Context, func: OpId) -> Result<(), Diagnostic> {
        let Some(&region) = ctx.op(func).regions.first() else {
            return Ok(());
        };
        let blocks = ctx.region(region).blocks.clone();
        let Some(&body) = blocks.first() else {
            return Ok(()); // a declaration
        };
        if blocks.len() > 1 {
            return Err(Diagnostic::error(
                ctx.op(func).loc,
                "convert-loop-to-gpu: functions with several blocks (cf branches) are not mapped to the GPU yet",
            ));
        }
        // A run-time branch or loop around kernels would become one serial kernel that the
        // NVPTX backend cannot emit: refused at the op until the host side runs scf itself.
        let mut control_flow = None;
        ctx.walk_nested(func, &mut |op| {
            if control_flow.is_none() && ctx.op_name(op).starts_with("scf.") {
                control_flow = Some(op);
            }
        });
        if let Some(op) = control_flow {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "convert-loop-to-gpu: run-time control flow ('{}') is not mapped to the GPU yet",
                    ctx.op_name(op)
                ),
            ));
        }
        copy_returned_views(ctx, body);
        let mut host_values: std::collections::HashSet<Value> =
            ctx.block(body).args.iter().copied().collect();
        let mut serial: Vec<OpId> = Vec::new();
        // Walked by links, not from a list made up front: a scalar that crosses kernels is
        // reloaded by a new op before its user, and that op needs a kernel too.
        let mut next = ctx.block(body).first;
        while let Some(op) = next {
            let terminator = ctx.block(body).last == Some(op);
            if terminator || is_host_op(ctx, op, &host_values) {
                if !terminator {
                    host_values.extend(ctx.op(op).results.iter().copied());
                }
                self.launch_serial(ctx, &mut serial)?;
                next = ctx.op(op).next;
                continue;
            }
            if let Some(dims) = constant_parallel(ctx, op) {
                self.launch_serial(ctx, &mut serial)?;
                // Read after the kernels before it are made (they may reload a scalar right
                // after this op) and before this op is replaced.
                next = ctx.op(op).next;
                self.launch_parallel(ctx, op, &dims)?;
                continue;
            }
            next = ctx.op(op).next;
            serial.push(op);
        }
        self.launch_serial(ctx, &mut serial)
    }

    /// Moves `ops` (consecutive, in order) into a launch of one thread.
    fn launch_serial(&self, ctx: &mut Context, ops: &mut Vec<OpId>) -> Result<(), Diagnostic> {
        if ops.is_empty() {
            return Ok(());
        }
        // A scalar the kernel computes and later code uses goes through a 0-d buffer: the
        // kernel stores it, each later use loads it where it is used.
        for &op in ops.iter() {
            let results = ctx.op(op).results.to_vec();
            for result in results {
                let outside: Vec<(OpId, u32)> = ctx
                    .value(result)
                    .uses
                    .iter()
                    .filter(|u| !ops.iter().any(|&o| ctx.is_inside(o, u.op)))
                    .map(|u| (u.op, u.index))
                    .collect();
                if outside.is_empty() {
                    continue;
                }
                let ty = ctx.value_type(result);
                let scalar = matches!(
                    ctx.type_kind(ty),
                    TypeKind::Index | TypeKind::Integer { .. } | TypeKind::Float(_)
                );
                if !scalar {
                    return Err(Diagnostic::error(
                        ctx.op(op).loc,
                        format!(
                            "convert-loop-to-gpu: '{}' op computes a non-scalar value used outside the kernel it is mapped to",
                            ctx.op_name(op)
                        ),
                    ));
                }
                let loc = ctx.op(op).loc;
                let buffer_type = ctx.intern_type(TypeKind::MemRef {
                    shape: vec![],
                    element: ty,
                    layout: None,
                    memory_space: None,
                });
                let slot = Builder::before(ops[0], loc).alloc(ctx, buffer_type);
                let after = ctx.op(op).next;
                let store_at = match after {
                    Some(next) => Builder::before(next, loc),
                    None => {
                        return Err(Diagnostic::error(
                            loc,
                            "convert-loop-to-gpu: op ends its block",
                        ));
                    }
                };
                store_at.store(ctx, result, slot, &[]);
                // One reload per user, however many of its operands it feeds.
                let mut reloads: Vec<(OpId, Value)> = Vec::new();
                for (user, index) in outside {
                    let reload = match reloads.iter().find(|(u, _)| *u == user) {
                        Some(&(_, v)) => v,
                        None => {
                            let user_loc = ctx.op(user).loc;
                            let v = Builder::before(user, user_loc).load(
                                ctx,
                                slot,
                                AffineMap::new(0, 0, vec![]),
                                &[],
                            );
                            reloads.push((user, v));
                            v
                        }
                    };
                    ctx.set_operand(user, index as usize, reload);
                }
            }
        }
        // The group is consecutive; the stores just added sit inside it or right after
        // its last op, and belong to the kernel too.
        let first = ops[0];
        let mut last = *ops.last().expect("not empty");
        while let Some(next) = ctx.op(last).next
            && LoopOp::of(ctx, next) == Some(LoopOp::Store)
            && stored_from(ctx, next, ops)
        {
            last = next;
        }
        let mut range = Vec::new();
        let mut at = Some(first);
        while let Some(o) = at {
            range.push(o);
            if o == last {
                break;
            }
            at = ctx.op(o).next;
        }
        *ops = range;
        let loc = ctx.op(first).loc;
        let (_, inside) = create_launch(ctx, Builder::before(first, loc), 1, 1);
        for op in ops.drain(..) {
            ctx.unlink_op(op);
            inside.insert(ctx, op);
        }
        Ok(())
    }

    /// Maps a parallel loop with constant bounds onto a grid-stride kernel.
    fn launch_parallel(
        &self,
        ctx: &mut Context,
        op: OpId,
        dims: &[(i64, i64, i64)],
    ) -> Result<(), Diagnostic> {
        let loc = ctx.op(op).loc;
        let total = dims
            .iter()
            .try_fold(1i64, |n, &(_, _, e)| n.checked_mul(e))
            .ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    "convert-loop-to-gpu: the loop's iteration count does not fit in 64 bits",
                )
            })?;
        if total == 0 {
            ctx.erase_op(op);
            return Ok(());
        }
        let reductions = warp_reduce::reductions(ctx, op);
        let warp = i64::from(gpu::WARP_SIZE);
        let on_blocks = block_reduce::prefers_blocks(&reductions, total, self.block_reduce_min);
        let on_warps =
            !on_blocks && warp_reduce::prefers_warps(ctx, &reductions, total, self.warp_reduce_min);
        // A "worker" takes one output at a time: a thread, a warp of 32 lanes, or a block.
        let block_size = if on_warps || on_blocks {
            (self.block_size / warp).max(1) * warp
        } else {
            self.block_size.min(total)
        };
        let lanes = match (on_blocks, on_warps) {
            (true, _) => block_size,
            (false, true) => warp,
            _ => 1,
        };
        let workers_per_block = block_size / lanes;
        let blocks = ((total + workers_per_block - 1) / workers_per_block).min(self.max_blocks);
        let threads = blocks * workers_per_block;
        let workgroup: Vec<tb_ir::Type> = if on_blocks {
            reductions
                .iter()
                .map(|r| block_reduce::partials_type(ctx, r, block_size))
                .collect()
        } else {
            Vec::new()
        };
        let (args, inside) = create_launch_with(
            ctx,
            Builder::before(op, loc),
            [blocks, 1, 1],
            [block_size, 1, 1],
            &workgroup,
        );
        // The worker's first iteration: block id * block size + thread id (divided by the
        // warp size on warps, whose lane is the thread id modulo 32; the block id on
        // blocks).
        let (global_id, lane) = if on_blocks {
            (args[0], Some(args[3]))
        } else {
            let global_id = {
                let scaled = inside.binary(ctx, "arith.muli", args[0], args[9]);
                inside.binary(ctx, "arith.addi", scaled, args[3])
            };
            if on_warps {
                let warp = inside.index_constant(ctx, lanes);
                (
                    inside.binary(ctx, "arith.divui", global_id, warp),
                    Some(inside.binary(ctx, "arith.remui", args[3], warp)),
                )
            } else {
                (global_id, None)
            }
        };
        let lower = ctx.intern_attr(AttrKind::AffineMap(AffineMap::new(
            1,
            0,
            vec![AffineExpr::dim(0)],
        )));
        let upper = ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(total)));
        let i64_ty = ctx.i64();
        let step = ctx.integer_attr(threads.into(), i64_ty);
        let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
        let segments = ctx.intern_attr(AttrKind::DenseArray {
            element: i32_ty,
            data: tb_ir::attributes::DenseArrayData::Int(vec![1, 0, 0]),
        });
        let stride_loop = inside.create(
            ctx,
            loop_::FOR,
            vec![global_id],
            vec![],
            vec![
                ("lower_bound", lower),
                ("upper_bound", upper),
                ("step", step),
                ("operandSegmentSizes", segments),
            ],
            1,
        );
        let loop_block = ctx.create_block();
        ctx.append_block(ctx.op(stride_loop).regions[0], loop_block);
        let index = ctx.index_type();
        let flat = ctx.add_block_argument(loop_block, index, None);
        let yield_op =
            Builder::at_end(loop_block, loc).create(ctx, loop_::YIELD, vec![], vec![], vec![], 0);
        let at = Builder::before(yield_op, loc);
        // Recover each index: lower + step * ((flat / stride) % extent), x fastest last.
        let old_ivs = loop_::induction_vars(ctx, op);
        let mut stride = 1i64;
        let mut new_ivs = vec![flat; dims.len()];
        for (d, &(lower, step, extent)) in dims.iter().enumerate().rev() {
            let mut value = flat;
            if stride > 1 {
                let s = at.index_constant(ctx, stride);
                value = at.binary(ctx, "arith.divui", value, s);
            }
            if d > 0 {
                let e = at.index_constant(ctx, extent);
                value = at.binary(ctx, "arith.remui", value, e);
            }
            if step != 1 {
                let s = at.index_constant(ctx, step);
                value = at.binary(ctx, "arith.muli", value, s);
            }
            if lower != 0 {
                let l = at.index_constant(ctx, lower);
                value = at.binary(ctx, "arith.addi", value, l);
            }
            new_ivs[d] = value;
            stride = stride.saturating_mul(extent);
        }
        let old_body = loop_::body(ctx, op).ok_or_else(|| {
            Diagnostic::error(loc, "convert-loop-to-gpu: malformed loop.parallel")
        })?;
        let moved: Vec<OpId> = ctx
            .block_ops(old_body)
            .filter(|&o| LoopOp::of(ctx, o) != Some(LoopOp::Yield))
            .collect();
        for o in moved {
            ctx.unlink_op(o);
            at.insert(ctx, o);
        }
        for (old, new) in old_ivs.into_iter().zip(new_ivs) {
            ctx.replace_all_uses(old, new);
        }
        ctx.erase_op(op);
        match lane {
            Some(thread) if on_blocks => {
                let partials = &args[gpu::LAUNCH_BODY_ARGS..];
                for (r, &buffer) in reductions.iter().zip(partials) {
                    block_reduce::spread_over_block(ctx, r, thread, block_size, buffer);
                }
            }
            Some(lane) => {
                for r in &reductions {
                    warp_reduce::spread_over_lanes(ctx, r, lane);
                }
            }
            None => {}
        }
        Ok(())
    }
}

/// Creates `gpu.launch` with a one-dimensional grid and block and an empty body: its body
/// arguments and a builder before its terminator.
fn create_launch(
    ctx: &mut Context,
    at: Builder,
    blocks: i64,
    block_size: i64,
) -> (Vec<Value>, Builder) {
    create_launch_with(ctx, at, [blocks, 1, 1], [block_size, 1, 1], &[])
}

/// [`create_launch_with`] right before `op`, at `op`'s location: the body's arguments and
/// where to build the kernel (before the body's terminator).
pub(super) fn launch_before(
    ctx: &mut Context,
    op: OpId,
    grid: [i64; 3],
    block: [i64; 3],
    workgroup: &[tb_ir::Type],
) -> (Vec<Value>, crate::schedule::build::At) {
    let loc = ctx.op(op).loc;
    let (args, inside) = create_launch_with(ctx, Builder::before(op, loc), grid, block, workgroup);
    let terminator = inside
        .insertion_op()
        .expect("a launch body's builder inserts before its terminator");
    (
        args,
        crate::schedule::build::At {
            before: terminator,
            loc,
        },
    )
}

/// Creates `gpu.launch` of `grid` blocks of `block` threads, with a workgroup buffer of
/// each type of `workgroup`, and an empty body: its body arguments (the twelve ids and
/// sizes, then the buffers) and a builder before its terminator.
pub(super) fn create_launch_with(
    ctx: &mut Context,
    at: Builder,
    grid: [i64; 3],
    block: [i64; 3],
    workgroup: &[tb_ir::Type],
) -> (Vec<Value>, Builder) {
    let sizes = grid
        .into_iter()
        .chain(block)
        .map(|n| at.index_constant(ctx, n))
        .collect();
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let segments = ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: tb_ir::attributes::DenseArrayData::Int(vec![0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]),
    });
    let i64_ty = ctx.i64();
    let count = ctx.integer_attr(workgroup.len() as i128, i64_ty);
    let launch = at.create(
        ctx,
        gpu::LAUNCH,
        sizes,
        vec![],
        vec![("operandSegmentSizes", segments)],
        1,
    );
    if !workgroup.is_empty() {
        let attributes = ctx.dictionary_attr(vec![(gpu::WORKGROUP_ATTRIBUTIONS.to_owned(), count)]);
        ctx.op_mut(launch).attributes = attributes;
    }
    let block = ctx.create_block();
    ctx.append_block(ctx.op(launch).regions[0], block);
    let index = ctx.index_type();
    let args = (0..gpu::LAUNCH_BODY_ARGS)
        .map(|_| index)
        .chain(workgroup.iter().copied())
        .map(|ty| ctx.add_block_argument(block, ty, None))
        .collect();
    let terminator =
        Builder::at_end(block, at.loc).create(ctx, gpu::TERMINATOR, vec![], vec![], vec![], 0);
    (args, Builder::before(terminator, at.loc))
}

/// Returned buffers that are views are copied into buffers of their own (by a parallel
/// loop, which is then mapped like any other).
fn copy_returned_views(ctx: &mut Context, body: BlockId) {
    let Some(ret) = ctx.block(body).last else {
        return;
    };
    let operands = ctx.op(ret).operands.to_vec();
    for (i, value) in operands.into_iter().enumerate() {
        let ty = ctx.value_type(value);
        let TypeKind::MemRef { shape, element, .. } = ctx.type_kind(ty).clone() else {
            continue;
        };
        if is_root_buffer(ctx, value) || shape.iter().any(|&d| d < 0) {
            continue;
        }
        let at = Builder::before(ret, ctx.op(ret).loc);
        let own = ctx.intern_type(TypeKind::MemRef {
            shape: shape.clone(),
            element,
            layout: None,
            memory_space: None,
        });
        let copy = at.alloc(ctx, own);
        if shape.is_empty() {
            let v = at.load(ctx, value, AffineMap::new(0, 0, vec![]), &[]);
            at.store(ctx, v, copy, &[]);
        } else {
            let (inside, ivs) = at.parallel(ctx, &shape);
            let map = AffineMap::identity(ivs.len() as u32);
            let v = inside.load(ctx, value, map, &ivs);
            inside.store(ctx, v, copy, &ivs);
        }
        ctx.set_operand(ret, i, copy);
    }
}
