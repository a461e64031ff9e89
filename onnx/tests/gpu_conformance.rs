//! ONNX's node conformance suite on the GPU path, without a GPU: every case that imports and
//! lowers to loops is mapped onto `gpu.launch` kernels (`convert-loop-to-gpu`), run by the
//! reference interpreter at that level (every thread of every block) against the case's
//! expected outputs, and its kernels are emitted as PTX for sm_80 and sm_90 and assembled
//! by NVIDIA's `ptxas`.
//!
//! `ptxas` comes from the project's Python environment (PyPI's nvidia-cuda-nvcc, installed
//! by scripts/setup.sh) or the PATH; libdevice likewise, through `TB_LIBDEVICE`. Without
//! them the test stops with a reason, and under `CI=true` fails.
//!
//! Prints `gpu: N passed, N failed, N not lowered` and `ptxas: N kernels modules assembled`.
//! Run one case by name filter: `cargo test --release -p tb-onnx --test gpu_conformance -- relu`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use tb_backends::nvptx::{self, GpuArch};
use tb_interpreter::exec::Interpreter;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_onnx::import::import_model;
use tb_onnx::{ConformanceCase, NodeTestSuite};

mod suite_run;

use suite_run::{compare_case, import_options, run_in_parallel};

enum Outcome {
    Pass,
    /// Import or lowering refused the case (the CPU path refuses it too), or the mapping
    /// refused run-time control flow, which the GPU path does not map yet.
    NotLowered,
    Fail(String),
}

/// The project's Python environment's site-packages directories holding nvidia/cuda_nvcc.
fn wheel_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let Ok(entries) = std::fs::read_dir(root.join(".venv/lib")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path().join("site-packages/nvidia/cuda_nvcc"))
        .filter(|p| p.is_dir())
        .collect()
}

fn find_ptxas() -> Option<PathBuf> {
    let from_wheel = wheel_dirs()
        .into_iter()
        .map(|d| d.join("bin/ptxas"))
        .find(|p| p.is_file());
    from_wheel.or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("ptxas"))
                .find(|p| p.is_file())
        })
    })
}

fn set_libdevice() -> bool {
    if std::env::var_os("TB_LIBDEVICE").is_some() {
        return true;
    }
    let found = wheel_dirs()
        .into_iter()
        .map(|d| d.join("nvvm/libdevice/libdevice.10.bc"))
        .find(|p| p.is_file());
    match found {
        Some(path) => {
            // SAFETY: set once, before any thread starts.
            unsafe { std::env::set_var("TB_LIBDEVICE", path) };
            true
        }
        None => nvptx::libdevice::find().is_ok(),
    }
}

fn assemble(ptxas: &Path, ptx: &str, arch: GpuArch, dir: &Path) -> Result<(), String> {
    let source = dir.join(format!("{}.ptx", arch.name()));
    std::fs::write(&source, ptx).map_err(|e| format!("cannot write PTX: {e}"))?;
    let output = Command::new(ptxas)
        .arg(format!("-arch={}", arch.name()))
        .arg(&source)
        .arg("-o")
        .arg(dir.join(format!("{}.cubin", arch.name())))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ptxas -arch={} rejected the PTX: {}",
            arch.name(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn run_case(case: &ConformanceCase, ptxas: &Path, scratch: &Path) -> Outcome {
    let options = import_options(case);
    let Ok(mut imported) = import_model(&case.model, &options) else {
        return Outcome::NotLowered;
    };
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let verify = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    // The default GPU pipeline up to its mapping, which runs on its own below so that a
    // case the lowering refuses is told apart from a mapping failure.
    let lowering = tb_passes::pipelines::GPU.replace(", convert-loop-to-gpu)", ")");
    assert_ne!(
        lowering,
        tb_passes::pipelines::GPU,
        "the GPU pipeline ends in the mapping"
    );
    let lower = Pipeline::parse(&lowering).expect("valid pipeline");
    let mut pm = PassManager::new(&lower, &registry).expect("registered passes");
    if pm.run(&mut imported.ctx, imported.module, &verify).is_err() {
        return Outcome::NotLowered;
    }
    let map = Pipeline::parse("builtin.module(convert-loop-to-gpu)").expect("valid pipeline");
    let mut pm = PassManager::new(&map, &registry).expect("registered pass");
    if let Err(d) = pm.run(&mut imported.ctx, imported.module, &verify) {
        // Run-time control flow (graph.if, graph.loop, graph.scan) compiles for the CPU but
        // is not mapped to GPU kernels yet: the mapping refuses it by name, which is not a
        // wrong result.
        if d.message.contains("run-time control flow") {
            return Outcome::NotLowered;
        }
        return Outcome::Fail(format!("convert-loop-to-gpu: {}", d.message));
    }
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    match interp.run_function(&imported.function, &case.inputs) {
        Ok(results) => {
            if let Err(m) = compare_case(&results, case) {
                return Outcome::Fail(format!("gpu-level interpreter: {m}"));
            }
        }
        Err(d) => return Outcome::Fail(format!("gpu-level interpreter: {}", d.message)),
    }
    let dir = scratch.join(&case.name);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Outcome::Fail(format!("scratch directory: {e}"));
    }
    for arch in GpuArch::ALL {
        let ptx = match nvptx::compile(&imported.ctx, imported.module, arch) {
            Ok(ptx) => ptx,
            Err(d) => {
                return Outcome::Fail(format!("NVPTX backend ({}): {}", arch.name(), d.message));
            }
        };
        if let Err(m) = assemble(ptxas, &ptx.ptx, arch, &dir) {
            return Outcome::Fail(m);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Outcome::Pass
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let must_run = tb_support::test_gate::every_test_must_run();
    let unavailable = |why: String| {
        if must_run {
            println!("gpu conformance: FAILED: cannot run under CI=true: {why}");
            ExitCode::FAILURE
        } else {
            println!("gpu conformance: skipped: {why}");
            ExitCode::SUCCESS
        }
    };
    let suite = match NodeTestSuite::locate() {
        Ok(s) => s,
        Err(e) => return unavailable(format!("the ONNX node test data is not available: {e}")),
    };
    let Some(ptxas) = find_ptxas() else {
        return unavailable("ptxas not found (run scripts/setup.sh, or put ptxas on PATH)".into());
    };
    if !set_libdevice() {
        return unavailable(
            "libdevice not found (run scripts/setup.sh, or set TB_LIBDEVICE)".into(),
        );
    }
    let names = match suite.case_names() {
        Ok(n) => n,
        Err(e) => {
            println!("gpu conformance: cannot list the cases: {e}");
            return ExitCode::FAILURE;
        }
    };
    let scratch = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            println!("gpu conformance: no scratch directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed, mut not_lowered) = (0usize, 0usize, 0usize);
    let names: Vec<String> = names
        .into_iter()
        .filter(|name| filter.as_ref().is_none_or(|f| name.contains(f.as_str())))
        .collect();
    let outcomes = run_in_parallel(&names, |name| match suite.load(name) {
        Ok(case) => catch_unwind(AssertUnwindSafe(|| run_case(&case, &ptxas, scratch.path())))
            .unwrap_or_else(|_| Outcome::Fail("panicked".into())),
        Err(_) => Outcome::NotLowered,
    });
    for (name, outcome) in names.into_iter().zip(outcomes) {
        match outcome {
            Outcome::Pass => passed += 1,
            Outcome::NotLowered => not_lowered += 1,
            Outcome::Fail(why) => {
                failed += 1;
                println!("FAIL (gpu) {name}: {}", why.replace('\n', "\n    "));
            }
        }
    }
    println!("gpu: {passed} passed, {failed} failed, {not_lowered} not lowered");
    println!("ptxas: {} modules assembled for sm_80 and sm_90", passed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
