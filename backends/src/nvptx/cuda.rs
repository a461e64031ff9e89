//! Running a [`PtxModule`] on an NVIDIA GPU through the CUDA driver API (`cudarc`, which
//! loads `libcuda` at run time).
//!
//! The driver is probed before any call into it, so a machine without a GPU or driver gets
//! a clear error, never a panic. A run uploads the inputs, follows the host plan of the
//! function (allocations, globals, kernel launches) on one stream, times the plan with CUDA
//! events, and downloads the results.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use rustc_hash::FxHashMap;
use tb_tensor::Tensor;

use super::host::{HostFunction, Step};
use super::{GpuArch, PtxModule};
use crate::cpu::jit::{check_argument, to_tensor};

/// Why a GPU run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaError(pub String);

impl std::fmt::Display for CudaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CudaError {}

fn driver_error(what: &str) -> impl Fn(cudarc::driver::DriverError) -> CudaError + '_ {
    move |e| CudaError(format!("{what}: {e}"))
}

/// What the probe found.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: (i32, i32),
    /// The architecture PTX is generated for on this device.
    pub arch: GpuArch,
}

/// Whether the CUDA driver library can be loaded at all.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// A CUDA device ready to run kernels.
pub struct Device {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

impl Device {
    /// Opens device `ordinal`, with an error that says what is missing when there is no
    /// driver or no such device.
    pub fn open(ordinal: usize) -> Result<Device, CudaError> {
        if !driver_present() {
            return Err(CudaError(
                "no CUDA driver: libcuda.so could not be loaded (this machine has no NVIDIA GPU or driver); run without --device cuda".into(),
            ));
        }
        let count =
            CudaContext::device_count().map_err(driver_error("cannot query CUDA devices"))?;
        if ordinal as i32 >= count {
            return Err(CudaError(format!(
                "CUDA device {ordinal} does not exist ({count} device(s) found)"
            )));
        }
        let context =
            CudaContext::new(ordinal).map_err(driver_error("cannot create a CUDA context"))?;
        let name = context
            .name()
            .map_err(driver_error("cannot read the device name"))?;
        let compute_capability = context
            .compute_capability()
            .map_err(driver_error("cannot read the compute capability"))?;
        let arch = GpuArch::for_compute_capability(compute_capability.0, compute_capability.1)
            .ok_or_else(|| {
                CudaError(format!(
                    "{name} has compute capability {}.{}; TensorBind generates PTX for sm_80 and newer",
                    compute_capability.0, compute_capability.1
                ))
            })?;
        let stream = context.default_stream();
        Ok(Device {
            context,
            stream,
            info: DeviceInfo {
                name,
                compute_capability,
                arch,
            },
        })
    }

    /// Loads the module's PTX (the driver compiles it for this device).
    pub fn load(&self, module: &PtxModule) -> Result<LoadedModule, CudaError> {
        let loaded = self
            .context
            .load_module(cudarc::nvrtc::Ptx::from_src(module.ptx.clone()))
            .map_err(driver_error("the CUDA driver rejected the PTX"))?;
        let mut kernels = FxHashMap::default();
        for function in &module.functions {
            for step in &function.steps {
                if let Step::Launch {
                    kernel,
                    shared_bytes,
                    ..
                } = step
                    && !kernels.contains_key(kernel)
                {
                    let f = loaded
                        .load_function(kernel)
                        .map_err(driver_error("a kernel is missing from the PTX"))?;
                    // Past 48 KiB of shared memory a kernel must opt in.
                    if *shared_bytes > 48 * 1024 {
                        let bytes = i32::try_from(*shared_bytes).unwrap_or(i32::MAX);
                        f.set_attribute(
                            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            bytes,
                        )
                        .map_err(driver_error("the device cannot give a block that much shared memory"))?;
                    }
                    kernels.insert(kernel.clone(), f);
                }
            }
        }
        Ok(LoadedModule {
            _module: loaded,
            kernels,
            functions: module.functions.clone(),
        })
    }
}

/// A module loaded on a device.
pub struct LoadedModule {
    _module: Arc<CudaModule>,
    kernels: FxHashMap<String, CudaFunction>,
    functions: Vec<HostFunction>,
}

/// Results of a run and the device time the plan took.
pub struct RunResult {
    pub outputs: Vec<Tensor>,
    /// Milliseconds between CUDA events recorded before the first and after the last step
    /// (uploads of inputs and downloads of results excluded).
    pub device_ms: f32,
}

impl LoadedModule {
    pub fn function(&self, name: &str) -> Option<&HostFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Runs function `name` on `inputs` once; `repeat` more runs of the plan (on the same
    /// uploaded inputs) give the median device time.
    pub fn run(
        &self,
        device: &Device,
        name: &str,
        inputs: &[Tensor],
        repeat: usize,
    ) -> Result<(RunResult, Vec<f32>), CudaError> {
        let function = self
            .function(name)
            .ok_or_else(|| CudaError(format!("no GPU function named '{name}' in the module")))?;
        let params: Vec<_> = function.entry.inputs().collect();
        if params.len() != inputs.len() {
            return Err(CudaError(format!(
                "'{name}' takes {} inputs, {} were given",
                params.len(),
                inputs.len()
            )));
        }
        let stream = &device.stream;
        let mut slots: Vec<Option<CudaSlice<u8>>> = (0..function.num_slots).map(|_| None).collect();
        for (i, (param, input)) in params.iter().zip(inputs).enumerate() {
            check_argument(param, input).map_err(|m| CudaError(format!("input #{i}: {m}")))?;
            let mut bytes = Vec::new();
            tb_tensor::npy::encode(input.data(), &mut bytes);
            if bytes.is_empty() {
                bytes.push(0);
            }
            slots[i] = Some(
                stream
                    .clone_htod(&bytes)
                    .map_err(driver_error("cannot upload an input"))?,
            );
        }
        let mut times = Vec::new();
        let mut last_ms = 0.0;
        for run in 0..=repeat {
            let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
            let start = stream
                .record_event(timing)
                .map_err(driver_error("cannot record an event"))?;
            self.run_steps(stream, function, &mut slots)?;
            let end = stream
                .record_event(timing)
                .map_err(driver_error("cannot record an event"))?;
            let ms = start
                .elapsed_ms(&end)
                .map_err(driver_error("a kernel failed"))?;
            if run > 0 {
                times.push(ms);
            }
            last_ms = ms;
        }
        stream
            .synchronize()
            .map_err(driver_error("a kernel failed"))?;
        let download = |slot: usize| {
            let slice = slots[slot]
                .as_ref()
                .ok_or_else(|| CudaError(format!("'{name}' returns a buffer that was freed")))?;
            stream
                .clone_dtoh(slice)
                .map_err(driver_error("cannot download a result"))
        };
        // The status result (failed run-time checks on the data) is not an output.
        let status = function.entry.status.as_ref();
        if let Some(status) = status
            && let Some(&slot) = function.results.get(status.result)
        {
            let bytes = download(slot)?;
            let code =
                i32::from_le_bytes(bytes.get(..4).and_then(|b| b.try_into().ok()).ok_or_else(
                    || CudaError(format!("'{name}' returns a status that is not an i32")),
                )?);
            if code != 0 {
                return Err(CudaError(format!(
                    "'{name}': {} (status {code})",
                    status.message(code.into())
                )));
            }
        }
        let result_slots = function
            .results
            .iter()
            .enumerate()
            .filter(|&(i, _)| status.is_none_or(|s| s.result != i))
            .map(|(_, &slot)| slot);
        let mut outputs = Vec::new();
        for (param, slot) in function.entry.outputs().zip(result_slots) {
            let mut bytes = download(slot)?;
            bytes.truncate(param.byte_size().unwrap_or(0));
            outputs.push(to_tensor(param, &bytes).map_err(|e| CudaError(e.0))?);
        }
        times.sort_by(f32::total_cmp);
        Ok((
            RunResult {
                outputs,
                device_ms: last_ms,
            },
            times,
        ))
    }

    fn run_steps(
        &self,
        stream: &Arc<CudaStream>,
        function: &HostFunction,
        slots: &mut [Option<CudaSlice<u8>>],
    ) -> Result<(), CudaError> {
        let arguments = function.entry.inputs().count();
        for step in &function.steps {
            match step {
                Step::Alloc { slot, bytes } => {
                    if slots[*slot].is_none() {
                        slots[*slot] = Some(
                            stream
                                .alloc_zeros::<u8>((*bytes).max(1))
                                .map_err(driver_error("cannot allocate device memory"))?,
                        );
                    }
                }
                Step::Global { slot, bytes } => {
                    if slots[*slot].is_none() {
                        let mut data = bytes.clone();
                        if data.is_empty() {
                            data.push(0);
                        }
                        slots[*slot] = Some(
                            stream
                                .clone_htod(&data)
                                .map_err(driver_error("cannot upload a global"))?,
                        );
                    }
                }
                // Buffers stay allocated across repeated runs; they are freed with the run.
                Step::Free { slot } => {
                    let _ = (slot, arguments);
                }
                Step::Launch {
                    kernel,
                    grid,
                    block,
                    shared_bytes,
                    args,
                } => {
                    let function = self
                        .kernels
                        .get(kernel)
                        .ok_or_else(|| CudaError(format!("kernel {kernel} was not loaded")))?;
                    let mut launch = stream.launch_builder(function);
                    for &slot in args {
                        let buffer = slots[slot].as_ref().ok_or_else(|| {
                            CudaError(format!("kernel {kernel} uses a buffer that does not exist"))
                        })?;
                        launch.arg(buffer);
                    }
                    let config = LaunchConfig {
                        grid_dim: (grid[0], grid[1], grid[2]),
                        block_dim: (block[0], block[1], block[2]),
                        shared_mem_bytes: *shared_bytes,
                    };
                    // SAFETY: the kernel's parameters are exactly these buffers, in this
                    // order (both come from the same plan), each as large as its type.
                    unsafe { launch.launch(config) }
                        .map_err(driver_error(&format!("cannot launch {kernel}")))?;
                }
            }
        }
        Ok(())
    }
}
