//! `nvgpu`'s asynchronous copies, per thread: a copy is recorded when it starts and its
//! elements are written when a `device_async_wait` lets fewer of the thread's groups stay
//! in flight than there are, the latest a GPU may write them. So a read before the wait
//! sees what the buffer held before (NaN in a fresh workgroup buffer), and the race check
//! sees the writes both when the copy starts (the earliest a GPU may write them) and
//! when it completes: a barrier missing on either side is an error.

use std::collections::VecDeque;

use tb_dialects::nvgpu::{self, NvgpuOp};
use tb_ir::OpId;

use super::buffer::Buffer;
use super::gpu::record_shared_access;
use super::value::{RtValue, Scalar};
use super::{Env, ExecResult, Handler, Interpreter};

pub(super) fn handler(kind: NvgpuOp) -> Option<Handler> {
    Some(match kind {
        NvgpuOp::DeviceAsyncCopy => start,
        NvgpuOp::DeviceAsyncCreateGroup => close_group,
        NvgpuOp::DeviceAsyncWait => wait,
        NvgpuOp::MmaSync | NvgpuOp::LdMatrix => return None,
    })
}

/// One copy: `count` consecutive elements along the innermost dimension, the first
/// `valid` read from the source, the rest zero.
struct Copy {
    src: Buffer,
    src_start: Vec<i64>,
    dst: Buffer,
    dst_start: Vec<i64>,
    count: i64,
    valid: i64,
}

/// A thread's copies: those not yet in a group, then its groups, oldest first.
#[derive(Default)]
pub(crate) struct InFlight {
    open: Vec<Copy>,
    groups: VecDeque<Vec<Copy>>,
}

fn in_flight<'i>(interp: &'i mut Interpreter<'_>) -> ExecResult<&'i mut InFlight> {
    let shared = interp
        .shared
        .as_mut()
        .ok_or("runs only inside a gpu.launch that has workgroup buffers")?;
    let thread = shared.thread();
    Ok(shared.async_copies.entry(thread).or_default())
}

/// The element `offset` places along the innermost dimension from `start`.
fn along(start: &[i64], offset: i64) -> Vec<i64> {
    let mut at = start.to_vec();
    if let Some(last) = at.last_mut() {
        *last += offset;
    }
    at
}

fn start(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let copy = nvgpu::async_copy(ctx, op).ok_or("is malformed")?;
    let (dst_rank, src_rank) = (copy.dst_indices.len(), copy.src_indices.len());
    let has_src_elements = copy.src_elements.is_some();
    let count = copy.dst_elements;
    let indices = |interp: &Interpreter, env: &Env, from: usize, n: usize| {
        (from..from + n)
            .map(|i| interp.index_arg(env, op, i))
            .collect::<ExecResult<Vec<_>>>()
    };
    let dst = interp.buffer_arg(env, op, 0)?;
    let dst_start = indices(interp, env, 1, dst_rank)?;
    let src_at = 1 + dst_rank;
    let src = interp.buffer_arg(env, op, src_at)?;
    let src_start = indices(interp, env, src_at + 1, src_rank)?;
    let valid = if has_src_elements {
        interp.index_arg(env, op, src_at + 1 + src_rank)?
    } else {
        count
    };
    if !(0..=count).contains(&valid) {
        return Err(format!("reads {valid} source elements, outside [0, {count}]").into());
    }
    // Both ends must lie in their buffers (a GPU would fault or corrupt memory).
    dst.position(&along(&dst_start, count - 1))?;
    if valid > 0 {
        src.position(&along(&src_start, valid - 1))?;
    }
    for e in 0..count {
        record_shared_access(interp, &dst, &along(&dst_start, e), true)?;
    }
    in_flight(interp)?.open.push(Copy {
        src,
        src_start,
        dst,
        dst_start,
        count,
        valid,
    });
    interp.set_result(env, op, 0, RtValue::Scalar(Scalar::Int(0)))
}

fn close_group(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let copies = in_flight(interp)?;
    let group = std::mem::take(&mut copies.open);
    copies.groups.push_back(group);
    interp.set_result(env, op, 0, RtValue::Scalar(Scalar::Int(0)))
}

fn wait(interp: &mut Interpreter, _: &mut Env, op: OpId) -> ExecResult {
    let keep = nvgpu::groups_in_flight(interp.ctx, op).max(0) as usize;
    loop {
        let copies = in_flight(interp)?;
        if copies.groups.len() <= keep {
            return Ok(());
        }
        let group = copies.groups.pop_front().unwrap_or_default();
        for copy in group {
            complete(interp, &copy)?;
        }
    }
}

fn complete(interp: &mut Interpreter, copy: &Copy) -> ExecResult {
    let zero = if copy.dst.dtype().is_float() {
        Scalar::Float(0.0)
    } else {
        Scalar::Int(0)
    };
    for e in 0..copy.count {
        let value = if e < copy.valid {
            copy.src.load(&along(&copy.src_start, e))?
        } else {
            zero
        };
        let at = along(&copy.dst_start, e);
        record_shared_access(interp, &copy.dst, &at, true)?;
        copy.dst.store(&at, value)?;
    }
    Ok(())
}
