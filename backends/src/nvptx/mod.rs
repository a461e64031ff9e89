//! The NVPTX backend: `gpu.launch` kernels to PTX through LLVM's NVPTX target, and (with
//! [`cuda`]) a runtime that runs a loop-level function on an NVIDIA GPU.
//!
//! Each launch of a function (after `convert-loop-to-gpu`) becomes a `ptx_kernel` function
//! of one PTX module ([`kernel`] says what its parameters are); the function's own body
//! becomes a host plan ([`host`]): allocate, upload, launch, download. Float math calls
//! libdevice ([`libdevice`]).

mod async_copy;
pub mod cuda;
pub mod host;
mod kernel;
pub mod libdevice;
mod mma;
pub mod ptxas;
mod translate;

use inkwell::OptimizationLevel;
use inkwell::context::Context as LlvmContext;
use inkwell::module::Linkage;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::types::BasicMetadataTypeEnum;
use tb_ir::{Context, Diagnostic, OpId};

pub use kernel::Kernel;

use crate::llvm::translator::{FunctionTarget, Translator};

/// LLVM's calling convention number for PTX kernels (`ptx_kernel`).
const PTX_KERNEL_CALLING_CONVENTION: u32 = 71;

/// The GPU architectures PTX is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuArch {
    Sm80,
    Sm90,
}

impl GpuArch {
    pub const ALL: [GpuArch; 2] = [GpuArch::Sm80, GpuArch::Sm90];

    pub fn name(self) -> &'static str {
        match self {
            GpuArch::Sm80 => "sm_80",
            GpuArch::Sm90 => "sm_90",
        }
    }

    pub fn parse(name: &str) -> Result<GpuArch, String> {
        GpuArch::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| format!("unknown GPU architecture '{name}' (known: sm_80, sm_90)"))
    }

    /// The most shared memory one block may have (opting in past 48 KiB): 163 KiB on
    /// sm_80 (A100), 227 KiB on sm_90.
    pub fn max_shared_bytes(self) -> u64 {
        match self {
            GpuArch::Sm80 => 163 * 1024,
            GpuArch::Sm90 => 227 * 1024,
        }
    }

    /// The architecture of a device of compute capability `major.minor`: the newest
    /// supported one it runs (PTX for sm_80 runs on every later GPU).
    pub fn for_compute_capability(major: i32, minor: i32) -> Option<GpuArch> {
        match (major, minor) {
            (9.., _) => Some(GpuArch::Sm90),
            (8, _) => Some(GpuArch::Sm80),
            _ => None,
        }
    }
}

/// A module's kernels as PTX, with the host plan of each function.
#[derive(Clone, Debug)]
pub struct PtxModule {
    pub arch: GpuArch,
    pub ptx: String,
    pub functions: Vec<host::HostFunction>,
}

fn nvptx_machine(arch: GpuArch) -> Result<TargetMachine, String> {
    crate::llvm_info::initialize_targets()?;
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let target =
        Target::from_triple(&triple).map_err(|e| format!("no NVPTX target in this LLVM: {e}"))?;
    target
        .create_target_machine(
            &triple,
            arch.name(),
            "",
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            format!(
                "LLVM cannot make an NVPTX target machine for {}",
                arch.name()
            )
        })
}

/// Translates every launch of every function of `module` (a `builtin.module` at the loop
/// level with its loops mapped onto `gpu.launch`) into PTX for `arch`.
pub fn compile(ir: &Context, module: OpId, arch: GpuArch) -> Result<PtxModule, Diagnostic> {
    let at_module = |m: String| Diagnostic::error(ir.op(module).loc, m);
    let machine = nvptx_machine(arch).map_err(at_module)?;
    let llvm = LlvmContext::create();
    let llvm_module = llvm.create_module("tb_kernels");
    llvm_module.set_triple(&machine.get_triple());
    llvm_module.set_data_layout(&machine.get_target_data().get_data_layout());
    let mut functions = Vec::new();
    let mut tr = Translator::new(
        ir,
        &llvm,
        &llvm_module,
        &translate::NVPTX_TRANSLATIONS,
        FunctionTarget {
            cpu: arch.name().to_owned(),
            features: String::new(),
        },
    );
    for &region in &ir.op(module).regions {
        for &block in &ir.region(region).blocks {
            for func in ir.block_ops(block) {
                if ir.op_name(func) != "func.func" {
                    continue;
                }
                let Some(name) = tb_ir::symbol_table::symbol_name(ir, func) else {
                    continue;
                };
                let kernels = kernel::kernels_of(ir, func, name)?;
                for k in &kernels {
                    define_kernel(&mut tr, k, arch)?;
                }
                if let Some(plan) = host::plan(ir, func, name, &kernels)? {
                    functions.push(plan);
                }
            }
        }
    }
    drop(tr);
    if libdevice::is_needed(&llvm_module) {
        libdevice::link_into(&llvm, &llvm_module).map_err(at_module)?;
    }
    llvm_module
        .verify()
        .map_err(|e| at_module(format!("internal error: invalid NVPTX module: {e}")))?;
    llvm_module
        .run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| at_module(format!("LLVM optimization failed: {e}")))?;
    let buffer = machine
        .write_to_memory_buffer(&llvm_module, FileType::Assembly)
        .map_err(|e| at_module(format!("LLVM could not emit PTX: {e}")))?;
    let ptx = String::from_utf8_lossy(buffer.as_slice())
        .trim_end_matches('\0')
        .to_owned();
    Ok(PtxModule {
        arch,
        ptx,
        functions,
    })
}

/// Defines `kernel` as a `ptx_kernel` function of the module.
fn define_kernel(tr: &mut Translator, kernel: &Kernel, arch: GpuArch) -> Result<(), Diagnostic> {
    let ir = tr.ir;
    let loc = ir.op(kernel.launch).loc;
    let located = |e: crate::llvm::translator::Error| match e {
        crate::llvm::translator::Error::Message(m) => {
            Diagnostic::error(loc, format!("'gpu.launch' op {m}"))
        }
        crate::llvm::translator::Error::Located(d) => *d,
    };
    let params = kernel
        .params
        .iter()
        .map(|&v| Ok(tr.llvm_type(ir.value_type(v))?.into()))
        .collect::<Result<Vec<BasicMetadataTypeEnum>, _>>()
        .map_err(located)?;
    let fn_type = tr.llvm.void_type().fn_type(&params, false);
    let function = tr
        .module
        .add_function(&kernel.name, fn_type, Some(Linkage::External));
    function.set_call_conventions(PTX_KERNEL_CALLING_CONVENTION);
    let entry = tr.llvm.append_basic_block(function, "entry");
    tr.builder.position_at_end(entry);
    tr.values.clear();
    tr.blocks.clear();
    tr.function = Some(function);
    for (&value, param) in kernel.params.iter().zip(function.get_param_iter()) {
        tr.values.insert(value, param);
    }
    let result = (|| {
        for &op in &kernel.rematerialized {
            tr.translate_op(op)?;
        }
        let body = tb_dialects::gpu::launch_body(ir, kernel.launch).ok_or("has no body")?;
        let args = ir.block(body).args.clone();
        for (group, register) in translate::BODY_ARG_REGISTERS.iter().enumerate() {
            for dim in tb_dialects::gpu::Dimension::ALL {
                let value = translate::special_register(tr, register, dim)?;
                tr.values
                    .insert(args[group * 3 + dim.index()], value.into());
            }
        }
        let buffers = &args[tb_dialects::gpu::LAUNCH_BODY_ARGS..];
        let layout = kernel::workgroup_layout(ir, kernel.launch)?;
        if layout.total > arch.max_shared_bytes() {
            return Err(format!(
                "needs {} bytes of workgroup buffers, more than the {} a block has on {}",
                layout.total,
                arch.max_shared_bytes(),
                arch.name()
            )
            .into());
        }
        let dynamic = layout
            .is_dynamic()
            .then(|| dynamic_shared(tr, &kernel.name));
        for (i, &buffer) in buffers.iter().enumerate() {
            let pointer = match dynamic {
                Some(base) => shared_at_offset(tr, base, layout.offsets[i])?,
                None => shared_buffer(tr, &kernel.name, i, layout.bytes[i])?,
            };
            tr.values.insert(buffer, pointer.into());
        }
        tr.translate_block(body, true)?;
        tr.builder.build_return(None)?;
        Ok(())
    })();
    tr.function = None;
    result.map_err(located)
}

/// The `index`-th workgroup buffer of `kernel_name` (`bytes` long): a module global in
/// NVPTX's shared address space (3), reached through a generic pointer as every other
/// buffer is.
fn shared_buffer<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    kernel_name: &str,
    index: usize,
    bytes: u64,
) -> crate::llvm::translator::TResult<inkwell::values::PointerValue<'ctx>> {
    let shared = inkwell::AddressSpace::from(3u16);
    let array = tr.llvm.i8_type().array_type(bytes.max(1) as u32);
    let global = tr.module.add_global(
        array,
        Some(shared),
        &format!("{kernel_name}_shared_{index}"),
    );
    global.set_linkage(Linkage::Internal);
    global.set_initializer(&array.get_undef());
    global.set_alignment(16);
    let generic = tr.llvm.ptr_type(inkwell::AddressSpace::default());
    Ok(tr
        .builder
        .build_address_space_cast(global.as_pointer_value(), generic, "")?)
}

/// The kernel's dynamic shared memory (`extern .shared` in PTX), sized at launch: used
/// when its workgroup buffers need more than the 48 KiB a block has without opting in.
fn dynamic_shared<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    kernel_name: &str,
) -> inkwell::values::PointerValue<'ctx> {
    let shared = inkwell::AddressSpace::from(3u16);
    let array = tr.llvm.i8_type().array_type(0);
    let global = tr.module.add_global(
        array,
        Some(shared),
        &format!("{kernel_name}_dynamic_shared"),
    );
    global.set_linkage(Linkage::External);
    global.set_alignment(16);
    global.as_pointer_value()
}

/// A generic pointer `offset` bytes into the dynamic shared memory at `base`.
fn shared_at_offset<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    base: inkwell::values::PointerValue<'ctx>,
    offset: u64,
) -> crate::llvm::translator::TResult<inkwell::values::PointerValue<'ctx>> {
    let i8_ty = tr.llvm.i8_type();
    let at = tr.llvm.i64_type().const_int(offset, false);
    // SAFETY: the offset lies inside the dynamic shared memory the launch provides.
    let pointer = unsafe { tr.builder.build_in_bounds_gep(i8_ty, base, &[at], "")? };
    let generic = tr.llvm.ptr_type(inkwell::AddressSpace::default());
    Ok(tr.builder.build_address_space_cast(pointer, generic, "")?)
}

/// Whether `ir` has a PTX-capable LLVM (always, in this build) — kept as a function so
/// tools can report it with the other targets.
pub fn is_available() -> bool {
    nvptx_machine(GpuArch::Sm80).is_ok()
}
