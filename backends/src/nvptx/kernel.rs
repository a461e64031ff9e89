//! Kernels: what each `gpu.launch` needs from the function around it.
//!
//! A launch body uses values defined outside it. Buffers the function owns or receives
//! (arguments, allocations, globals) and scalar arguments become kernel parameters; the
//! runtime passes them at launch. Everything else it uses — constants, index arithmetic,
//! views of those buffers — is recomputed at the start of the kernel by translating the
//! defining ops again, so a kernel needs nothing from the host but its parameters.

use rustc_hash::FxHashSet;
use tb_dialects::arith::ArithOp;
use tb_dialects::gpu::{self, GpuOp};
use tb_dialects::loop_::LoopOp;
use tb_dialects::memref::MemRefOp;
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{Context, Diagnostic, OpId, TypeKind, Value};

/// One `gpu.launch` as a kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel's symbol in the PTX module.
    pub name: String,
    pub(crate) launch: OpId,
    /// The values passed as parameters, in order.
    pub(crate) params: Vec<Value>,
    /// Ops of the host function recomputed at the kernel's start, in program order.
    pub(crate) rematerialized: Vec<OpId>,
}

/// Whether `value` is defined inside `launch` (by a nested op or as a nested block's
/// argument).
fn defined_inside(ctx: &Context, launch: OpId, value: Value) -> bool {
    match ctx.value(value).def {
        ValueDef::Result { op, .. } => ctx.is_inside(launch, op),
        ValueDef::BlockArgument { block, .. } => ctx
            .block(block)
            .parent
            .and_then(|r| ctx.region(r).parent)
            .is_some_and(|owner| ctx.is_inside(launch, owner)),
        ValueDef::Placeholder => false,
    }
}

/// A value the runtime provides: a buffer the function receives, allocates or takes from
/// a global, or a scalar argument.
pub(crate) fn is_parameter(ctx: &Context, value: Value) -> bool {
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

/// Ops a kernel may recompute: pure scalar arithmetic and views.
fn is_rematerializable(ctx: &Context, op: OpId) -> bool {
    if let Some(kind) = MemRefOp::of(ctx, op) {
        use MemRefOp as M;
        return matches!(
            kind,
            M::View
                | M::Subview
                | M::ReinterpretCast
                | M::CollapseShape
                | M::ExpandShape
                | M::Cast
                | M::Dim
                | M::Rank
        );
    }
    ArithOp::of(ctx, op).is_some() && ctx.op(op).regions.is_empty()
}

/// The kernels of `func`'s body, in program order.
pub(crate) fn kernels_of(
    ctx: &Context,
    func: OpId,
    func_name: &str,
) -> Result<Vec<Kernel>, Diagnostic> {
    let mut kernels = Vec::new();
    let Some(&region) = ctx.op(func).regions.first() else {
        return Ok(kernels);
    };
    let Some(body) = ctx.entry_block(region) else {
        return Ok(kernels);
    };
    let order: Vec<OpId> = ctx.block_ops(body).collect();
    for &op in &order {
        if GpuOp::of(ctx, op) != Some(GpuOp::Launch) {
            continue;
        }
        let name = format!("{func_name}_kernel_{}", kernels.len());
        kernels.push(kernel(ctx, op, name, &order)?);
    }
    Ok(kernels)
}

fn kernel(ctx: &Context, launch: OpId, name: String, order: &[OpId]) -> Result<Kernel, Diagnostic> {
    let mut used = Vec::new();
    let mut seen = FxHashSet::default();
    ctx.walk_nested(launch, &mut |op| {
        if op == launch {
            return;
        }
        for &v in &ctx.op(op).operands {
            if !defined_inside(ctx, launch, v) && seen.insert(v) {
                used.push(v);
            }
        }
    });
    let mut params = Vec::new();
    let mut remat = FxHashSet::default();
    let mut work = used;
    let mut visited = FxHashSet::default();
    while let Some(v) = work.pop() {
        if !visited.insert(v) {
            continue;
        }
        if is_parameter(ctx, v) {
            let ty = ctx.value_type(v);
            let passable = matches!(
                ctx.type_kind(ty),
                TypeKind::MemRef { .. }
                    | TypeKind::Index
                    | TypeKind::Integer { .. }
                    | TypeKind::Float(_)
            );
            if !passable {
                return Err(Diagnostic::error(
                    ctx.op(launch).loc,
                    format!(
                        "'gpu.launch' op uses a value of type {} defined outside it, which a kernel cannot receive",
                        tb_ir::printer::type_to_string(ctx, ty)
                    ),
                ));
            }
            params.push(v);
            continue;
        }
        let op = ctx.defining_op(v).expect("block arguments are parameters");
        if !is_rematerializable(ctx, op) {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "'{}' op computes a value that a gpu.launch uses; only constants, index arithmetic, views and buffers can cross into a kernel (run convert-loop-to-gpu, which maps all computation into kernels)",
                    ctx.op_name(op)
                ),
            ));
        }
        remat.insert(op);
        work.extend(ctx.op(op).operands.iter().copied());
    }
    // Parameters in a stable order: function arguments first, then by definition.
    params.sort_by_key(|&v| match ctx.value(v).def {
        ValueDef::BlockArgument { index, .. } => (0usize, index as usize),
        ValueDef::Result { op, .. } => {
            (1, order.iter().position(|&o| o == op).unwrap_or(usize::MAX))
        }
        ValueDef::Placeholder => (2, 0),
    });
    let rematerialized = order
        .iter()
        .copied()
        .filter(|o| remat.contains(o))
        .collect();
    let _ = gpu::LAUNCH;
    Ok(Kernel {
        name,
        launch,
        params,
        rematerialized,
    })
}

/// Static shared memory a block may use without opting in to more (48 KiB on every
/// architecture since sm_70).
pub(crate) const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;

/// Where a launch's workgroup buffers lie in its block's shared memory.
pub(crate) struct WorkgroupLayout {
    /// Each buffer's size and its offset (16-byte aligned), in bytes.
    pub(crate) bytes: Vec<u64>,
    pub(crate) offsets: Vec<u64>,
    pub(crate) total: u64,
}

impl WorkgroupLayout {
    /// Whether the buffers need dynamic shared memory (more than the static 48 KiB).
    pub(crate) fn is_dynamic(&self) -> bool {
        self.total > MAX_STATIC_SHARED_BYTES
    }

    /// The dynamic shared memory a launch must ask for.
    pub(crate) fn dynamic_bytes(&self) -> u64 {
        if self.is_dynamic() { self.total } else { 0 }
    }
}

/// The shared-memory layout of `launch`'s workgroup buffers; an error for a buffer
/// without a static shape or outside the workgroup space.
pub(crate) fn workgroup_layout(ctx: &Context, launch: OpId) -> Result<WorkgroupLayout, String> {
    use crate::llvm::memref::MemRefLayout;
    let body = gpu::launch_body(ctx, launch).ok_or("has no body")?;
    let mut layout = WorkgroupLayout {
        bytes: Vec::new(),
        offsets: Vec::new(),
        total: 0,
    };
    for &buffer in &ctx.block(body).args[gpu::LAUNCH_BODY_ARGS..] {
        let ty = ctx.value_type(buffer);
        let text = || tb_ir::printer::type_to_string(ctx, ty);
        let static_shape = matches!(ctx.type_kind(ty), TypeKind::MemRef { shape, .. } if shape.iter().all(|&d| d >= 0));
        if !static_shape {
            return Err(format!(
                "has a workgroup buffer of type {} without a static shape: a kernel's shared memory is sized when it is compiled",
                text()
            ));
        }
        if !gpu::is_workgroup_memref(ctx, ty) {
            return Err(format!(
                "has a workgroup buffer of type {} outside the workgroup memory space",
                text()
            ));
        }
        let bytes = crate::cpu::buffers::checked_byte_size(ctx, &MemRefLayout::of(ctx, ty)?)?;
        let offset = layout.total.div_ceil(16).saturating_mul(16);
        layout.bytes.push(bytes);
        layout.offsets.push(offset);
        layout.total = offset.saturating_add(bytes);
    }
    Ok(layout)
}
