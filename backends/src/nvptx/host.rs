//! Host plans: what the body of a function with `gpu.launch` kernels asks the runtime to
//! do, in order — allocate device buffers, upload globals, launch kernels with their
//! buffers, free buffers — and which buffers it returns.
//!
//! A plan is read off the function after `convert-loop-to-gpu`: constants, index
//! arithmetic and views need no host work (kernels recompute them); any other op left in
//! the body is an error that names it.

use tb_dialects::arith::ArithOp;
use tb_dialects::gpu::{self, GpuOp};
use tb_dialects::loop_::LoopOp;
use tb_dialects::memref::MemRefOp;
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, Diagnostic, OpId, Value};

use super::kernel::Kernel;
use crate::cpu::abi::{self, EntryPoint};
use crate::cpu::buffers::checked_byte_size;
use crate::cpu::memref::MemRefLayout;

/// A device buffer of the plan: the function's arguments first, then what it allocates.
pub type Slot = usize;

/// One thing the runtime does.
#[derive(Clone, Debug)]
pub enum Step {
    /// A fresh device buffer of `bytes` bytes (contents undefined).
    Alloc {
        slot: Slot,
        bytes: usize,
    },
    /// A device buffer holding a global's bytes.
    Global {
        slot: Slot,
        bytes: Vec<u8>,
    },
    Free {
        slot: Slot,
    },
    Launch {
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        args: Vec<Slot>,
    },
}

/// A function as the runtime runs it.
#[derive(Clone, Debug)]
pub struct HostFunction {
    pub name: String,
    /// Inputs then outputs, as the CPU ABI describes them.
    pub entry: EntryPoint,
    pub steps: Vec<Step>,
    /// Slots in all (arguments included).
    pub num_slots: usize,
    /// The slot each result is read from.
    pub results: Vec<Slot>,
}

impl HostFunction {
    /// The kernels launched, in order.
    pub fn launches(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Launch { .. }))
            .count()
    }
}

fn located(ir: &Context, op: OpId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        ir.op(op).loc,
        format!("'{}' op {}", ir.op_name(op), message.into()),
    )
}

/// The integer value of an `arith.constant`.
fn constant_int(ir: &Context, value: Value) -> Option<i64> {
    let ValueDef::Result { op, .. } = ir.value(value).def else {
        return None;
    };
    if ArithOp::of(ir, op) != Some(ArithOp::Constant) {
        return None;
    }
    match ir.attr_kind(ir.op_inherent_or_attr(op, "value")?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The plan of `func`, or `None` for a declaration.
pub(crate) fn plan(
    ir: &Context,
    func: OpId,
    name: &str,
    kernels: &[Kernel],
) -> Result<Option<HostFunction>, Diagnostic> {
    let Some(body) = abi::body(ir, func) else {
        return Ok(None);
    };
    let entry = abi::entry_point(ir, func, name)?;
    if let Some(scalar) = entry.inputs().find(|p| !p.is_pointer()) {
        return Err(Diagnostic::error(
            ir.op(func).loc,
            format!(
                "'{name}' takes the scalar {}; GPU runs take buffers only",
                scalar.ir_type
            ),
        ));
    }
    let mut slots: rustc_hash::FxHashMap<Value, Slot> = rustc_hash::FxHashMap::default();
    for (i, &arg) in ir.block(body).args.iter().enumerate() {
        slots.insert(arg, i);
    }
    let mut num_slots = slots.len();
    let mut steps = Vec::new();
    let mut results = Vec::new();
    let mut kernel_of = kernels.iter();
    for op in ir.block_ops(body) {
        let fresh_slot = |slots: &mut rustc_hash::FxHashMap<Value, Slot>, n: &mut usize| {
            let slot = *n;
            *n += 1;
            slots.insert(ir.op(op).results[0], slot);
            slot
        };
        let buffer_bytes = |value: Value| -> Result<usize, Diagnostic> {
            let layout =
                MemRefLayout::of(ir, ir.value_type(value)).map_err(|m| located(ir, op, m))?;
            let bytes = checked_byte_size(ir, &layout).map_err(|m| located(ir, op, m))?;
            usize::try_from(bytes)
                .map_err(|_| located(ir, op, "allocates more bytes than this machine can address"))
        };
        if let Some(kind) = GpuOp::of(ir, op) {
            if kind != GpuOp::Launch {
                return Err(located(ir, op, "is only valid inside a gpu.launch"));
            }
            let kernel = kernel_of
                .next()
                .filter(|k| k.launch == op)
                .ok_or_else(|| located(ir, op, "internal error: kernel list out of order"))?;
            let sizes = gpu::launch_sizes(ir, op)
                .ok_or_else(|| located(ir, op, "has malformed operands"))?;
            let mut dims = [0u32; 6];
            for (i, &size) in sizes.iter().enumerate() {
                let value = constant_int(ir, size).ok_or_else(|| {
                    located(
                        ir,
                        op,
                        format!("size operand #{i} must be an arith.constant to run on the GPU"),
                    )
                })?;
                dims[i] = u32::try_from(value)
                    .ok()
                    .filter(|&v| v >= 1)
                    .ok_or_else(|| {
                        located(
                            ir,
                            op,
                            format!("size operand #{i} is {value}; sizes must be in [1, 2^32)"),
                        )
                    })?;
            }
            let shared_bytes = match ir.op(op).operands.get(6) {
                Some(&v) => constant_int(ir, v)
                    .and_then(|b| u32::try_from(b).ok())
                    .ok_or_else(|| {
                        located(
                            ir,
                            op,
                            "dynamic_shared_memory_size must be a non-negative arith.constant",
                        )
                    })?,
                None => 0,
            };
            // Workgroup buffers past the static 48 KiB live in dynamic shared memory.
            let workgroup = super::kernel::workgroup_layout(ir, op)
                .map_err(|m| located(ir, op, &m))?
                .dynamic_bytes();
            let shared_bytes = u32::try_from(workgroup)
                .ok()
                .and_then(|w| w.checked_add(shared_bytes))
                .ok_or_else(|| located(ir, op, "needs more shared memory than a block has"))?;
            let args = kernel
                .params
                .iter()
                .map(|p| {
                    slots.get(p).copied().ok_or_else(|| {
                        located(ir, op, "uses a buffer the runtime does not own (only arguments, allocations and globals are passed to kernels)")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            steps.push(Step::Launch {
                kernel: kernel.name.clone(),
                grid: [dims[0], dims[1], dims[2]],
                block: [dims[3], dims[4], dims[5]],
                shared_bytes,
                args,
            });
            continue;
        }
        match (LoopOp::of(ir, op), MemRefOp::of(ir, op)) {
            (Some(LoopOp::Alloc), _) | (_, Some(MemRefOp::Alloc)) => {
                let bytes = buffer_bytes(ir.op(op).results[0])?;
                let slot = fresh_slot(&mut slots, &mut num_slots);
                steps.push(Step::Alloc { slot, bytes });
            }
            (Some(LoopOp::Dealloc), _) | (_, Some(MemRefOp::Dealloc)) => {
                if let Some(&slot) = ir.op(op).operands.first().and_then(|v| slots.get(v)) {
                    steps.push(Step::Free { slot });
                }
            }
            (_, Some(MemRefOp::GetGlobal)) => {
                let symbol = ir
                    .op_inherent_or_attr(op, "name")
                    .and_then(|a| match ir.attr_kind(a) {
                        AttrKind::SymbolRef { root, .. } => Some(root.clone()),
                        _ => None,
                    })
                    .ok_or_else(|| located(ir, op, "has no global name"))?;
                let global =
                    tb_ir::symbol_table::lookup_symbol(ir, func, &symbol).ok_or_else(|| {
                        located(ir, op, format!("refers to an unknown global @{symbol}"))
                    })?;
                let (size, bytes) =
                    crate::cpu::module::global_contents(ir, global).map_err(|e| match e {
                        crate::llvm::translator::Error::Message(m) => located(ir, global, m),
                        crate::llvm::translator::Error::Located(d) => *d,
                    })?;
                let slot = fresh_slot(&mut slots, &mut num_slots);
                steps.push(Step::Global {
                    slot,
                    bytes: bytes.unwrap_or_else(|| vec![0; size]),
                });
            }
            (_, Some(kind)) if is_view(kind) => {}
            (Some(_), _) | (_, Some(_)) => {
                return Err(located(
                    ir,
                    op,
                    "computes on the host; run convert-loop-to-gpu so that every computation is inside a gpu.launch",
                ));
            }
            (None, None) => {
                if ir.op_name(op) == "func.return" {
                    for &v in &ir.op(op).operands {
                        results.push(*slots.get(&v).ok_or_else(|| {
                            located(ir, op, "returns a view or scalar; run convert-loop-to-gpu, which copies returned views into buffers of their own")
                        })?);
                    }
                } else if ArithOp::of(ir, op).is_none() {
                    return Err(located(
                        ir,
                        op,
                        "cannot run on the host of a GPU program (run convert-loop-to-gpu first)",
                    ));
                }
            }
        }
    }
    Ok(Some(HostFunction {
        name: name.to_owned(),
        entry,
        steps,
        num_slots,
        results,
    }))
}

fn is_view(kind: MemRefOp) -> bool {
    use MemRefOp as M;
    matches!(
        kind,
        M::View
            | M::Subview
            | M::ReinterpretCast
            | M::CollapseShape
            | M::ExpandShape
            | M::Cast
            | M::Dim
            | M::Rank
    )
}
