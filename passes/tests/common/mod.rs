//! Helpers shared by the pass tests: running a pipeline under the interpreter's
//! before/after check on random inputs.
// Each test binary uses only some of these.
#![allow(dead_code)]

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

/// Runs `pipeline` on `src` (every pass verified after it runs) and checks on `seeds`
/// random argument sets that every function computes what it computed before; every
/// function must run.
pub fn check_pipeline_with_seeds(src: &str, pipeline: &str, seeds: u64) -> CheckReport {
    check_pipeline_within(src, pipeline, seeds, Tolerance::default())
}

/// [`check_pipeline_with_seeds`] with results compared within `tolerance`.
pub fn check_pipeline_within(
    src: &str,
    pipeline: &str,
    seeds: u64,
    tolerance: Tolerance,
) -> CheckReport {
    let report = check_transform(
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
        tolerance,
        seeds,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "every function runs: {:?}",
        report.skipped
    );
    report
}

/// [`check_pipeline_with_seeds`] on 4 seeds.
pub fn check_pipeline(src: &str, pipeline: &str) -> CheckReport {
    check_pipeline_with_seeds(src, pipeline, 4)
}

/// `n` reproducible values in [-1, 1) that no two positions share by accident.
pub fn values(n: i64, seed: u64) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// A `dense<...>` literal of `values` (row-major) as a `shape` tensor.
pub fn dense(values: &[f32], shape: &[i64]) -> String {
    fn nested(values: &[f32], shape: &[i64]) -> String {
        match shape {
            // MLIR reads a float literal only with a decimal point: `5.0e-1`, not `5e-1`.
            [] => {
                let text = format!("{:e}", values[0]);
                match text.split_once('e') {
                    Some((mantissa, exponent)) if !mantissa.contains('.') => {
                        format!("{mantissa}.0e{exponent}")
                    }
                    _ => text,
                }
            }
            [first, rest @ ..] => {
                let stride: i64 = rest.iter().product();
                let items: Vec<String> = (0..*first)
                    .map(|i| nested(&values[(i * stride) as usize..], rest))
                    .collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
    format!("dense<{}>", nested(values, shape))
}
