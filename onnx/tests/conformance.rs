//! ONNX backend conformance: every node case of ONNX's suite is imported, run by the
//! reference interpreter and compared with the expected outputs (rtol 1e-3, atol 1e-7,
//! ONNX's backend defaults; NaN equals NaN).
//!
//! Cases TensorBind does not support (operators, attributes, element types, shape inputs
//! computed at run time) are skipped with their reason; every other case must pass. Prints
//! one line per failing case, the skip reasons by category, and `N passed, N failed,
//! N skipped`; exits non-zero if any case failed.
//!
//! Every case that passes is also rewritten by `graph-eqsat` (the first pass of the default
//! pipelines), lowered with `convert-graph-to-te` and run again at the
//! te level, against the same expected outputs. A case with an op that has no te lowering
//! counts as "not lowered" (listed by op); a lowered case that fails is a failure. The
//! second summary line is `te: N passed, N failed, N not lowered`.
//!
//! Every case that passes at the te level is then lowered the rest of the way by the default
//! CPU pipeline (`tb_passes::pipelines::CPU`: fusion, loops, micro-kernels, schedules,
//! buffer planning), compiled by the CPU backend (host CPU, O3), run natively and compared
//! again: `compiled: N passed, N failed`. A compiled failure fails the test.
//!
//! Every case that passes compiled is then exported to upstream MLIR's dialects
//! (`convert-loop-to-upstream`, as `tb-translate --emit=mlir-upstream` does), lowered by
//! MLIR's own pipeline, JIT-compiled by MLIR's ExecutionEngine and run on the case's inputs;
//! its results must equal the CPU backend's (integers and bools exactly, floats within the
//! case's tolerances). A case the exporter refuses counts as "not exportable" (listed by
//! reason); an exported case that MLIR rejects, fails to lower or computes differently is a
//! failure: `mlir-upstream: N passed, N failed, N not exportable`.
//!
//! Without the suite's data it says why and passes. `cargo test --release -p tb-onnx --test conformance -- FILTER` runs the cases
//! whose names contain `FILTER`; `-v` also lists every skipped case.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_onnx::import::{Imported, import_model};
use tb_onnx::{ConformanceCase, NodeTestSuite};

mod suite_run;
mod upstream_oracle;

use suite_run::{compare_case, import_options, run_in_parallel, tolerances};
use upstream_oracle::UpstreamError;

enum Outcome {
    /// Passed in the interpreter, with how the te-level run went.
    Pass(TeOutcome),
    Skip(String),
    Fail(String),
}

/// The same case after `convert-graph-to-te`.
enum TeOutcome {
    /// Passed at the te level, with how the compiled run went.
    Pass(CompiledOutcome),
    /// The op (`graph.xxx`) with no te lowering, and why.
    NotLowered(String, String),
    Fail(String),
}

/// The case compiled by the CPU backend.
enum CompiledOutcome {
    /// Passed compiled, with how the run exported to MLIR went.
    Pass(UpstreamOutcome),
    Fail(String),
}

/// The compiled case exported to upstream MLIR and run by its ExecutionEngine.
enum UpstreamOutcome {
    Pass,
    /// The exporter's reason for refusing the module.
    NotExportable(String),
    Fail(String),
}

/// Lowers the imported module to te and runs it on the case's inputs.
fn run_te(imported: &mut Imported, case: &ConformanceCase) -> TeOutcome {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse("builtin.module(graph-eqsat, convert-graph-to-te)")
        .expect("valid pipeline");
    let mut pm = PassManager::new(&pipeline, &registry).expect("registered pass");
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    if let Err(d) = pm.run(&mut imported.ctx, imported.module, &instrumentation) {
        let message = d.message.clone();
        // `'graph.xxx' op has no lowering to te: why`, with `(node "name") ` after `op`
        // when the op has an ONNX node name.
        if let Some(rest) = message.strip_prefix("'")
            && let Some((op, tail)) = rest.split_once("' op ")
            && let Some((_, why)) = tail.split_once("has no lowering to te")
        {
            return TeOutcome::NotLowered(op.to_string(), why.trim_start_matches(": ").into());
        }
        return TeOutcome::Fail(format!("convert-graph-to-te: {message}"));
    }
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    match interp.run_function(&imported.function, &case.inputs) {
        Ok(results) => match compare_case(&results, case) {
            Ok(()) => {
                let compiled = catch_unwind(AssertUnwindSafe(|| run_compiled(imported, case)))
                    .unwrap_or_else(|_| CompiledOutcome::Fail("panicked".into()));
                TeOutcome::Pass(compiled)
            }
            Err(m) => TeOutcome::Fail(m),
        },
        Err(d) => TeOutcome::Fail(format!("te interpreter: {}", d.message)),
    }
}

/// Lowers a te-level module to loops, compiles it for the host, runs it natively and, if it
/// passes, runs it exported to MLIR.
fn run_compiled(imported: &mut Imported, case: &ConformanceCase) -> CompiledOutcome {
    let results = match compile_and_run(imported, case) {
        Ok(results) => results,
        Err(why) => return CompiledOutcome::Fail(why),
    };
    if let Err(why) = compare_case(&results, case) {
        return CompiledOutcome::Fail(why);
    }
    let upstream = catch_unwind(AssertUnwindSafe(|| run_upstream(imported, case, &results)))
        .unwrap_or_else(|_| UpstreamOutcome::Fail("panicked".into()));
    CompiledOutcome::Pass(upstream)
}

/// The time spent exporting, lowering, JIT-compiling and running cases in MLIR, summed over
/// the threads that run cases.
static UPSTREAM_MICROS: AtomicU64 = AtomicU64::new(0);

/// Exports the loop-level module, runs it in MLIR's ExecutionEngine and compares its
/// results with the CPU backend's `results`.
fn run_upstream(
    imported: &mut Imported,
    case: &ConformanceCase,
    results: &[Tensor],
) -> UpstreamOutcome {
    let start = Instant::now();
    // Optimization level 0: the cases are small, and JIT time dominates.
    let mlir = upstream_oracle::export_and_run(
        &mut imported.ctx,
        imported.module,
        &imported.function,
        &case.inputs,
        0,
    );
    UPSTREAM_MICROS.fetch_add(start.elapsed().as_micros() as u64, Ordering::Relaxed);
    let (rtol, atol) = tolerances(case);
    match mlir {
        Ok(mlir) => match upstream_oracle::compare(&mlir, results, rtol, atol) {
            Ok(()) => UpstreamOutcome::Pass,
            Err(why) => UpstreamOutcome::Fail(why),
        },
        Err(UpstreamError::NotExportable(why)) => UpstreamOutcome::NotExportable(why),
        Err(UpstreamError::Failed(why)) => UpstreamOutcome::Fail(why),
    }
}

/// Lowers a te-level module to loops, compiles it for the host and runs it natively.
fn compile_and_run(imported: &mut Imported, case: &ConformanceCase) -> Result<Vec<Tensor>, String> {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    // The default CPU pipeline: its graph-level passes find nothing left to do at this
    // level, so the case goes through exactly the passes a compiled model does after them.
    let pipeline = Pipeline::parse(tb_passes::pipelines::CPU).expect("valid pipeline");
    let mut pm = PassManager::new(&pipeline, &registry).expect("registered passes");
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(&mut imported.ctx, imported.module, &instrumentation)
        .map_err(|d| format!("lowering to loops: {}", d.message))?;
    let options = CompileOptions {
        functions: Some(vec![imported.function.clone()]),
        ..CompileOptions::default()
    };
    let compiled = CompiledModule::compile(&imported.ctx, imported.module, &options)
        .map_err(|d| format!("CPU backend: {}", d.message))?;
    compiled
        .run(&imported.function, &case.inputs)
        .map_err(|e| format!("run: {e}"))
}

fn run_case(case: &ConformanceCase) -> Outcome {
    let options = import_options(case);
    let mut imported = match import_model(&case.model, &options) {
        Ok(i) => i,
        Err(e) if e.is_unsupported() => {
            let p = &e.problems[0];
            let op = if p.kind == tb_onnx::import::ProblemKind::UnsupportedOp {
                p.at.as_deref()
                    .and_then(|a| a.split(' ').next())
                    .unwrap_or("?")
                    .to_string()
            } else {
                p.message.clone()
            };
            return Outcome::Skip(format!("{}: {op}", p.kind.name()));
        }
        Err(e) => return Outcome::Fail(format!("import failed:\n{e}")),
    };
    let mut interp = Interpreter::new(&imported.ctx, imported.module);
    let results = match interp.run_function(&imported.function, &case.inputs) {
        Ok(r) => r,
        Err(d) => return Outcome::Fail(format!("interpreter: {}", d.message)),
    };
    if let Err(m) = compare_case(&results, case) {
        return Outcome::Fail(m);
    }
    let te = catch_unwind(AssertUnwindSafe(|| run_te(&mut imported, case)))
        .unwrap_or_else(|_| TeOutcome::Fail("panicked".into()));
    Outcome::Pass(te)
}

/// The reason an exporter refusal is grouped under: the first line of its message (the
/// exporter's messages name the op and the construct, not the case's values).
fn export_category(why: &str) -> String {
    why.lines().next().unwrap_or(why).trim().to_string()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let suite = match NodeTestSuite::locate() {
        Ok(s) => s,
        Err(e) if tb_support::test_gate::every_test_must_run() => {
            println!("conformance: FAILED: cannot run under CI=true: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            println!("conformance: skipped, the ONNX node test data is not available: {e}");
            return ExitCode::SUCCESS;
        }
    };
    let names = match suite.case_names() {
        Ok(n) => n,
        Err(e) => {
            println!("conformance: cannot list the cases: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut te_passed, mut te_failed) = (0usize, 0usize);
    let (mut compiled_passed, mut compiled_failed) = (0usize, 0usize);
    let (mut upstream_passed, mut upstream_failed) = (0usize, 0usize);
    let mut not_exportable: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut not_lowered: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let names: Vec<String> = names
        .into_iter()
        .filter(|name| filter.as_ref().is_none_or(|f| name.contains(f.as_str())))
        .collect();
    let outcomes = run_in_parallel(&names, |name| match suite.load(name) {
        Ok(case) => catch_unwind(AssertUnwindSafe(|| run_case(&case)))
            .unwrap_or_else(|_| Outcome::Fail("panicked".into())),
        Err(e) if e.is_unsupported() => Outcome::Skip(format!("test data: {e}")),
        Err(e) => Outcome::Fail(format!("cannot load: {e}")),
    });
    for (name, outcome) in names.into_iter().zip(outcomes) {
        match outcome {
            Outcome::Pass(te) => {
                passed += 1;
                match te {
                    TeOutcome::Pass(compiled) => {
                        te_passed += 1;
                        match compiled {
                            CompiledOutcome::Pass(upstream) => {
                                compiled_passed += 1;
                                match upstream {
                                    UpstreamOutcome::Pass => upstream_passed += 1,
                                    UpstreamOutcome::NotExportable(why) => {
                                        if verbose {
                                            println!("NOT EXPORTABLE {name}: {why}");
                                        }
                                        not_exportable
                                            .entry(export_category(&why))
                                            .or_default()
                                            .push(name);
                                    }
                                    UpstreamOutcome::Fail(why) => {
                                        upstream_failed += 1;
                                        println!(
                                            "FAIL (mlir-upstream) {name}: {}",
                                            why.replace('\n', "\n    ")
                                        );
                                    }
                                }
                            }
                            CompiledOutcome::Fail(why) => {
                                compiled_failed += 1;
                                println!("FAIL (compiled) {name}: {}", why.replace('\n', "\n    "));
                            }
                        }
                    }
                    TeOutcome::NotLowered(op, why) => {
                        if verbose {
                            println!("NOT LOWERED {name}: {op}: {why}");
                        }
                        not_lowered.entry(op).or_default().push(name);
                    }
                    TeOutcome::Fail(why) => {
                        te_failed += 1;
                        println!("FAIL (te) {name}: {}", why.replace('\n', "\n    "));
                    }
                }
            }
            Outcome::Skip(reason) => {
                skipped += 1;
                let category = reason
                    .split_once(": ")
                    .map(|(c, rest)| {
                        if c == "unsupported operator" {
                            reason.clone()
                        } else if c == "test data" {
                            "unsupported test data (strings, sequences, optionals)".into()
                        } else {
                            let _ = rest;
                            c.to_string()
                        }
                    })
                    .unwrap_or(reason.clone());
                if verbose {
                    println!("SKIP {name}: {reason}");
                }
                reasons.entry(category).or_default().push(name);
            }
            Outcome::Fail(why) => {
                failed += 1;
                println!("FAIL {name}: {}", why.replace('\n', "\n    "));
            }
        }
    }
    println!("skipped by reason:");
    for (reason, cases) in &reasons {
        println!("  {:>4}  {reason}", cases.len());
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if !not_lowered.is_empty() {
        println!("te: not lowered by op:");
        for (op, cases) in &not_lowered {
            println!("  {:>4}  {op}", cases.len());
        }
    }
    let te_not_lowered: usize = not_lowered.values().map(Vec::len).sum();
    println!("te: {te_passed} passed, {te_failed} failed, {te_not_lowered} not lowered");
    println!("compiled: {compiled_passed} passed, {compiled_failed} failed");
    if !not_exportable.is_empty() {
        println!("mlir-upstream: not exportable by reason:");
        for (reason, cases) in &not_exportable {
            println!("  {:>4}  {reason}", cases.len());
        }
    }
    let upstream_not_exportable: usize = not_exportable.values().map(Vec::len).sum();
    println!(
        "mlir-upstream: {upstream_passed} passed, {upstream_failed} failed, \
         {upstream_not_exportable} not exportable ({:.1} s in MLIR, all threads)",
        UPSTREAM_MICROS.load(Ordering::Relaxed) as f64 / 1e6
    );
    if failed == 0 && te_failed == 0 && compiled_failed == 0 && upstream_failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
