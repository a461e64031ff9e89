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
        Tolerance::default(),
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
