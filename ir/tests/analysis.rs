//! Analyses cached by the pass manager: computed once, reused by later passes, and dropped
//! for the op a pass ran on, the ops nested in it and the ops enclosing it unless the pass
//! preserved them.

use std::sync::Mutex;

use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{
    Analysis, AnalysisManager, Instrumentation, Pass, PassInfo, PassManager, PassOptions,
    PassRegistry, Pipeline, PreservedAnalyses,
};
use tb_ir::symbol_table::{SymbolTable, lookup_symbol_in};
use tb_ir::{Context, Diagnostic, OpId};

/// The number of ops nested in an op (not counting itself).
struct OpCount(usize);

impl Analysis for OpCount {
    fn compute(ctx: &Context, op: OpId) -> Self {
        let mut n = 0;
        ctx.walk_nested(op, &mut |_| n += 1);
        OpCount(n)
    }
}

/// Whether the op holds any region (a second analysis, to test selective preservation).
struct HasRegions(bool);

impl Analysis for HasRegions {
    fn compute(ctx: &Context, op: OpId) -> Self {
        HasRegions(!ctx.op(op).regions.is_empty())
    }
}

/// Counts seen by `test-read-count`, in order.
static SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());
/// Held by the tests that look at `SEEN`.
static SERIAL: Mutex<()> = Mutex::new(());

/// Reads `OpCount` of its op and changes nothing.
struct ReadCount;

impl Pass for ReadCount {
    fn argument(&self) -> &'static str {
        "test-read-count"
    }
    fn display_name(&self) -> &'static str {
        "TestReadCount"
    }
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.run_with_analyses(ctx, op, &mut AnalysisManager::new())
            .map(|_| ())
    }
    fn run_with_analyses(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        analyses: &mut AnalysisManager,
    ) -> Result<PreservedAnalyses, Diagnostic> {
        let count = analyses.get::<OpCount>(ctx, op).0;
        assert!(
            analyses.get::<HasRegions>(ctx, op).0,
            "the test ops all hold a region"
        );
        SEEN.lock().unwrap().push(count);
        Ok(PreservedAnalyses::all())
    }
}

/// Erases the last op of its op's first block; with `keep-count`, claims (wrongly, which
/// the test uses to observe it) that `OpCount` stays valid.
struct EraseLast {
    keep_count: bool,
}

impl Pass for EraseLast {
    fn argument(&self) -> &'static str {
        "test-erase-last"
    }
    fn display_name(&self) -> &'static str {
        "TestEraseLast"
    }
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.run_with_analyses(ctx, op, &mut AnalysisManager::new())
            .map(|_| ())
    }
    fn run_with_analyses(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        _: &mut AnalysisManager,
    ) -> Result<PreservedAnalyses, Diagnostic> {
        let region = ctx.op(op).regions[0];
        let block = ctx.region(region).blocks[0];
        if let Some(last) = ctx.block_ops(block).last() {
            ctx.erase_op(last);
        }
        Ok(if self.keep_count {
            PreservedAnalyses::none().preserve::<OpCount>()
        } else {
            PreservedAnalyses::none()
        })
    }
}

fn registry() -> PassRegistry {
    let mut registry = PassRegistry::new();
    registry.register(PassInfo {
        argument: "test-read-count",
        description: "reads OpCount",
        options: &[],
        create: |_: &PassOptions| Box::new(ReadCount),
    });
    registry.register(PassInfo {
        argument: "test-erase-last",
        description: "erases the last op",
        options: &[],
        create: |_: &PassOptions| Box::new(EraseLast { keep_count: false }),
    });
    registry.register(PassInfo {
        argument: "test-erase-last-keep-count",
        description: "erases the last op, keeps OpCount",
        options: &[],
        create: |_: &PassOptions| Box::new(EraseLast { keep_count: true }),
    });
    registry
}

const MODULE: &str = r#"module {
  "x.f"() ({
    "x.a"() : () -> ()
    "x.b"() : () -> ()
  }) : () -> ()
  "x.f"() ({
    "x.c"() : () -> ()
  }) : () -> ()
}
"#;

fn context() -> (Context, OpId) {
    let mut ctx = Context::new();
    ctx.allow_unregistered_dialects = true;
    let module = parse_source(&mut ctx, MODULE, "t.mlir", &ParseOptions::default())
        .expect("test input parses");
    (ctx, module)
}

/// Runs `pipeline` on one thread; the counts the read passes saw and the analyses computed.
fn run(pipeline: &str) -> (Vec<usize>, usize) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    SEEN.lock().unwrap().clear();
    let (mut ctx, module) = context();
    let pipeline = Pipeline::parse(pipeline).expect("pipeline parses");
    let mut pm = PassManager::new(&pipeline, &registry()).expect("passes exist");
    pm.set_threads(1);
    pm.run(&mut ctx, module, &Instrumentation::default())
        .expect("pipeline runs");
    let seen = SEEN.lock().unwrap().clone();
    (seen, pm.analyses.computed())
}

#[test]
fn a_pass_that_changes_nothing_reuses_the_cached_analysis() {
    let (seen, computed) = run("builtin.module(test-read-count,test-read-count)");
    assert_eq!(seen, [5, 5]);
    assert_eq!(computed, 2, "OpCount and HasRegions once each");
}

#[test]
fn a_pass_that_changes_the_ir_invalidates_the_analysis() {
    let (seen, computed) = run("builtin.module(test-read-count,test-erase-last,test-read-count)");
    assert_eq!(seen, [5, 3], "the second x.f and its x.c were erased");
    assert_eq!(computed, 4);
}

#[test]
fn a_preserved_analysis_survives_and_the_others_do_not() {
    let (seen, computed) =
        run("builtin.module(test-read-count,test-erase-last-keep-count,test-read-count)");
    assert_eq!(
        seen,
        [5, 5],
        "the stale count was kept, as the pass claimed"
    );
    assert_eq!(computed, 3, "HasRegions was computed again");
}

#[test]
fn a_nested_pass_invalidates_its_op_and_the_enclosing_ops_only() {
    let (seen, computed) = run(
        "builtin.module(test-read-count,x.f(test-read-count),x.f(test-erase-last),\
         x.f(test-read-count),test-read-count)",
    );
    // Module 5; functions 2 and 1; after erasing one op in each: functions 1 and 0
    // (recomputed), module 3 (recomputed).
    assert_eq!(seen, [5, 2, 1, 1, 0, 3]);
    assert_eq!(computed, 2 * 6);
}

#[test]
fn the_manager_computes_once_and_invalidates_by_nesting() {
    let (ctx, module) = context();
    let functions: Vec<OpId> = {
        let region = ctx.op(module).regions[0];
        let block = ctx.region(region).blocks[0];
        ctx.block_ops(block).collect()
    };
    let mut analyses = AnalysisManager::new();
    assert!(analyses.cached::<OpCount>(module).is_none());
    assert_eq!(analyses.get::<OpCount>(&ctx, module).0, 5);
    assert_eq!(analyses.get::<OpCount>(&ctx, functions[0]).0, 2);
    assert_eq!(analyses.get::<OpCount>(&ctx, functions[1]).0, 1);
    assert_eq!(analyses.get::<OpCount>(&ctx, module).0, 5);
    assert_eq!(analyses.computed(), 3);

    analyses.invalidate(&ctx, functions[0], &PreservedAnalyses::none());
    assert!(analyses.cached::<OpCount>(module).is_none(), "encloses it");
    assert!(analyses.cached::<OpCount>(functions[0]).is_none());
    assert!(
        analyses.cached::<OpCount>(functions[1]).is_some(),
        "a sibling"
    );

    analyses.get::<OpCount>(&ctx, module);
    analyses.invalidate(&ctx, module, &PreservedAnalyses::all());
    assert!(analyses.cached::<OpCount>(module).is_some());
    analyses.invalidate(&ctx, module, &PreservedAnalyses::none());
    assert!(
        analyses.cached::<OpCount>(functions[1]).is_none(),
        "nested in it"
    );
}

#[test]
fn preserved_analyses_name_what_they_keep() {
    let kept = PreservedAnalyses::none().preserve::<OpCount>();
    assert!(kept.is_preserved::<OpCount>());
    assert!(!kept.is_preserved::<HasRegions>());
    assert!(PreservedAnalyses::all().is_preserved::<HasRegions>());
    assert!(!PreservedAnalyses::none().is_preserved::<OpCount>());
}

#[test]
fn the_symbol_table_analysis_finds_what_a_lookup_finds() {
    let mut ctx = Context::new();
    ctx.allow_unregistered_dialects = true;
    let text = r#"module {
  "x.sym"() {sym_name = "a"} : () -> ()
  "x.sym"() {sym_name = "b"} : () -> ()
  "x.other"() : () -> ()
}
"#;
    let module = parse_source(&mut ctx, text, "t.mlir", &ParseOptions::default()).unwrap();
    let mut analyses = AnalysisManager::new();
    let table = analyses.get::<SymbolTable>(&ctx, module);
    assert_eq!(table.len(), 2);
    for name in ["a", "b", "c"] {
        assert_eq!(table.lookup(name), lookup_symbol_in(&ctx, module, name));
    }
}
