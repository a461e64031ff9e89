//! The GPU path of the tools: lowering a module onto `gpu.launch` kernels, PTX for
//! `tb-translate --emit=ptx`, and runs on a CUDA device for `tb-run --device cuda`.

use tb_backends::nvptx::cuda::Device;
use tb_backends::nvptx::{self, GpuArch, PtxModule};
use tb_interpreter::Tensor;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::{Context, Diagnostic, OpId};

/// Maps whatever loop nests remain onto kernels (`convert-loop-to-gpu`; launches already
/// there are kept) and translates every kernel of the module into PTX for `arch`.
pub fn compile_ptx(
    ctx: &mut Context,
    module: OpId,
    arch: GpuArch,
) -> Result<PtxModule, Diagnostic> {
    run_pipeline(ctx, module, "builtin.module(convert-loop-to-gpu)")?;
    nvptx::compile(ctx, module, arch)
}

/// Runs a pass pipeline, verifying after each pass.
pub fn run_pipeline(ctx: &mut Context, module: OpId, pipeline: &str) -> Result<(), Diagnostic> {
    let at_module = |m: String| Diagnostic::error(ctx.op(module).loc, m);
    let parsed =
        Pipeline::parse(pipeline).map_err(|e| at_module(format!("invalid pipeline: {e}")))?;
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let mut manager = PassManager::new(&parsed, &registry).map_err(at_module)?;
    manager.run(ctx, module, &Instrumentation::default())
}

/// What a GPU run produced.
pub struct GpuRun {
    pub results: Vec<Tensor>,
    /// The device, as `NVIDIA H200 (sm_90)`.
    pub device: String,
    pub kernels: usize,
    /// Device time of each timed run of the whole function (CUDA events), sorted.
    pub times_ms: Vec<f32>,
}

/// Opens CUDA device 0 (a clear error on a machine without one).
pub fn open_device() -> Result<Device, String> {
    Device::open(0).map_err(|e| format!("tb-run: --device cuda: {e}"))
}

/// Compiles the lowered module's function `name` for `device` and runs it on `inputs`,
/// then `bench` more times for timing.
pub fn run_on_device(
    device: &Device,
    ctx: &mut Context,
    module: OpId,
    name: &str,
    inputs: &[Tensor],
    bench: usize,
) -> Result<GpuRun, RunFailure> {
    let ptx = compile_ptx(ctx, module, device.info.arch).map_err(RunFailure::Compile)?;
    let loaded = device.load(&ptx).map_err(|e| RunFailure::Device(e.0))?;
    let kernels = loaded
        .function(name)
        .map(|f| f.launches())
        .ok_or_else(|| RunFailure::Device(format!("no function '{name}' after lowering")))?;
    let (result, times_ms) = loaded
        .run(device, name, inputs, bench)
        .map_err(|e| RunFailure::Device(e.0))?;
    let (major, minor) = device.info.compute_capability;
    Ok(GpuRun {
        results: result.outputs,
        device: format!(
            "{} (compute capability {major}.{minor}, PTX for {})",
            device.info.name,
            device.info.arch.name()
        ),
        kernels,
        times_ms,
    })
}

/// Why a GPU run failed: in compilation (a located diagnostic) or on the device.
pub enum RunFailure {
    Compile(Diagnostic),
    Device(String),
}
