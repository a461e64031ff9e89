//! JIT execution: compile a module for the host, link it in-process with ORC's LLJIT and
//! call its functions on tensors.
//!
//! The optimized module is compiled to an object file by the same target machine that
//! `--emit=obj` uses, and LLJIT links that object, so JIT-compiled code is exactly the code
//! an ahead-of-time build of the module contains. Undefined symbols resolve to the runtime
//! ([`super::runtime`]), then the C and math libraries of the process.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ffi::{CStr, CString, c_void};
use std::fmt;
use std::ptr::NonNull;

use inkwell::context::Context as LlvmContext;
use inkwell::targets::FileType;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcCreateLLJITBuilder, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup,
    LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
};
use llvm_sys::orc2::{
    LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
    LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForPath,
    LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcJITDylibAddGenerator,
    LLVMOrcJITDylibDefine,
};
use tb_ir::{Context, Diagnostic, OpId};
use tb_tensor::{DType, Tensor};

use super::abi::{AbiParam, EntryPoint};
use super::types::ElementKind;
use super::{CompileOptions, build, heap_stats, parallel, runtime, runtime_profile};

/// Why a compiled function could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

/// The signature of every packed wrapper: it returns the call's status.
type PackedFn = unsafe extern "C" fn(*mut *mut c_void) -> i32;

/// Takes an LLVM error's message (and frees the error); `None` for success.
fn take_error(error: LLVMErrorRef) -> Option<String> {
    if error.is_null() {
        return None;
    }
    // SAFETY: a non-null LLVMErrorRef; LLVMGetErrorMessage consumes it.
    unsafe {
        let message = LLVMGetErrorMessage(error);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(message);
        Some(text)
    }
}

/// An LLJIT instance, disposed with everything it linked.
struct Jit(LLVMOrcLLJITRef);

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: created by LLVMOrcCreateLLJIT and disposed once; an error on disposal has
        // nowhere to go.
        let _ = take_error(unsafe { LLVMOrcDisposeLLJIT(self.0) });
    }
}

impl Jit {
    fn new() -> Result<Jit, String> {
        let mut jit = std::ptr::null_mut();
        // SAFETY: the builder is consumed by LLVMOrcCreateLLJIT.
        let error = unsafe { LLVMOrcCreateLLJIT(&mut jit, LLVMOrcCreateLLJITBuilder()) };
        if let Some(m) = take_error(error) {
            return Err(format!("cannot create the JIT: {m}"));
        }
        let jit = Jit(jit);
        jit.define_runtime()?;
        jit.search_process_and_libm()?;
        Ok(jit)
    }

    /// Binds the runtime's functions to their Rust implementations.
    fn define_runtime(&self) -> Result<(), String> {
        // Compiled code's heap allocations go through counting wrappers.
        let symbols = [
            (
                parallel::PARALLEL_FOR,
                runtime::tb_rt_parallel_for as *const () as u64,
            ),
            (
                "aligned_alloc",
                heap_stats::tb_rt_aligned_alloc as *const () as u64,
            ),
            ("free", heap_stats::tb_rt_free as *const () as u64),
            // Kernel timing, called only by code instrumented for a profile.
            (
                runtime_profile::PROFILE_BEGIN,
                runtime_profile::tb_rt_profile_begin as *const () as u64,
            ),
            (
                runtime_profile::PROFILE_END,
                runtime_profile::tb_rt_profile_end as *const () as u64,
            ),
        ];
        let mut pairs = Vec::new();
        for (name, address) in symbols {
            let name = CString::new(name).map_err(|e| e.to_string())?;
            pairs.push(LLVMOrcCSymbolMapPair {
                // SAFETY: interns a NUL-terminated name in the JIT's string pool.
                Name: unsafe { LLVMOrcLLJITMangleAndIntern(self.0, name.as_ptr()) },
                Sym: LLVMJITEvaluatedSymbol {
                    Address: address,
                    Flags: LLVMJITSymbolFlags {
                        GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported
                            as u8
                            | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                        TargetFlags: 0,
                    },
                },
            });
        }
        // SAFETY: the pairs are valid; the materialization unit is handed to the dylib.
        let error = unsafe {
            let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
            LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(self.0), unit)
        };
        take_error(error).map_or(Ok(()), |m| {
            Err(format!("cannot define runtime symbols: {m}"))
        })
    }

    /// Resolves other symbols in the process (the C library) and in `libm`.
    fn search_process_and_libm(&self) -> Result<(), String> {
        // SAFETY: generators are created and handed to the main dylib, which owns them.
        unsafe {
            let dylib = LLVMOrcLLJITGetMainJITDylib(self.0);
            let prefix = LLVMOrcLLJITGetGlobalPrefix(self.0);
            let mut process = std::ptr::null_mut();
            let error = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut process,
                prefix,
                None,
                std::ptr::null_mut(),
            );
            if let Some(m) = take_error(error) {
                return Err(format!("cannot search the process for symbols: {m}"));
            }
            LLVMOrcJITDylibAddGenerator(dylib, process);
            // The process may not have loaded libm; without it only math calls fail (as
            // unresolved symbols, reported when the module is linked).
            let mut libm = std::ptr::null_mut();
            let error = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
                &mut libm,
                c"libm.so.6".as_ptr(),
                prefix,
                None,
                std::ptr::null_mut(),
            );
            if take_error(error).is_none() {
                LLVMOrcJITDylibAddGenerator(dylib, libm);
            }
        }
        Ok(())
    }

    fn add_object(&self, object: &[u8]) -> Result<(), String> {
        // SAFETY: the buffer is copied; LLJIT takes ownership of the copy.
        let error = unsafe {
            let buffer = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast(),
                object.len(),
                c"tb-module".as_ptr(),
            );
            LLVMOrcLLJITAddObjectFile(self.0, LLVMOrcLLJITGetMainJITDylib(self.0), buffer)
        };
        take_error(error).map_or(Ok(()), |m| {
            Err(format!("cannot add the object to the JIT: {m}"))
        })
    }

    /// The address of `symbol`; linking happens here, so unresolved symbols show up too.
    fn lookup(&self, symbol: &str) -> Result<u64, String> {
        let name = CString::new(symbol).map_err(|e| e.to_string())?;
        let mut address = 0;
        // SAFETY: a valid JIT and NUL-terminated name.
        let error = unsafe { LLVMOrcLLJITLookup(self.0, &mut address, name.as_ptr()) };
        match take_error(error) {
            Some(m) => Err(format!("cannot link '{symbol}': {m}")),
            None if address == 0 => Err(format!("'{symbol}' has no address")),
            None => Ok(address),
        }
    }
}

/// A module compiled for this machine, whose public functions can be called on tensors.
pub struct CompiledModule {
    entries: Vec<(EntryPoint, PackedFn)>,
    cpu: String,
    features: String,
    /// Owns the code the function pointers point into; dropped last.
    _jit: Jit,
}

// SAFETY: the compiled functions are re-entrant (they keep no state outside the buffers
// they are given) and the JIT is only touched again when it is dropped.
unsafe impl Send for CompiledModule {}
unsafe impl Sync for CompiledModule {}

impl CompiledModule {
    /// Compiles every function of `module` (a verified `builtin.module`) and links it into
    /// this process.
    pub fn compile(
        ctx: &Context,
        module: OpId,
        options: &CompileOptions,
    ) -> Result<CompiledModule, Diagnostic> {
        let at_module = |m: String| Diagnostic::error(ctx.op(module).loc, m);
        let llvm = LlvmContext::create();
        let built = build(ctx, module, options, &llvm, true)?;
        let object = built
            .machine
            .write_to_memory_buffer(&built.module, FileType::Object)
            .map_err(|m| at_module(format!("LLVM cannot generate code: {m}")))?;
        super::llvm_diagnostics::take_errors().map_err(at_module)?;
        let jit = Jit::new().map_err(at_module)?;
        jit.add_object(object.as_slice()).map_err(at_module)?;
        let mut entries = Vec::with_capacity(built.entry_points.len());
        for entry in built.entry_points {
            let address = jit.lookup(&entry.packed_symbol()).map_err(at_module)?;
            // SAFETY: the packed wrapper has exactly this signature.
            let function: PackedFn = unsafe { std::mem::transmute(address as usize) };
            entries.push((entry, function));
        }
        let (cpu, features) = options.target.resolve();
        Ok(CompiledModule {
            entries,
            cpu,
            features,
            _jit: jit,
        })
    }

    /// The exported functions.
    pub fn entry_points(&self) -> impl Iterator<Item = &EntryPoint> {
        self.entries.iter().map(|(e, _)| e)
    }

    /// The CPU name and feature string the code was generated for.
    pub fn cpu(&self) -> (&str, &str) {
        (&self.cpu, &self.features)
    }

    /// Runs function `name` on `inputs` (one tensor per argument: buffers of the argument's
    /// shape, 0-d or one-element tensors for scalars) and returns its results.
    pub fn run(&self, name: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>, RunError> {
        let mut args = inputs.to_vec();
        self.run_in_place(name, &mut args)
    }

    /// Like [`CompiledModule::run`], but what the function writes into its argument
    /// buffers is copied back into `args` (for functions in destination-passing style).
    pub fn run_in_place(&self, name: &str, args: &mut [Tensor]) -> Result<Vec<Tensor>, RunError> {
        let mut call = self.prepare(name, args)?;
        call.run()?;
        for ((param, arg), bytes) in call.entry.inputs().zip(args.iter_mut()).zip(&call.storage) {
            if param.is_pointer() && !param.read_only {
                *arg = to_tensor(param, bytes.as_slice())?;
            }
        }
        call.outputs()
    }

    /// Copies `args` into buffers laid out for function `name`, ready to be run any number
    /// of times (benchmarks time [`PreparedCall::run`] alone).
    pub fn prepare(&self, name: &str, args: &[Tensor]) -> Result<PreparedCall<'_>, RunError> {
        let (entry, function) = self
            .entries
            .iter()
            .find(|(e, _)| e.name == name)
            .ok_or_else(|| {
                let names: Vec<String> = self
                    .entries
                    .iter()
                    .map(|(e, _)| format!("@{}", e.name))
                    .collect();
                RunError(format!(
                    "no public function @{name} in the compiled module (it has {})",
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ))
            })?;
        let inputs: Vec<&AbiParam> = entry.inputs().collect();
        if inputs.len() != args.len() {
            return Err(RunError(format!(
                "@{name} takes {} arguments, {} were given",
                inputs.len(),
                args.len()
            )));
        }
        let mut storage = Vec::with_capacity(entry.params.len());
        for (i, (param, arg)) in inputs.iter().zip(args.iter()).enumerate() {
            check_argument(param, arg)
                .map_err(|m| RunError(format!("argument #{i} of @{name}: {m}")))?;
            let mut bytes = Vec::with_capacity(byte_size(param)?);
            tb_tensor::npy::encode(arg.data(), &mut bytes);
            storage.push(AlignedBytes::from_bytes(&bytes)?);
        }
        for param in entry.outputs() {
            // Uninitialized output elements read as NaN (or -1), never as plausible zeros.
            storage.push(AlignedBytes::filled(byte_size(param)?, 0xff)?);
        }
        Ok(PreparedCall {
            entry,
            function: *function,
            storage,
        })
    }
}

/// A call of a compiled function with its argument and result buffers in place.
pub struct PreparedCall<'m> {
    entry: &'m EntryPoint,
    function: PackedFn,
    storage: Vec<AlignedBytes>,
}

impl PreparedCall<'_> {
    /// Runs the function once on the prepared buffers. A run-time check on the data that
    /// failed (an out-of-range Gather index) is an error with the check's message; the
    /// outputs are then unspecified.
    pub fn run(&mut self) -> Result<(), RunError> {
        let mut pointers: Vec<*mut c_void> =
            self.storage.iter_mut().map(|s| s.as_mut_ptr()).collect();
        // SAFETY: every pointer addresses a buffer of the size and element type the entry
        // point's parameter says, the buffers are distinct, and they outlive the call.
        let code = unsafe { (self.function)(pointers.as_mut_ptr()) };
        match (code, &self.entry.status) {
            (0, _) => Ok(()),
            (code, Some(status)) => Err(RunError(format!(
                "@{}: {} (status {code})",
                self.entry.name,
                status.message(code.into())
            ))),
            (code, None) => Err(RunError(format!(
                "@{} returned status {code}, which it does not define",
                self.entry.name
            ))),
        }
    }

    /// The results of the last run.
    pub fn outputs(&self) -> Result<Vec<Tensor>, RunError> {
        let inputs = self.entry.inputs().count();
        self.entry
            .outputs()
            .zip(&self.storage[inputs..])
            .map(|(param, bytes)| to_tensor(param, bytes.as_slice()))
            .collect()
    }

    /// Bytes of the argument and result buffers the caller holds.
    pub fn argument_bytes(&self) -> usize {
        self.storage.iter().map(|s| s.len).sum()
    }
}

/// The bytes of `param`'s buffer, or why it cannot be allocated.
fn byte_size(param: &AbiParam) -> Result<usize, RunError> {
    param.byte_size().ok_or_else(|| {
        RunError(format!(
            "a buffer of type {} takes more bytes than can be allocated",
            param.ir_type
        ))
    })
}

/// The tensor dtype of an ABI element.
pub(crate) fn dtype(element: ElementKind) -> DType {
    match element {
        ElementKind::Bool => DType::Bool,
        ElementKind::Int { bits, unsigned } => match (bits, unsigned) {
            (8, false) => DType::I8,
            (16, false) => DType::I16,
            (32, false) => DType::I32,
            (64, false) => DType::I64,
            (8, true) => DType::U8,
            (16, true) => DType::U16,
            (32, true) => DType::U32,
            _ => DType::U64,
        },
        ElementKind::Index => DType::I64,
        ElementKind::F16 => DType::F16,
        ElementKind::BF16 => DType::BF16,
        ElementKind::F32 => DType::F32,
        ElementKind::F64 => DType::F64,
    }
}

pub(crate) fn check_argument(param: &AbiParam, arg: &Tensor) -> Result<(), String> {
    let want = dtype(param.element);
    if arg.dtype() != want {
        return Err(format!(
            "expected {want} elements for {}, got {}",
            param.ir_type,
            arg.dtype()
        ));
    }
    match &param.shape {
        Some(shape) if arg.shape() != shape.as_slice() => Err(format!(
            "expected shape {shape:?} for {}, got {:?}",
            param.ir_type,
            arg.shape()
        )),
        None if arg.numel() != 1 => Err(format!(
            "expected one element for scalar {}, got shape {:?}",
            param.ir_type,
            arg.shape()
        )),
        _ => Ok(()),
    }
}

pub(crate) fn to_tensor(param: &AbiParam, bytes: &[u8]) -> Result<Tensor, RunError> {
    let data = tb_tensor::npy::decode(dtype(param.element), false, bytes);
    let shape = param.shape.clone().unwrap_or_default();
    Tensor::new(shape, data).map_err(|e| RunError(e.0))
}

/// Heap bytes aligned like the buffers compiled code allocates itself.
struct AlignedBytes {
    pointer: NonNull<u8>,
    layout: Layout,
    len: usize,
}

impl AlignedBytes {
    fn filled(len: usize, byte: u8) -> Result<AlignedBytes, RunError> {
        let layout = Layout::from_size_align(len.max(1), super::buffers::BUFFER_ALIGNMENT as usize)
            .map_err(|e| RunError(format!("cannot allocate {len} bytes: {e}")))?;
        // SAFETY: the layout has a non-zero size.
        let pointer = NonNull::new(unsafe { alloc_zeroed(layout) })
            .ok_or_else(|| RunError(format!("out of memory allocating {len} bytes")))?;
        let mut bytes = AlignedBytes {
            pointer,
            layout,
            len,
        };
        bytes.as_mut_slice().fill(byte);
        Ok(bytes)
    }

    fn from_bytes(data: &[u8]) -> Result<AlignedBytes, RunError> {
        let mut bytes = AlignedBytes::filled(data.len(), 0)?;
        bytes.as_mut_slice().copy_from_slice(data);
        Ok(bytes)
    }

    fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` initialized bytes live at `pointer`.
        unsafe { std::slice::from_raw_parts(self.pointer.as_ptr(), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `self` is borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len) }
    }

    fn as_mut_ptr(&mut self) -> *mut c_void {
        self.pointer.as_ptr().cast()
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `filled`.
        unsafe { dealloc(self.pointer.as_ptr(), self.layout) }
    }
}
