//! NVIDIA's PTX assembler: `tb-translate --emit=cubin` hands it the PTX TensorBind emits
//! and writes the machine code (a cubin for one architecture) it makes. TensorBind does
//! not ship it; it is found through `TB_PTXAS`, the `PATH` or a CUDA toolkit's usual
//! places.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::GpuArch;

/// Where toolkits install `ptxas`.
pub const SEARCH_PATHS: &[&str] = &[
    "/usr/local/cuda/bin/ptxas",
    "/usr/lib/nvidia-cuda-toolkit/bin/ptxas",
    "/opt/cuda/bin/ptxas",
];

/// The `ptxas` program: `$TB_PTXAS`, `ptxas` on the `PATH`, `$CUDA_HOME/bin`, or a
/// toolkit's usual place.
pub fn find() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("TB_PTXAS").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("TB_PTXAS={} is not a file", path.display()))
        };
    }
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("ptxas"))
                .collect()
        })
        .unwrap_or_default();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var) {
            candidates.push(Path::new(&home).join("bin/ptxas"));
        }
    }
    candidates.extend(SEARCH_PATHS.iter().map(PathBuf::from));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        "--emit=cubin needs NVIDIA's PTX assembler, ptxas (from a CUDA toolkit, Debian's nvidia-cuda-toolkit, or PyPI's nvidia-cuda-nvcc-cu12, which scripts/setup.sh installs into .venv); put it on the PATH or set TB_PTXAS to its path".to_owned()
    })
}

/// Assembles `ptx` for `arch` with `ptxas`; returns the cubin's bytes, or what ptxas
/// said when it refused.
pub fn assemble(ptx: &str, arch: GpuArch) -> Result<Vec<u8>, String> {
    let ptxas = find()?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let input = dir.path().join("module.ptx");
    let output = dir.path().join("module.cubin");
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let run = Command::new(&ptxas)
        .arg(format!("-arch={}", arch.name()))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    if !run.status.success() {
        return Err(format!(
            "{} refused the PTX ({}): {}",
            ptxas.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    std::fs::read(&output).map_err(|e| format!("cannot read {}: {e}", output.display()))
}
