//! Every pass keeps what the IR computes: each test runs a module in the reference
//! interpreter on random inputs before and after a pipeline (`check_transform`).

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

/// Runs `pipeline` on `src` under the interpreter's before/after check; returns the result.
fn check_pipeline(src: &str, pipeline: &str) -> CheckReport {
    check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
            let instr = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instr)
        },
        Tolerance::default(),
        4,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"))
}

#[test]
fn canonicalize_keeps_integer_and_float_arithmetic() {
    let out = check_pipeline(
        r#"
func.func @ints(%x: i32, %y: i32) -> (i32, i32, i1) {
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %a = arith.addi %x, %c3 : i32
  %b = arith.addi %a, %c4 : i32
  %m = arith.muli %b, %c3 : i32
  %n = arith.muli %m, %c4 : i32
  %z = arith.addi %n, %c0 : i32
  %s = arith.subi %y, %y : i32
  %t = arith.addi %z, %s : i32
  %cmp = arith.cmpi slt, %c3, %c4 : i32
  return %t, %s, %cmp : i32, i32, i1
}
func.func @floats(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %p = arith.mulf %x, %one : f32
  %q = arith.addf %one, %two : f32
  %r = arith.mulf %p, %q : f32
  return %r : f32
}
"#,
        "builtin.module(canonicalize)",
    );
    assert!(out.text.contains("arith.constant 7 : i32"), "{}", out.text);
    assert!(out.skipped.is_empty());
}

#[test]
fn cse_keeps_tensor_expressions() {
    check_pipeline(
        r#"
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %x = te.compute (%a) [%i, %j] {
    %v = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %w = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %s = arith.addf %v, %w : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
"#,
        "builtin.module(func.func(cse,canonicalize))",
    );
}

#[test]
fn inline_keeps_calls_with_loops() {
    let out = check_pipeline(
        r#"
func.func private @scale(%m: memref<8xf32>, %s: f32) {
  loop.for %i = 0 to 8 {
    %x = loop.load %m[%i] : memref<8xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %m[%i] : memref<8xf32>
  }
  return
}
func.func @f(%m: memref<8xf32>, %s: f32) -> memref<8xf32> {
  call @scale(%m, %s) : (memref<8xf32>, f32) -> ()
  call @scale(%m, %s) : (memref<8xf32>, f32) -> ()
  return %m : memref<8xf32>
}
"#,
        "builtin.module(inline,symbol-dce)",
    );
    assert!(!out.text.contains("call @scale"), "{}", out.text);
}

/// Functions of the canonicalize tests whose folds depend on signaling NaNs. The interpreter
/// holds floats as `f64` and reads every NaN constant as a quiet NaN, so it cannot see
/// that `minnumf(sNaN, x)` is a NaN (LLVM's and APFloat's semantics), which the fold gives;
/// the lit test checks those folds bit for bit against mlir-opt instead.
const SIGNALING_NAN_CASES: &[&str] = &["maxnumf_minnumf_nan"];

/// `src` without the top-level functions named in `names` (each from its `func.func @name`
/// line through the first line that is a lone `}`).
fn without_functions(src: &str, names: &[&str]) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in src.lines() {
        let header = names
            .iter()
            .any(|n| line.starts_with(&format!("func.func @{n}(")));
        if header {
            skipping = true;
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
        if skipping && line == "}" {
            skipping = false;
        }
    }
    out
}

/// Each dialect's `canonicalize.mlir` lit test, run through the oracle: every fold and
/// pattern it exercises keeps the functions' results on random inputs.
/// Returns the functions left out because they divide by zero or index out of range on
/// purpose (to show such folds are not done).
fn check_canonicalize_file(dialect: &str) -> Vec<String> {
    let path = format!(
        "{}/../test/Dialect/{dialect}/canonicalize.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).unwrap();
    let src = without_functions(&src, SIGNALING_NAN_CASES);
    let report = check_pipeline(&src, "builtin.module(canonicalize)");
    for (name, why) in &report.skipped {
        eprintln!("{dialect}: @{name} left out: {why}");
    }
    report.skipped.into_iter().map(|(name, _)| name).collect()
}

#[test]
fn arith_canonicalize_tests_keep_their_meaning() {
    // Left out: divisions by zero and overflowing divisions kept on purpose (not folded),
    // element types the interpreter does not compute in (f8 formats, i128), and divisions
    // by random (possibly zero) arguments.
    assert_eq!(
        check_canonicalize_file("arith"),
        [
            "div_by_zero",
            "ceildivsi_no_fold",
            "ceildivui_one_and_zero",
            "floordivsi_edges",
            "invalid_operation_nan_formats",
            "nan_operands_formats",
            "float_casts_exact",
            "mul_extended_i128",
            "i1_division",
            "elementwise_division_by_zero",
            "div_of_mul",
        ]
    );
}

#[test]
fn graph_canonicalize_tests_keep_their_meaning() {
    // Left out: a division by zero and gathers out of range kept on purpose, a size of a
    // tensor too large for any input (2^96 elements), and the fold-budget cases, whose
    // 2^40-element splats no interpreter run can hold (they show folds never expand them).
    assert_eq!(
        check_canonicalize_file("graph"),
        [
            "size_overflow",
            "division_by_zero",
            "gather_out_of_range",
            "gather_splat_indices_beyond_budget",
            "gather_splat_data",
            "gather_splat_data_out_of_range",
            "reduce_splat_beyond_budget",
            "splat_arithmetic",
            "concat_splats",
        ]
    );
}

#[test]
fn te_canonicalize_tests_keep_their_meaning() {
    assert!(check_canonicalize_file("te").is_empty());
}

#[test]
fn loop_canonicalize_tests_keep_their_meaning() {
    assert!(check_canonicalize_file("loop").is_empty());
}

#[test]
fn math_canonicalize_tests_keep_their_meaning() {
    assert_eq!(check_canonicalize_file("math"), ["ipowi_zero_negative"]);
}

#[test]
fn memref_canonicalize_tests_keep_their_meaning() {
    // Functions with dynamic shapes cannot get random inputs, some index out of bounds on
    // purpose, and `memref.view` (a typed view of raw bytes) is not interpreted; the other
    // functions must keep their results.
    let skipped = check_canonicalize_file("memref");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/Dialect/memref/canonicalize.mlir"
    );
    let functions = std::fs::read_to_string(path)
        .unwrap()
        .matches("func.func @")
        .count();
    assert!(skipped.len() * 2 < functions, "{skipped:?} of {functions}");
}

#[test]
fn func_canonicalize_tests_keep_their_meaning() {
    // It calls a declaration, which has no body to run.
    assert_eq!(check_canonicalize_file("func"), ["unused_call_kept"]);
}

#[test]
fn cf_canonicalize_tests_keep_their_meaning() {
    // Left out: the assertion that fails on random inputs where its flag is false.
    let skipped = check_canonicalize_file("cf");
    assert!(
        skipped.iter().all(|name| name == "assert_true"),
        "{skipped:?}"
    );
}
