//! `tensorbind._native`: the part of TensorBind's Python package that runs in process. It
//! compiles an ONNX model into a library (`.so`, C header and manifest) with the same
//! import, CPU pipeline and code generation as `tb-translate --emit=shared-lib`, without
//! starting a tool; `tensorbind.compile` calls it, and the library is then loaded as any
//! deployed one is.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tb_backends::cpu::{CompileOptions, OptLevel, TargetOptions};
use tb_tools::library::build_library;
use tb_tools::load::{Loaded, load_onnx, load_onnx_bytes};
use tb_tools::lower::{LowerOptions, lower};

pyo3::create_exception!(
    _native,
    TensorBindError,
    PyRuntimeError,
    "A model TensorBind cannot compile (with the compiler's located message), or a compiled \
     function that found its data invalid (an out-of-range Gather index)."
);

/// Where the model comes from.
enum Model {
    Path(PathBuf),
    Bytes(Vec<u8>),
}

impl Model {
    fn load(&self, input_shapes: HashMap<String, Vec<i64>>) -> Result<Loaded, String> {
        match self {
            Model::Path(path) => load_onnx(&path.to_string_lossy(), input_shapes),
            Model::Bytes(bytes) => load_onnx_bytes(bytes, "<bytes>", input_shapes),
        }
    }

    fn name(&self) -> String {
        match self {
            Model::Path(path) => path.display().to_string(),
            Model::Bytes(_) => "<bytes>".to_owned(),
        }
    }
}

/// What `compile_onnx` needs besides the model.
struct Request {
    out_dir: PathBuf,
    stem: String,
    options: CompileOptions,
    input_shapes: HashMap<String, Vec<i64>>,
}

fn compile(model: &Model, request: Request) -> Result<(), String> {
    let mut loaded = model.load(request.input_shapes)?;
    lower(
        &mut loaded,
        "cpu",
        LowerOptions::default(),
        "tensorbind.compile",
        "tb-opt --list-passes",
    )?;
    let files = build_library(&loaded, &request.options, &request.stem, &model.name())?;
    let write = |extension: &str, bytes: &[u8]| {
        let path = request
            .out_dir
            .join(format!("{}.{extension}", request.stem));
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write '{}': {e}", path.display()))
    };
    write("so", &files.library)?;
    write("h", files.header.as_bytes())?;
    write("json", files.manifest.as_bytes())
}

/// Compiles the ONNX `model` (a path, or the model's bytes) into `<out_dir>/<stem>.so`,
/// `.h` and `.json`. `threads`: parallel loops on that many threads (0: one per core; None:
/// in order); `mcpu`: the CPU to generate code for (None: this machine's); `opt_level`:
/// LLVM's, 0 to 3; `input_shapes`: shapes of inputs with dynamic dimensions.
#[pyfunction]
#[pyo3(signature = (model, out_dir, stem, threads=None, mcpu=None, opt_level=3, input_shapes=None))]
#[allow(clippy::too_many_arguments)] // mirrors the Python signature
fn compile_onnx(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    out_dir: PathBuf,
    stem: String,
    threads: Option<usize>,
    mcpu: Option<String>,
    opt_level: u32,
    input_shapes: Option<HashMap<String, Vec<i64>>>,
) -> PyResult<()> {
    let model = match model.extract::<Vec<u8>>() {
        Ok(bytes) if !model.is_instance_of::<pyo3::types::PyString>() => Model::Bytes(bytes),
        _ => Model::Path(model.extract::<PathBuf>()?),
    };
    let opt_level = OptLevel::from_number(opt_level).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "opt_level must be 0, 1, 2 or 3, not {opt_level}"
        ))
    })?;
    let request = Request {
        out_dir,
        stem,
        options: CompileOptions {
            target: TargetOptions {
                cpu: mcpu,
                features: None,
            },
            opt_level,
            threads,
            ..CompileOptions::default()
        },
        input_shapes: input_shapes.unwrap_or_default(),
    };
    // Compiling takes seconds: other Python threads run meanwhile.
    py.detach(|| compile(&model, request))
        .map_err(TensorBindError::new_err)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile_onnx, m)?)?;
    m.add("TensorBindError", m.py().get_type::<TensorBindError>())?;
    Ok(())
}
