//! NVIDIA's libdevice: the bitcode library of math functions (`__nv_expf`, ...) that CUDA
//! compilers link into kernels. It ships with the CUDA toolkit; TensorBind finds it through
//! `TB_LIBDEVICE` or the toolkit's usual places, and links it only into modules that call
//! one of its functions.

use std::path::{Path, PathBuf};

use inkwell::context::Context as LlvmContext;
use inkwell::module::{Linkage, Module};

/// Where toolkits install `libdevice.10.bc`.
const SEARCH_PATHS: &[&str] = &[
    "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
    "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
    "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc",
    "/opt/cuda/nvvm/libdevice/libdevice.10.bc",
];

/// The libdevice bitcode file: `$TB_LIBDEVICE`, `$CUDA_HOME/nvvm/libdevice`, or a
/// toolkit's usual place.
pub fn find() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("TB_LIBDEVICE") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("TB_LIBDEVICE={} is not a file", path.display()))
        };
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var) {
            candidates.push(Path::new(&home).join("nvvm/libdevice/libdevice.10.bc"));
        }
    }
    candidates.extend(SEARCH_PATHS.iter().map(PathBuf::from));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        "math functions on NVPTX need NVIDIA's libdevice (libdevice.10.bc from the CUDA toolkit, e.g. Debian's nvidia-cuda-toolkit); set TB_LIBDEVICE to its path".to_owned()
    })
}

/// Whether `module` calls libdevice.
pub fn is_needed(module: &Module) -> bool {
    module
        .get_functions()
        .any(|f| f.count_basic_blocks() == 0 && f.get_name().to_bytes().starts_with(b"__nv_"))
}

/// Links libdevice into `module` and makes its functions internal, so that the optimizer
/// keeps only those the kernels call.
pub fn link_into<'ctx>(llvm: &'ctx LlvmContext, module: &Module<'ctx>) -> Result<(), String> {
    let path = find()?;
    let library = Module::parse_bitcode_from_path(&path, llvm)
        .map_err(|e| format!("cannot read libdevice {}: {e}", path.display()))?;
    library.set_triple(&module.get_triple());
    if let Some(layout) = Some(module.get_data_layout()) {
        library.set_data_layout(&layout);
    }
    let defined: Vec<String> = library
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    module
        .link_in_module(library)
        .map_err(|e| format!("cannot link libdevice {}: {e}", path.display()))?;
    for name in defined {
        if let Some(f) = module.get_function(&name) {
            f.set_linkage(Linkage::Internal);
        }
    }
    Ok(())
}
