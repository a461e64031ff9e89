//! `gpu` ops: a launch runs its body once per thread of every block, so every mapping of
//! loops to a GPU can be checked on a CPU against the levels above.
//!
//! Threads run one after another. A body that holds a `gpu.barrier`, a `gpu.shuffle` or
//! an `nvgpu.mma.sync` runs in lockstep instead: each op runs for every thread of a group
//! (the warp, or the whole block when there is a barrier) before the next op starts, so a
//! barrier is the boundary between two phases, and a shuffle or a warp's matrix
//! multiply-accumulate reads what the other lanes computed. A
//! `loop.for` around one of them runs in lockstep too, and its bounds must agree
//! between the threads of the group; any other op around one is refused. Each block has
//! its own workgroup buffers, shared by its threads.

use tb_dialects::gpu::{self, GpuOp, WARP_SIZE};
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::nvgpu::NvgpuOp;
use tb_ir::ods::OpKind;
use tb_ir::{BlockId, Context, Diagnostic, OpId, Value};

use super::loop_::{bound_value as loop_bound, new_buffer};
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
    Err("runs only inside a gpu.launch body, where the interpreter runs threads in lockstep".into())
}

/// Whether `op` is, or holds, an op that needs the other threads to have run the ops
/// before it.
fn synchronizes(ctx: &Context, op: OpId) -> bool {
    holds(ctx, op, |kind| {
        matches!(kind, GpuOp::Barrier | GpuOp::Shuffle)
    }) || holds_mma(ctx, op)
}

/// Whether `op` is, or holds, a warp's matrix multiply-accumulate.
fn holds_mma(ctx: &Context, op: OpId) -> bool {
    let warp_wide = |op| {
        matches!(
            NvgpuOp::of(ctx, op),
            Some(NvgpuOp::MmaSync | NvgpuOp::LdMatrix)
        )
    };
    let mut found = warp_wide(op);
    ctx.walk_nested(op, &mut |inner| {
        found |= warp_wide(inner);
    });
    found
}

pub(super) fn mma_outside_lockstep(_: &mut Interpreter, _: &mut Env, _: OpId) -> ExecResult {
    Err(
        "runs only inside a gpu.launch body, where the interpreter runs a warp's lanes in lockstep"
            .into(),
    )
}

/// Whether `op` is, or holds, a gpu op of a kind `pick` accepts.
fn holds(ctx: &Context, op: OpId, pick: impl Fn(GpuOp) -> bool) -> bool {
    if GpuOp::of(ctx, op).is_some_and(&pick) {
        return true;
    }
    let mut found = false;
    ctx.walk_nested(op, &mut |inner| {
        found |= GpuOp::of(ctx, inner).is_some_and(&pick);
    });
    found
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
    let lockstep = synchronizes(ctx, op);
    // Shuffles only exchange values within a warp, so warps may run one after another
    // unless a barrier makes the whole block wait.
    let group = if holds(ctx, op, |kind| kind == GpuOp::Barrier) {
        usize::MAX
    } else {
        WARP_SIZE as usize
    };
    let args = ctx.block(body).args.clone();
    let workgroup_types: Vec<tb_ir::Type> = gpu::workgroup_buffers(ctx, op)
        .iter()
        .map(|&b| ctx.value_type(b))
        .collect();
    for &ty in &workgroup_types {
        let static_shape = matches!(ctx.type_kind(ty), tb_ir::TypeKind::MemRef { shape, .. } if shape.iter().all(|&d| d >= 0));
        if !static_shape {
            return Err(format!(
                "has a workgroup buffer of type {} without a static shape",
                tb_ir::printer::type_to_string(ctx, ty)
            )
            .into());
        }
    }
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let block_ids = [x, y, z];
                let threads = thread_ids(bx, by, bz);
                // Each block gets fresh shared buffers (undefined until written: NaN), which
                // all its threads see.
                let shared = workgroup_types
                    .iter()
                    .map(|&ty| Ok(RtValue::Buffer(new_buffer(ctx, ty, &[])?)))
                    .collect::<ExecResult<Vec<_>>>()?;
                let arg_values = |t: [i64; 3]| -> Vec<RtValue> {
                    block_ids
                        .into_iter()
                        .chain(t)
                        .chain([gx, gy, gz, bx, by, bz])
                        .map(|v| RtValue::Scalar(Scalar::Int(v)))
                        .chain(shared.iter().cloned())
                        .collect()
                };
                if !shared.is_empty() {
                    interp.shared = Some(SharedAccesses::default());
                }
                let chunk = if lockstep {
                    group.min(threads.len())
                } else {
                    1
                };
                for (c, threads) in threads.chunks(chunk).enumerate() {
                    if let Some(accesses) = interp.shared.as_mut() {
                        accesses.first_thread = c * chunk;
                        accesses.thread = c * chunk;
                    }
                    if lockstep {
                        let mut locals: Vec<Env> = threads
                            .iter()
                            .map(|&t| args.iter().copied().zip(arg_values(t)).collect())
                            .collect();
                        run_in_lockstep(interp, env, body, &mut locals)?;
                    } else {
                        interp
                            .run_nested_block(env, body, arg_values(threads[0]))
                            .map_err(located)?;
                    }
                }
            }
        }
    }
    interp.shared = None;
    Ok(())
}

/// Who touched each element of a block's workgroup buffers in the current phase (the
/// ops between two barriers). A thread reading what another wrote in the same phase, or
/// writing what another read or wrote, races with it: the interpreter's lockstep order
/// would give it an answer, but a GPU gives none, so such an access is an error.
#[derive(Default)]
pub(crate) struct SharedAccesses {
    /// The block's linear id (x fastest) of the thread running now.
    thread: usize,
    /// The id of the first thread of the group running in lockstep.
    first_thread: usize,
    /// Barriers passed so far.
    phase: u64,
    /// By (storage, position): the phase of the last access and who made it.
    elements: rustc_hash::FxHashMap<(usize, usize), ElementAccess>,
    /// Each thread's asynchronous copies still in flight.
    pub(super) async_copies: rustc_hash::FxHashMap<usize, super::async_copy::InFlight>,
}

impl SharedAccesses {
    /// The block's linear id of the thread running now.
    pub(super) fn thread(&self) -> usize {
        self.thread
    }
}

#[derive(Clone, Copy)]
struct ElementAccess {
    phase: u64,
    writer: Option<usize>,
    /// A thread that read it, and whether others did too.
    reader: Option<usize>,
    many_readers: bool,
}

/// Records a `loop.load`/`loop.store`/`memref.load`/`memref.store` of `buffer` (operand
/// `operand` of `op`) at `indices` when it is a workgroup buffer of the running launch,
/// and reports a race with another thread of the block.
pub(super) fn note_shared_access(
    interp: &mut Interpreter,
    op: OpId,
    operand: usize,
    buffer: &super::buffer::Buffer,
    indices: &[i64],
    write: bool,
) -> ExecResult {
    let ctx = interp.ctx;
    let ty = ctx.value_type(ctx.op(op).operands[operand]);
    if !gpu::is_workgroup_memref(ctx, ty) {
        return Ok(());
    }
    record_shared_access(interp, buffer, indices, write)
}

/// Records an access of the running thread to element `indices` of workgroup buffer
/// `buffer`, and reports a race with another thread of the block.
pub(super) fn record_shared_access(
    interp: &mut Interpreter,
    buffer: &super::buffer::Buffer,
    indices: &[i64],
    write: bool,
) -> ExecResult {
    let Some(accesses) = interp.shared.as_mut() else {
        return Ok(());
    };
    let position = buffer.position(indices)?;
    let (thread, phase) = (accesses.thread, accesses.phase);
    let entry = accesses
        .elements
        .entry((buffer.storage_id(), position))
        .or_insert(ElementAccess {
            phase,
            writer: None,
            reader: None,
            many_readers: false,
        });
    if entry.phase != phase {
        *entry = ElementAccess {
            phase,
            writer: None,
            reader: None,
            many_readers: false,
        };
    }
    let other_writer = entry.writer.filter(|&w| w != thread);
    let other_reader = match entry.reader {
        Some(r) if r != thread => Some(format!("thread {r} read")),
        Some(_) if entry.many_readers => Some("other threads read".to_owned()),
        _ => None,
    };
    let race = match (write, other_writer, other_reader) {
        (_, Some(w), _) => Some(format!("thread {w} wrote")),
        (true, None, Some(readers)) => Some(readers),
        _ => None,
    };
    if let Some(earlier) = race {
        let verb = if write { "writes" } else { "reads" };
        return Err(format!(
            "races: thread {thread} {verb} element {indices:?} of a workgroup buffer that {earlier} since the last gpu.barrier (a barrier is missing between them)"
        )
        .into());
    }
    if write {
        entry.writer = Some(thread);
    } else {
        match entry.reader {
            None => entry.reader = Some(thread),
            Some(r) if r != thread => entry.many_readers = true,
            Some(_) => {}
        }
    }
    Ok(())
}

fn located(d: Diagnostic) -> ExecError {
    ExecError::Located(Box::new(d))
}

/// An error located at `op`, its message starting with the op's name as MLIR's do.
fn op_error(ctx: &Context, op: OpId, message: String) -> ExecError {
    located(Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {message}", ctx.op_name(op)),
    ))
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

/// Runs the ops of `block` for a group of threads (a warp, or the whole block when a
/// barrier is involved), each op for every thread before the next, so a barrier is the
/// boundary between two phases and a shuffle reads what the other lanes computed. A
/// `loop.for` that holds a barrier or shuffle runs in lockstep too: its bounds must be
/// the same for every thread of the group, as on hardware where such a loop would
/// otherwise deadlock or read lanes that left. Each thread keeps the values it defines in
/// its own `locals`; what the block's `loop.yield` yields is returned per thread.
fn run_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    block: BlockId,
    locals: &mut [Env],
) -> ExecResult<Vec<Vec<RtValue>>> {
    let ctx = interp.ctx;
    for op in ctx.block_ops(block) {
        match GpuOp::of(ctx, op) {
            Some(GpuOp::Terminator) => break,
            // Every thread has run the ops before: that is the barrier.
            Some(GpuOp::Barrier) => {
                if let Some(shared) = interp.shared.as_mut() {
                    shared.phase += 1;
                }
                continue;
            }
            Some(GpuOp::Shuffle) => {
                shuffle_in_lockstep(interp, env, op, locals)?;
                continue;
            }
            _ => {}
        }
        match NvgpuOp::of(ctx, op) {
            Some(NvgpuOp::MmaSync) => {
                mma_in_lockstep(interp, env, op, locals)?;
                continue;
            }
            Some(NvgpuOp::LdMatrix) => {
                ldmatrix_in_lockstep(interp, env, op, locals)?;
                continue;
            }
            // Each thread's own copies: run per thread below.
            Some(
                NvgpuOp::DeviceAsyncCopy
                | NvgpuOp::DeviceAsyncCreateGroup
                | NvgpuOp::DeviceAsyncWait,
            )
            | None => {}
        }
        match LoopOp::of(ctx, op) {
            Some(LoopOp::Yield) => {
                return locals
                    .iter()
                    .map(|thread| {
                        ctx.op(op)
                            .operands
                            .iter()
                            .map(|v| read_local(env, thread, *v))
                            .collect()
                    })
                    .collect();
            }
            Some(LoopOp::For) if synchronizes(ctx, op) => {
                for_in_lockstep(interp, env, op, locals)?;
                continue;
            }
            _ => {}
        }
        if synchronizes(ctx, op) {
            return Err(located(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "'{}' op holds a gpu.barrier, gpu.shuffle or nvgpu.mma.sync; the interpreter runs them only at the top level of a gpu.launch body or inside loop.for loops",
                    ctx.op_name(op)
                ),
            )));
        }
        for (t, thread) in locals.iter_mut().enumerate() {
            if let Some(shared) = interp.shared.as_mut() {
                shared.thread = shared.first_thread + t;
            }
            bring_in(ctx, env, thread, op);
            interp.run_op(env, op).map_err(located)?;
            for &result in &ctx.op(op).results {
                if let Some(rt) = env.get(&result) {
                    thread.insert(result, rt.clone());
                }
            }
        }
    }
    Ok(Vec::new())
}

/// Puts the thread's own values that `op` may read into the shared environment: its
/// operands, or everything when nested regions may read any of them.
fn bring_in(ctx: &Context, env: &mut Env, thread: &Env, op: OpId) {
    if ctx.op(op).regions.is_empty() {
        for v in &ctx.op(op).operands {
            if let Some(rt) = thread.get(v) {
                env.insert(*v, rt.clone());
            }
        }
    } else {
        env.extend(thread.iter().map(|(v, rt)| (*v, rt.clone())));
    }
}

fn read_local(env: &Env, thread: &Env, value: Value) -> ExecResult<RtValue> {
    thread
        .get(&value)
        .or_else(|| env.get(&value))
        .cloned()
        .ok_or_else(|| ExecError::from("uses a value that has not been computed"))
}

/// A `loop.for` holding a barrier or shuffle: every thread of the group runs each
/// iteration's ops in lockstep.
fn for_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    locals: &mut [Env],
) -> ExecResult {
    let ctx = interp.ctx;
    let fail = |m: String| op_error(ctx, op, m);
    let dims = loop_::loop_dims(ctx, op).ok_or_else(|| fail("has malformed bounds".into()))?;
    let [dim] = dims.as_slice() else {
        return Err(fail("must have one dimension".into()));
    };
    if dim.step <= 0 {
        return Err(fail(format!("has non-positive step {}", dim.step)));
    }
    let body = loop_::body(ctx, op).ok_or_else(|| fail("has no body".into()))?;
    let mut bounds = None;
    let mut carried = Vec::with_capacity(locals.len());
    for thread in locals.iter() {
        for v in dim.lower.operands.iter().chain(&dim.upper.operands) {
            if let Some(rt) = thread.get(v) {
                env.insert(*v, rt.clone());
            }
        }
        let these = (
            loop_bound(env, &dim.lower, true)?,
            loop_bound(env, &dim.upper, false)?,
        );
        if bounds.is_some_and(|b| b != these) {
            return Err(fail(
                "holds a gpu.barrier, gpu.shuffle or nvgpu.mma.sync but its bounds differ between the threads that must run it together".into(),
            ));
        }
        bounds = Some(these);
        carried.push(
            loop_::inits(ctx, op)
                .iter()
                .map(|v| read_local(env, thread, *v))
                .collect::<ExecResult<Vec<_>>>()?,
        );
    }
    let Some((lower, upper)) = bounds else {
        return Ok(());
    };
    let args = ctx.block(body).args.clone();
    let mut iv = lower;
    while iv < upper {
        for (thread, values) in locals.iter_mut().zip(carried.drain(..)) {
            thread.insert(args[0], RtValue::Scalar(Scalar::Int(iv)));
            for (&arg, value) in args[1..].iter().zip(values) {
                thread.insert(arg, value);
            }
        }
        carried = run_in_lockstep(interp, env, body, locals)?;
        iv = match iv.checked_add(dim.step) {
            Some(next) => next,
            None => break,
        };
    }
    for (thread, values) in locals.iter_mut().zip(carried) {
        for (&result, value) in ctx.op(op).results.iter().zip(values) {
            thread.insert(result, value);
        }
    }
    Ok(())
}

/// Each thread reads the value of the lane its mode and offset choose, within its warp.
/// `nvgpu.mma.sync` for every warp of the group: gathers the warp's fragments of `A`, `B`
/// and `C` from its 32 lanes, computes `A B + C` (exact products, summed in f64 and
/// rounded to f32 once: tensor cores sum in an order of their own), and gives each lane
/// its fragment of the result.
fn mma_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    locals: &mut [Env],
) -> ExecResult {
    use tb_dialects::nvgpu::fragment;
    let ctx = interp.ctx;
    let fail = |m: String| op_error(ctx, op, m);
    let warp = whole_warps(ctx, op, locals.len())?;
    let operands = ctx.op(op).operands.clone();
    let result = ctx.op(op).results[0];
    let result_type = ctx.value_type(result);
    let read = |thread: &Env, i: usize| -> Result<Vec<f64>, ExecError> {
        match thread.get(&operands[i]).or_else(|| env.get(&operands[i])) {
            Some(RtValue::Tensor(t)) => Ok((0..t.numel())
                .map(|e| super::value::read_element(t.data(), e).as_float())
                .collect()),
            _ => Err(fail(format!("operand #{i} has not been computed"))),
        }
    };
    for lanes in locals.chunks_mut(warp) {
        let mut a = [[0f64; 16]; 16];
        let mut b = [[0f64; 8]; 16];
        let mut c = [[0f64; 8]; 16];
        for (lane, thread) in lanes.iter().enumerate() {
            let lane_id = lane as u32;
            let (va, vb, vc) = (read(thread, 0)?, read(thread, 1)?, read(thread, 2)?);
            for (&(r, k), v) in fragment::a(lane_id).iter().zip(va) {
                a[r as usize][k as usize] = v;
            }
            for (&(k, n), v) in fragment::b(lane_id).iter().zip(vb) {
                b[k as usize][n as usize] = v;
            }
            for (&(r, n), v) in fragment::c(lane_id).iter().zip(vc) {
                c[r as usize][n as usize] = v;
            }
        }
        for (lane, thread) in lanes.iter_mut().enumerate() {
            let mut data = crate::tensor::TensorData::zeros(
                super::value::ElemType::of(ctx, result_type)?.dtype()?,
                4,
            );
            for (e, &(r, n)) in fragment::c(lane as u32).iter().enumerate() {
                let (r, n) = (r as usize, n as usize);
                let sum: f64 = (0..16).map(|k| a[r][k] * b[k][n]).sum::<f64>() + c[r][n];
                super::value::write_element(&mut data, e, Scalar::Float(sum));
            }
            let d = crate::tensor::Tensor::new(vec![2, 2], data).map_err(|e| fail(e.0))?;
            thread.insert(result, RtValue::Tensor(d));
        }
    }
    Ok(())
}

/// The warp size, if a group of `threads` threads is whole warps (a warp-wide op needs
/// all 32 lanes).
fn whole_warps(ctx: &Context, op: OpId, threads: usize) -> ExecResult<usize> {
    let warp = WARP_SIZE as usize;
    if !threads.is_multiple_of(warp) {
        return Err(op_error(
            ctx,
            op,
            format!("needs whole warps, but runs in a group of {threads} threads"),
        ));
    }
    Ok(warp)
}

/// `nvgpu.ldmatrix` for every warp of the group: lane `8 m + r` names row `r` of matrix
/// `m` (its indices: the row's first element), and each lane takes, of each matrix, the
/// two elements at its fragment place (see `nvgpu::ldmatrix_form`'s op for the layout).
fn ldmatrix_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    locals: &mut [Env],
) -> ExecResult {
    let ctx = interp.ctx;
    let fail = |m: String| op_error(ctx, op, m);
    let warp = whole_warps(ctx, op, locals.len())?;
    let (tiles, transpose) = tb_dialects::nvgpu::ldmatrix_form(ctx, op)
        .ok_or_else(|| fail("has no numTiles or transpose".into()))?;
    let operands = ctx.op(op).operands.clone();
    let result = ctx.op(op).results[0];
    let dtype = super::value::ElemType::of(ctx, ctx.value_type(result))?.dtype()?;
    // Each lane's buffer and indices.
    let mut rows = Vec::with_capacity(locals.len());
    for thread in locals.iter() {
        let buffer = match thread.get(&operands[0]).or_else(|| env.get(&operands[0])) {
            Some(RtValue::Buffer(b)) => b.clone(),
            _ => return Err(fail("reads a buffer that has not been computed".into())),
        };
        let mut indices = Vec::with_capacity(operands.len() - 1);
        for v in &operands[1..] {
            match thread.get(v).or_else(|| env.get(v)) {
                Some(RtValue::Scalar(s)) => indices.push(s.as_int()),
                _ => return Err(fail("uses an index that has not been computed".into())),
            }
        }
        rows.push((buffer, indices));
    }
    for (w, lanes) in locals.chunks_mut(warp).enumerate() {
        for (lane, thread) in lanes.iter_mut().enumerate() {
            if let Some(accesses) = interp.shared.as_mut() {
                accesses.thread = accesses.first_thread + w * warp + lane;
            }
            let mut data = crate::tensor::TensorData::zeros(dtype, (2 * tiles) as usize);
            for m in 0..tiles as usize {
                for h in 0..2 {
                    let (source, offset) = if transpose {
                        (8 * m + 2 * (lane % 4) + h, lane / 4)
                    } else {
                        (8 * m + lane / 4, 2 * (lane % 4) + h)
                    };
                    let (buffer, base) = &rows[w * warp + source];
                    let mut at = base.clone();
                    if let Some(last) = at.last_mut() {
                        *last += offset as i64;
                    }
                    note_shared_access(interp, op, 0, buffer, &at, false)?;
                    let value = buffer.load(&at).map_err(fail)?;
                    super::value::write_element(&mut data, 2 * m + h, value);
                }
            }
            let fragment =
                crate::tensor::Tensor::new(vec![tiles, 2], data).map_err(|e| fail(e.0))?;
            thread.insert(result, RtValue::Tensor(fragment));
        }
    }
    Ok(())
}

fn shuffle_in_lockstep(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    locals: &mut [Env],
) -> ExecResult {
    let ctx = interp.ctx;
    let fail = |m: String| op_error(ctx, op, m);
    let mode = gpu::shuffle_mode(ctx, op).ok_or_else(|| fail("has no valid mode".into()))?;
    let operands = ctx.op(op).operands.clone();
    let results = ctx.op(op).results.clone();
    let read = |thread: &Env, v: Value| -> Result<Scalar, ExecError> {
        match thread.get(&v).or_else(|| env.get(&v)) {
            Some(RtValue::Scalar(s)) => Ok(*s),
            _ => Err(fail("uses a value that has not been computed".into())),
        }
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
        thread.insert(results[0], RtValue::Scalar(value));
        thread.insert(results[1], RtValue::Scalar(Scalar::Int(i64::from(valid))));
    }
    Ok(())
}
