//! Kernels and estimated memory traffic of a function at the loop level, after every pass of
//! a pipeline (`tb-run --stats`): what the compiled model runs, loop-level fusion by other
//! passes included, where the `te-fuse` statistics only see the te level.
//!
//! A kernel is an op with regions directly in the function's body (a loop nest), as
//! `tb-run --profile` counts them. Each kernel is estimated to read every buffer it loads
//! from once and to write every buffer it stores to once, at the buffer's full size; a
//! buffer is the memref defined outside the kernel, seen through the views taken inside
//! it. Buffers allocated inside a kernel (tile buffers) stay in cache and are not counted,
//! nor are buffers of dynamic size. A `memref.copy` directly in the body moves its source
//! and target once and is counted as traffic, not as a kernel.

use std::collections::HashSet;

use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, Type, TypeKind, Value};

use super::access::elements;

/// Kernels and estimated bytes moved by one function (or several, summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopTraffic {
    /// Loop nests directly in the function's body.
    pub kernels: u64,
    /// Estimated bytes read: per kernel, each buffer it loads from once.
    pub bytes_read: u64,
    /// Estimated bytes written: per kernel, each buffer it stores to once.
    pub bytes_written: u64,
    /// Buffers of dynamic size a kernel accesses, whose bytes are not counted.
    pub dynamic_buffers: u64,
}

impl LoopTraffic {
    /// Bytes read and written.
    pub fn bytes_moved(&self) -> u64 {
        self.bytes_read.saturating_add(self.bytes_written)
    }

    /// Adds another function's figures to these.
    pub fn merge(&mut self, other: LoopTraffic) {
        self.kernels += other.kernels;
        self.bytes_read = self.bytes_read.saturating_add(other.bytes_read);
        self.bytes_written = self.bytes_written.saturating_add(other.bytes_written);
        self.dynamic_buffers += other.dynamic_buffers;
    }
}

/// How an op inside a kernel touches memory through its operands.
enum Access {
    Read(usize),
    Write(usize),
    ReadWrite { read: usize, write: usize },
}

fn access(ctx: &Context, op: OpId) -> Option<Access> {
    match ctx.op_name(op) {
        "loop.load" | "loop.vector_load" | "memref.load" => Some(Access::Read(0)),
        "loop.store" | "loop.vector_store" | "memref.store" => Some(Access::Write(1)),
        "memref.copy" => Some(Access::ReadWrite { read: 0, write: 1 }),
        _ => None,
    }
}

/// Ops that give another view of their first operand's buffer.
fn is_view(ctx: &Context, op: OpId) -> bool {
    matches!(
        ctx.op_name(op),
        "memref.subview"
            | "memref.view"
            | "memref.reinterpret_cast"
            | "memref.cast"
            | "memref.collapse_shape"
            | "memref.expand_shape"
            | "memref.reshape"
    )
}

/// The figures of the function `func` (an op whose first region's entry block is its body).
pub fn loop_traffic(ctx: &Context, func: OpId) -> LoopTraffic {
    let mut traffic = LoopTraffic::default();
    let Some(body) = ctx
        .op(func)
        .regions
        .first()
        .and_then(|&r| ctx.region(r).blocks.first().copied())
    else {
        return traffic;
    };
    for op in ctx.block_ops(body) {
        if !ctx.op(op).regions.is_empty() {
            traffic.kernels += 1;
            kernel_traffic(ctx, op, &mut traffic);
        } else if let Some(Access::ReadWrite { read, write }) = access(ctx, op) {
            let operands = &ctx.op(op).operands;
            add_buffer(ctx, operands[read], &mut traffic, true);
            add_buffer(ctx, operands[write], &mut traffic, false);
        }
    }
    traffic
}

/// Adds the buffers `kernel` reads and writes, each once per direction.
fn kernel_traffic(ctx: &Context, kernel: OpId, traffic: &mut LoopTraffic) {
    let mut inside: HashSet<OpId> = HashSet::from([kernel]);
    ctx.walk_nested(kernel, &mut |op| {
        inside.insert(op);
    });
    let mut read: Vec<Value> = Vec::new();
    let mut written: Vec<Value> = Vec::new();
    let note = |memref: Value, list: &mut Vec<Value>| {
        if let Some(buffer) = outside_buffer(ctx, memref, &inside)
            && !list.contains(&buffer)
        {
            list.push(buffer);
        }
    };
    ctx.walk_nested(kernel, &mut |op| {
        let operands = &ctx.op(op).operands;
        match access(ctx, op) {
            Some(Access::Read(i)) => note(operands[i], &mut read),
            Some(Access::Write(i)) => note(operands[i], &mut written),
            Some(Access::ReadWrite { read: r, write: w }) => {
                note(operands[r], &mut read);
                note(operands[w], &mut written);
            }
            None => {}
        }
    });
    for buffer in read {
        add_buffer(ctx, buffer, traffic, true);
    }
    for buffer in written {
        add_buffer(ctx, buffer, traffic, false);
    }
}

/// The buffer defined outside the kernel that `memref` views, or `None` when the kernel
/// allocates it itself.
fn outside_buffer(ctx: &Context, memref: Value, inside: &HashSet<OpId>) -> Option<Value> {
    let mut value = memref;
    loop {
        match ctx.value(value).def {
            ValueDef::Result { op, .. } if inside.contains(&op) => {
                if is_view(ctx, op) {
                    value = *ctx.op(op).operands.first()?;
                } else {
                    return None;
                }
            }
            ValueDef::BlockArgument { block, .. }
                if ctx
                    .block(block)
                    .parent
                    .and_then(|r| ctx.region(r).parent)
                    .is_some_and(|op| inside.contains(&op)) =>
            {
                // A loop-carried value or induction variable is not a buffer.
                return None;
            }
            _ => return Some(value),
        }
    }
}

fn add_buffer(ctx: &Context, buffer: Value, traffic: &mut LoopTraffic, read: bool) {
    match memref_bytes(ctx, ctx.value_type(buffer)) {
        Some(bytes) if read => traffic.bytes_read = traffic.bytes_read.saturating_add(bytes),
        Some(bytes) => traffic.bytes_written = traffic.bytes_written.saturating_add(bytes),
        None => traffic.dynamic_buffers += 1,
    }
}

/// Bytes of a static memref (`None` when a size or the element's width is unknown).
pub fn memref_bytes(ctx: &Context, ty: Type) -> Option<u64> {
    let TypeKind::MemRef { shape, element, .. } = ctx.type_kind(ty) else {
        return None;
    };
    let bits = match ctx.type_kind(*element) {
        TypeKind::Float(kind) => u64::from(kind.width()),
        TypeKind::Integer { width, .. } => u64::from(*width),
        TypeKind::Index => 64,
        _ => return None,
    };
    if shape.iter().any(|&d| d < 0) {
        return None;
    }
    let count = if shape.is_empty() { 1 } else { elements(shape) };
    Some(count.saturating_mul(bits).div_ceil(8))
}
