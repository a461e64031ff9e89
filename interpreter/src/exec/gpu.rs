//! `gpu` ops: a launch runs its body once per thread of every block, so every mapping of
//! loops to a GPU can be checked on a CPU against the levels above.
//!
//! Threads run one after another. A body whose top level holds a `gpu.barrier` or a
//! `gpu.shuffle` runs in lockstep instead: each top-level op runs for every thread of the
//! block before the next op starts, so a barrier is the boundary between two phases and a
//! shuffle reads what the other threads of its warp computed. Barriers and shuffles nested
//! inside loops of the body are refused: the lockstep schedule is per top-level op.

use tb_dialects::gpu::{self, GpuOp, WARP_SIZE};
use tb_ir::ods::OpKind;
use tb_ir::{BlockId, Context, Diagnostic, OpId, Value};

use super::value::{RtValue, Scalar};
use super::{Env, ExecError, ExecResult, Handler, Interpreter};

/// Threads one launch may run in the interpreter (a CUDA grid allows far more, but each
/// interpreted thread costs microseconds).
const MAX_THREADS: i64 = 1 << 32;
/// Threads of one block, as CUDA limits them.
const MAX_BLOCK_THREADS: i64 = 1024;

pub(super) fn handler(kind: GpuOp) -> Option<Handler> {
    match kind {
        GpuOp::Launch => Some(launch),
        // Ends the body; the launch stops there.
        GpuOp::Terminator => None,
        // Their values are the body's arguments, bound per thread.
        GpuOp::BlockId | GpuOp::ThreadId | GpuOp::BlockDim | GpuOp::GridDim => Some(dimension),
        // Outside lockstep execution no other thread is waiting or exchanging values.
        GpuOp::Barrier => Some(outside_lockstep),
        GpuOp::Shuffle => Some(outside_lockstep),
    }
}

/// The launch each id op belongs to is its closest enclosing one.
fn enclosing_launch(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut at = ctx.parent_op(op);
    while let Some(parent) = at {
        if GpuOp::of(ctx, parent) == Some(GpuOp::Launch) {
            return Some(parent);
        }
        at = ctx.parent_op(parent);
    }
    None
}

fn dimension(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let dim = gpu::dimension(ctx, op).ok_or("has no valid dimension")?;
    let launch = enclosing_launch(ctx, op).ok_or("is not inside a gpu.launch")?;
    let body = gpu::launch_body(ctx, launch).ok_or("belongs to a malformed gpu.launch")?;
    let group = match GpuOp::of(ctx, op) {
        Some(GpuOp::BlockId) => 0,
        Some(GpuOp::ThreadId) => 3,
        Some(GpuOp::GridDim) => 6,
        _ => 9,
    };
    let arg = ctx.block(body).args[group + dim.index()];
    let value = env
        .get(&arg)
        .cloned()
        .ok_or("runs outside a thread of its launch")?;
    interp.set_result(env, op, 0, value)
}

fn outside_lockstep(_: &mut Interpreter, _: &mut Env, _: OpId) -> ExecResult {
    Err(
        "is only run by the interpreter at the top level of a gpu.launch body, not inside nested regions"
            .into(),
    )
}

/// Whether a top-level op of the body needs every thread to have run the ops before it.
fn synchronizes(ctx: &Context, op: OpId) -> bool {
    matches!(GpuOp::of(ctx, op), Some(GpuOp::Barrier | GpuOp::Shuffle))
}

fn launch(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let sizes = gpu::launch_sizes(ctx, op).ok_or("has malformed operands")?;
    let body = gpu::launch_body(ctx, op).ok_or("has no body")?;
    let mut dims = [0i64; 6];
    for (i, &size) in sizes.iter().enumerate() {
        let value = match env.get(&size) {
            Some(RtValue::Scalar(s)) => s.as_int(),
            _ => return Err(format!("size operand #{i} has not been computed").into()),
        };
        if value < 1 {
            return Err(format!(
                "launches a grid or block of size {value}: sizes must be positive"
            )
            .into());
        }
        dims[i] = value;
    }
    let [gx, gy, gz, bx, by, bz] = dims;
    let block_threads = bx.checked_mul(by).and_then(|n| n.checked_mul(bz));
    let Some(block_threads) = block_threads.filter(|&n| n <= MAX_BLOCK_THREADS) else {
        return Err(format!(
            "launches blocks of {bx}x{by}x{bz} threads; a block holds at most {MAX_BLOCK_THREADS}"
        )
        .into());
    };
    let blocks = gx.checked_mul(gy).and_then(|n| n.checked_mul(gz));
    if blocks
        .and_then(|b| b.checked_mul(block_threads))
        .is_none_or(|t| t > MAX_THREADS)
    {
        return Err(format!(
            "launches {gx}x{gy}x{gz} blocks of {block_threads} threads, more than the interpreter runs ({MAX_THREADS})"
        )
        .into());
    }
    let lockstep = ctx.block_ops(body).any(|o| synchronizes(ctx, o));
    let args = ctx.block(body).args.clone();
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let block_ids = [x, y, z];
                let threads = thread_ids(bx, by, bz);
                let arg_values = |t: [i64; 3]| -> Vec<RtValue> {
                    block_ids
                        .into_iter()
                        .chain(t)
                        .chain([gx, gy, gz, bx, by, bz])
                        .map(|v| RtValue::Scalar(Scalar::Int(v)))
                        .collect()
                };
                if lockstep {
                    run_block_in_lockstep(interp, env, body, &args, &threads, arg_values)?;
                } else {
                    for &t in &threads {
                        interp
                            .run_nested_block(env, body, arg_values(t))
                            .map_err(located)?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn located(d: Diagnostic) -> ExecError {
    ExecError::Located(Box::new(d))
}

/// The thread ids of a block in linear order (x fastest), as warps group them.
fn thread_ids(bx: i64, by: i64, bz: i64) -> Vec<[i64; 3]> {
    let mut ids = Vec::new();
    for z in 0..bz {
        for y in 0..by {
            for x in 0..bx {
                ids.push([x, y, z]);
            }
        }
    }
    ids
}

/// Runs each top-level op of `body` for every thread before the next; each thread keeps
/// the values its top-level ops defined.
fn run_block_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    body: BlockId,
    args: &[Value],
    threads: &[[i64; 3]],
    arg_values: impl Fn([i64; 3]) -> Vec<RtValue>,
) -> ExecResult {
    let ctx = interp.ctx;
    let mut locals: Vec<Vec<(Value, RtValue)>> = threads
        .iter()
        .map(|&t| args.iter().copied().zip(arg_values(t)).collect())
        .collect();
    for op in ctx.block_ops(body) {
        match GpuOp::of(ctx, op) {
            Some(GpuOp::Terminator) => break,
            // Every thread has run the ops before: that is the barrier.
            Some(GpuOp::Barrier) => continue,
            Some(GpuOp::Shuffle) => {
                shuffle_in_lockstep(interp, env, op, &mut locals)?;
                continue;
            }
            _ => {}
        }
        for thread_locals in locals.iter_mut() {
            for (value, rt) in thread_locals.iter() {
                env.insert(*value, rt.clone());
            }
            interp.run_op(env, op).map_err(located)?;
            for &result in &ctx.op(op).results {
                if let Some(rt) = env.get(&result) {
                    thread_locals.push((result, rt.clone()));
                }
            }
        }
    }
    Ok(())
}

fn local_scalar(locals: &[(Value, RtValue)], value: Value) -> Option<Scalar> {
    locals.iter().rev().find_map(|(v, rt)| match rt {
        RtValue::Scalar(s) if *v == value => Some(*s),
        _ => None,
    })
}

/// Each thread reads the value of the lane its mode and offset choose, within its warp.
fn shuffle_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    locals: &mut [Vec<(Value, RtValue)>],
) -> ExecResult {
    let ctx = interp.ctx;
    let fail = |m: String| {
        located(Diagnostic::error(
            ctx.op(op).loc,
            format!("'{}' op {m}", ctx.op_name(op)),
        ))
    };
    let mode = gpu::shuffle_mode(ctx, op).ok_or_else(|| fail("has no valid mode".into()))?;
    let operands = ctx.op(op).operands.clone();
    let results = ctx.op(op).results.clone();
    let read = |thread: &[(Value, RtValue)], v: Value| -> Result<Scalar, ExecError> {
        local_scalar(thread, v)
            .or_else(|| match env.get(&v) {
                Some(RtValue::Scalar(s)) => Some(*s),
                _ => None,
            })
            .ok_or_else(|| fail("uses a value that has not been computed".into()))
    };
    let mut values = Vec::with_capacity(locals.len());
    let mut lanes = Vec::with_capacity(locals.len());
    for thread in locals.iter() {
        values.push(read(thread, operands[0])?);
        let offset = read(thread, operands[1])?.as_int();
        let width = read(thread, operands[2])?.as_int();
        if !(1..=i64::from(WARP_SIZE)).contains(&width)
            || !(0..i64::from(WARP_SIZE)).contains(&offset)
        {
            return Err(fail(format!(
                "offset {offset} and width {width} must lie in [0, {WARP_SIZE}) and [1, {WARP_SIZE}]"
            )));
        }
        lanes.push((offset as u32, width as u32));
    }
    for (t, thread) in locals.iter_mut().enumerate() {
        let warp_start = t - t % WARP_SIZE as usize;
        let lane = (t % WARP_SIZE as usize) as u32;
        let (offset, width) = lanes[t];
        let (source, valid) = mode.source_lane(lane, offset, width);
        let source = warp_start + source as usize;
        // A lane past the block's last thread does not exist: the thread keeps its value.
        let (value, valid) = match values.get(source) {
            Some(v) if valid => (*v, true),
            _ => (values[t], false),
        };
        thread.push((results[0], RtValue::Scalar(value)));
        thread.push((results[1], RtValue::Scalar(Scalar::Int(i64::from(valid)))));
    }
    Ok(())
}
