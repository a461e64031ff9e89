//! Running a module of upstream MLIR dialects with MLIR's own lowering pipeline and its
//! ExecutionEngine (through `melior`): the differential oracle for what
//! `tb-translate --emit=mlir-upstream` writes, checked against TensorBind's own CPU backend.
//!
//! Functions are called through MLIR's C interface (`llvm.emit_c_interface`): every memref
//! argument and result is a strided descriptor `{allocated, aligned, offset, sizes[r],
//! strides[r]}`. Only `f32` memrefs of static shape are passed here, which is what the
//! exported loop level of TensorBind's float models takes and returns.

use std::fmt;

use melior::ExecutionEngine;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{parse_pass_pipeline, register_all_llvm_translations, register_all_passes};

use crate::mlir_interop::{MlirError, parse_and_verify, upstream_context};

/// MLIR's own lowering of the exported dialects to the LLVM dialect.
pub const LOWERING_PIPELINE: &str = "builtin.module(func.func(llvm-request-c-wrappers),\
     convert-scf-to-cf,lower-affine,convert-vector-to-llvm,finalize-memref-to-llvm,\
     convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,\
     reconcile-unrealized-casts)";

/// A static-shape `f32` buffer, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub shape: Vec<i64>,
    pub data: Vec<f32>,
}

/// Why a module did not run.
#[derive(Debug)]
pub enum ExecutionError {
    Parse(MlirError),
    Lowering(String),
    Call(String),
}

impl fmt::Display for ExecutionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecutionError::Parse(e) => write!(f, "MLIR rejected the module: {e}"),
            ExecutionError::Lowering(m) => write!(f, "MLIR's lowering failed: {m}"),
            ExecutionError::Call(m) => write!(f, "calling the function failed: {m}"),
        }
    }
}

impl std::error::Error for ExecutionError {}

unsafe extern "C" {
    /// The C library's `free`: results are allocated by `malloc` in MLIR's lowering of
    /// `memref.alloc`.
    fn free(pointer: *mut std::ffi::c_void);
}

/// Lowers `source` with [`LOWERING_PIPELINE`], JIT-compiles it with MLIR's ExecutionEngine
/// and calls `function` on `args`; `results` gives the shape of each memref the function
/// returns.
pub fn run_f32(
    source: &str,
    function: &str,
    args: &[Buffer],
    results: &[Vec<i64>],
) -> Result<Vec<Buffer>, ExecutionError> {
    register_all_passes();
    let context = upstream_context();
    register_all_llvm_translations(&context);
    let mut module: Module = parse_and_verify(&context, source).map_err(ExecutionError::Parse)?;
    let manager = PassManager::new(&context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), LOWERING_PIPELINE)
        .map_err(|e| ExecutionError::Lowering(e.to_string()))?;
    manager
        .run(&mut module)
        .map_err(|e| ExecutionError::Lowering(e.to_string()))?;
    // The engine cannot report a failed translation to LLVM IR (it would be null): every op
    // must be in the LLVM dialect by now.
    let lowered = module.as_operation().to_string();
    if let Some(op) = first_op_outside_llvm(&lowered) {
        return Err(ExecutionError::Lowering(format!(
            "'{op}' is left after MLIR's lowering pipeline"
        )));
    }
    let engine = ExecutionEngine::new(&module, 2, &[], false, false);

    // Arguments are copied so that the callee may not write into the caller's data.
    let mut inputs: Vec<Vec<f32>> = args.iter().map(|a| a.data.clone()).collect();
    let mut descriptors: Vec<Vec<u64>> = Vec::new();
    for shape in results {
        descriptors.push(vec![0; 3 + 2 * shape.len()]);
    }
    for (buffer, data) in args.iter().zip(inputs.iter_mut()) {
        descriptors.push(packed_descriptor(data.as_mut_ptr(), &buffer.shape));
    }
    let mut descriptor_pointers: Vec<*mut u64> =
        descriptors.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let mut packed: Vec<*mut ()> = descriptor_pointers
        .iter_mut()
        .map(|p| p as *mut *mut u64 as *mut ())
        .collect();
    if results.len() > 1 {
        return Err(ExecutionError::Call(
            "functions returning more than one memref are not called through the C interface \
             this way"
                .into(),
        ));
    }
    // MLIR's C API calls the packed wrapper of `_mlir_ciface_<function>`.
    // SAFETY: every packed argument points to a pointer to a descriptor laid out as MLIR's
    // C interface expects for the function's memref types (checked by the caller through
    // `results` and the argument shapes); the result descriptor is written by the callee.
    unsafe {
        engine
            .invoke_packed(function, &mut packed)
            .map_err(|e| ExecutionError::Call(e.to_string()))?;
    }
    let mut out = Vec::new();
    for (shape, descriptor) in results.iter().zip(&descriptors) {
        let aligned = descriptor[1] as *const f32;
        let offset = descriptor[2] as usize;
        let count: i64 = shape.iter().product();
        let strides = &descriptor[3 + shape.len()..3 + 2 * shape.len()];
        let mut data = Vec::with_capacity(count as usize);
        for linear in 0..count {
            let mut rest = linear;
            let mut position = offset;
            for (d, &extent) in shape.iter().enumerate().rev() {
                position += (rest % extent) as usize * strides[d] as usize;
                rest /= extent;
            }
            // SAFETY: the callee returned a descriptor of this static shape; its strides
            // address elements inside the buffer it allocated.
            data.push(unsafe { *aligned.add(position) });
        }
        out.push(Buffer {
            shape: shape.clone(),
            data,
        });
    }
    for descriptor in &descriptors[..results.len()] {
        // SAFETY: the allocated pointer of a returned buffer came from `malloc`, and the
        // result is not an argument (exported functions copy arguments they return).
        unsafe { free(descriptor[0] as *mut std::ffi::c_void) };
    }
    Ok(out)
}

/// The name of the first op of printed module `text` that is not in the LLVM dialect.
fn first_op_outside_llvm(text: &str) -> Option<String> {
    // The resource trailer (`{-# dialect_resources: ... #-}`) holds no ops.
    let ops = text.split("{-#").next().unwrap_or(text);
    ops.lines().find_map(|line| {
        let line = line.trim_start();
        // Skip results (`%a, %b = `) to the op name.
        let rest = match line.find(" = ") {
            Some(i) if line.starts_with('%') => &line[i + 3..],
            _ => line,
        };
        let name: String = rest
            .trim_start_matches('"')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let is_op = name.contains('.') && !name.starts_with('.');
        (is_op && !name.starts_with("llvm.") && !name.starts_with("builtin.")).then_some(name)
    })
}

/// The words of a strided memref descriptor as MLIR lays it out (the allocated and aligned
/// pointers, the offset, the sizes, the strides), for a contiguous row-major buffer of
/// `shape` at `data`.
fn packed_descriptor(data: *mut f32, shape: &[i64]) -> Vec<u64> {
    let mut words = vec![data as u64, data as u64, 0];
    words.extend(shape.iter().map(|&s| s as u64));
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    words.extend(strides.iter().map(|&s| s as u64));
    words
}
