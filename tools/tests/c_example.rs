//! The C example (`examples/cpu`): a loop-level module compiled into a shared library by
//! `tb-translate --emit=shared-lib`, called by a C program built with `cc` through the
//! generated header. What the program prints must match the reference interpreter.
//!
//! Skipped, with a message saying why, where no C compiler is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The C compiler driver tb-translate links with: `$CC`, else `cc`.
fn c_compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_owned())
}

fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The inputs dense_relu.c builds, by the same formulas.
fn inputs() -> (Tensor, Tensor, Tensor) {
    let x: Vec<f32> = (0..64).map(|n| ((n % 7) - 3) as f32 * 0.25).collect();
    let w: Vec<f32> = (0..128).map(|n| ((n % 5) - 2) as f32 * 0.125).collect();
    let b: Vec<f32> = (0..8).map(|j| ((j % 3) - 1) as f32 * 0.5).collect();
    (
        Tensor::from_vec(vec![4, 16], x).unwrap(),
        Tensor::from_vec(vec![16, 8], w).unwrap(),
        Tensor::from_vec(vec![8], b).unwrap(),
    )
}

/// `name[index] = value` lines as (name, index, value).
fn parse_output(text: &str) -> Vec<(String, usize, f64)> {
    text.lines()
        .map(|line| {
            let (lhs, value) = line.split_once(" = ").expect("name[i] = value");
            let (name, index) = lhs.trim_end_matches(']').split_once('[').expect("name[i]");
            (
                name.to_owned(),
                index.parse().expect("index"),
                value.parse().expect("value"),
            )
        })
        .collect()
}

#[test]
fn c_program_calls_the_shared_library() {
    let cc = c_compiler();
    if Command::new(&cc).arg("--version").output().is_err() {
        let why = format!("no C compiler '{cc}' found (install one, e.g. gcc, or set CC)");
        return tb_support::test_gate::skip("c_program_calls_the_shared_library", why);
    }
    let example = root().join("examples/cpu");
    let dir = std::env::temp_dir().join(format!("tb-c-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    run(Command::new(env!("CARGO_BIN_EXE_tb-translate"))
        .arg("--emit=shared-lib")
        .arg(example.join("dense_relu.mlir"))
        .arg("-o")
        .arg(dir.join("libdense_relu.so")));
    let header = std::fs::read_to_string(dir.join("libdense_relu.h")).unwrap();
    assert!(
        header.contains(
            "int32_t tb_dense_relu(const float* in0, const float* in1, const float* in2, float* out0);"
        ),
        "{header}"
    );
    let program = dir.join("dense_relu");
    run(Command::new(&cc)
        .arg(example.join("dense_relu.c"))
        .arg("-I")
        .arg(&dir)
        .arg("-L")
        .arg(&dir)
        .arg("-ldense_relu")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&program));
    let printed = parse_output(&run(&mut Command::new(&program)));

    let source = std::fs::read_to_string(example.join("dense_relu.mlir")).unwrap();
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = parse_source(
        &mut ctx,
        &source,
        "dense_relu.mlir",
        &ParseOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{}", d.message));
    let mut interp = Interpreter::new(&ctx, module);
    let (x, w, b) = inputs();
    let y = interp
        .run_function("dense_relu", &[x, w, b])
        .unwrap()
        .remove(0);
    let sum = interp
        .run_function("scaled_sum", &[y.clone(), Tensor::scalar(0.5f32)])
        .unwrap()
        .remove(0);

    let ys: Vec<f64> = printed
        .iter()
        .filter(|(n, _, _)| n == "y")
        .map(|(_, _, v)| *v)
        .collect();
    let got_y = Tensor::from_vec(vec![4, 8], ys.iter().map(|&v| v as f32).collect()).unwrap();
    got_y.allclose(&y, 1e-6, 1e-6).unwrap();
    // Something is positive and something was clipped, so ReLU and bias both matter.
    assert!(ys.iter().any(|&v| v > 0.0) && ys.contains(&0.0), "{ys:?}");
    let got_sum = printed
        .iter()
        .find(|(n, _, _)| n == "sum")
        .map(|(_, _, v)| *v as f32)
        .expect("sum printed");
    Tensor::scalar(got_sum).allclose(&sum, 1e-6, 1e-6).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
