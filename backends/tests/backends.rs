//! Link-level checks of the LLVM and MLIR toolchain this crate is built against.
//!
//! Kept in one test binary on purpose: every test binary links LLVM and MLIR statically.

use tb_backends::llvm_info::{self, TargetKind};
use tb_backends::mlir_interop::{self, MlirErrorKind, Severity, VerifyOptions};

#[test]
fn links_llvm_22_with_x86_and_nvptx_targets() {
    let version = llvm_info::llvm_version();
    assert_eq!(version.major, 22, "linked LLVM is {version}");

    let statuses = llvm_info::target_statuses();
    assert_eq!(
        statuses.iter().map(|s| s.kind).collect::<Vec<_>>(),
        TargetKind::ALL
    );
    for status in &statuses {
        assert!(status.available, "{status:?}");
    }
    let x86 = llvm_info::target_status(TargetKind::X86);
    assert_eq!(x86.llvm_name.as_deref(), Some("x86-64"));
    let nvptx = llvm_info::target_status(TargetKind::Nvptx);
    assert_eq!(nvptx.llvm_name.as_deref(), Some("nvptx64"));

    let names: Vec<String> = llvm_info::registered_targets()
        .into_iter()
        .map(|t| t.name)
        .collect();
    for expected in ["x86-64", "nvptx64"] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    assert_eq!(TargetKind::from_name("nvptx"), Some(TargetKind::Nvptx));
    assert_eq!(TargetKind::from_name("sparc"), None);
}

const MATMUL: &str = r#"
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
"#;

#[test]
fn mlir_parses_verifies_and_rejects() {
    // Upstream dialects are registered: a linalg/tensor/arith module verifies.
    let printed = mlir_interop::verify_module_text(MATMUL, VerifyOptions::default())
        .expect("valid upstream module");
    assert!(printed.contains("linalg.matmul"), "{printed}");

    // Syntax errors are reported with a located diagnostic.
    let error =
        mlir_interop::verify_module_text("func.func @f( {", VerifyOptions::default()).unwrap_err();
    assert_eq!(error.kind, MlirErrorKind::Rejected);
    let first = &error.diagnostics[0];
    assert_eq!(first.severity, Severity::Error);
    assert!(first.location.contains(":1:"), "{error}");

    // Well-formed text whose types disagree fails verification.
    let mismatched = "func.func @f(%x: i32) -> i64 { return %x : i32 }";
    let error = mlir_interop::verify_module_text(mismatched, VerifyOptions::default()).unwrap_err();
    assert_eq!(error.kind, MlirErrorKind::Rejected);
    assert!(
        error
            .to_string()
            .contains("doesn't match function result type"),
        "{error}"
    );

    // Unregistered ops are rejected unless allowed, as with mlir-opt.
    let graph = r#""func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "g"}> ({
      ^bb0(%x: tensor<2xf32>):
        %y = "graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
        "func.return"(%y) : (tensor<2xf32>) -> ()
      }) : () -> ()"#;
    assert!(mlir_interop::verify_module_text(graph, VerifyOptions::default()).is_err());
    let allow = VerifyOptions {
        allow_unregistered_dialects: true,
    };
    let printed = mlir_interop::verify_module_text(graph, allow).expect("unregistered allowed");
    assert!(printed.contains("\"graph.relu\""), "{printed}");

    // NUL bytes cannot reach MLIR's C API; they are reported, not a panic.
    let error = mlir_interop::verify_module_text("module {}\0", allow).unwrap_err();
    assert_eq!(error.kind, MlirErrorKind::InvalidInput);
}

/// The CPU backend: JIT-compiled loop-level functions against the reference interpreter.
mod cpu;
mod mlir_execution;
