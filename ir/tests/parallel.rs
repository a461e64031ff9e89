//! Nested pipelines on threads: forks, copies between contexts, and a threaded run giving
//! exactly what a sequential run gives (IR, IR dumps, diagnostics).

use std::collections::HashSet;
use std::sync::Mutex;
use std::thread::ThreadId;

use tb_ir::diagnostics::file_position;
use tb_ir::import::Importer;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{
    Instrumentation, Pass, PassInfo, PassManager, PassOptions, PassRegistry, Pipeline,
};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::registry::{OpInfo, OpTraits};
use tb_ir::rewrite::{GreedyConfig, PatternSet, apply_patterns_greedily};
use tb_ir::symbol_table::lookup_symbol;
use tb_ir::{AttrKind, Context, Diagnostic, OpId, TypeKind};

/// `test.func`: isolated from above, like `func.func`. `test.call`: verifies that its
/// `callee` names a `test.func`, which needs the enclosing module's symbols.
fn context() -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered_dialects = true;
    ctx.register_op(OpInfo {
        traits: OpTraits {
            isolated_from_above: true,
            no_terminator: true,
            ..OpTraits::default()
        },
        inherent_attrs: &["sym_name"],
        ..OpInfo::new("test.func")
    });
    ctx.register_op(OpInfo {
        verify: Some(verify_call),
        ..OpInfo::new("test.call")
    });
    ctx
}

fn verify_call(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let callee = ctx.op_attr(op, "callee").map(|a| ctx.attr_kind(a).clone());
    let Some(AttrKind::SymbolRef { root, .. }) = callee else {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            "'test.call' needs a callee",
        ));
    };
    match lookup_symbol(ctx, op, &root) {
        Some(f) if ctx.op_name(f) == "test.func" => Ok(()),
        _ => Err(Diagnostic::error(
            ctx.op(op).loc,
            format!("'test.call' callee @{root} is not a test.func"),
        )),
    }
}

/// A module of `n` functions; those whose index is in `failing` carry `test.fail`.
fn module(n: usize, failing: &[usize]) -> String {
    let mut text = String::from("module {\n");
    for i in 0..n {
        let fail = if failing.contains(&i) {
            " {test.fail}"
        } else {
            ""
        };
        let next = (i + 1) % n;
        text.push_str(&format!(
            r#"  "test.func"() <{{sym_name = "f{i}"}}> ({{
  ^bb0(%a: i32):
    %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
    %1 = "builtin.unrealized_conversion_cast"(%0) : (f32) -> i32
    %2 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i{w}
    %3:2 = "x.pair"(%1, %2) : (i32, i{w}) -> (i32, f64)
    "x.region"() ({{
    ^bb0(%x: i32):
      "x.use"(%x, %3#0, %3#1) : (i32, i32, f64) -> ()
    }}) : () -> ()
    "test.call"() {{callee = @f{next}}} : () -> ()
  }}){fail} : () -> ()
"#,
            w = 8 + i % 5,
        ));
    }
    text.push_str("}\n");
    text
}

fn parse(ctx: &mut Context, text: &str) -> OpId {
    parse_source(ctx, text, "t.mlir", &ParseOptions::default()).expect("test input parses")
}

/// Threads that ran a test pass.
static THREADS: Mutex<Option<HashSet<ThreadId>>> = Mutex::new(None);

/// Held by the tests that look at `THREADS`, which cargo would otherwise run side by side.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn note_thread() {
    let mut seen = THREADS.lock().unwrap();
    seen.get_or_insert_with(HashSet::new)
        .insert(std::thread::current().id());
}

/// Folds casts, like canonicalize.
struct Fold;

impl Pass for Fold {
    fn argument(&self) -> &'static str {
        "test-fold"
    }
    fn display_name(&self) -> &'static str {
        "TestFold"
    }
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        note_thread();
        // Slow enough that every worker gets some ops.
        std::thread::sleep(std::time::Duration::from_millis(1));
        apply_patterns_greedily(ctx, op, &PatternSet::new(), &GreedyConfig::default());
        Ok(())
    }
}

/// Tags every nested op with types and attributes no input has, so they are created in
/// the workers: `test.tag = {shape = tensor<Kx?xf32>, name = "tagK"}`, and the function
/// with `test.count = K : i77`.
struct Tag;

impl Pass for Tag {
    fn argument(&self) -> &'static str {
        "test-tag"
    }
    fn display_name(&self) -> &'static str {
        "TestTag"
    }
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut nested = Vec::new();
        ctx.walk_nested(op, &mut |o| nested.push(o));
        let f32 = ctx.float_type(tb_ir::FloatKind::F32);
        let salt = tb_ir::symbol_table::symbol_name(ctx, op).map_or(0, |n| n.len() as i64 * 1000);
        for (k, &o) in nested.iter().enumerate() {
            let shape = ctx.intern_type(TypeKind::RankedTensor {
                shape: vec![salt + k as i64, tb_ir::types::DYNAMIC],
                element: f32,
                encoding: None,
            });
            let shape = ctx.type_attr(shape);
            let name = ctx.string_attr(&format!("tag{}", salt + k as i64));
            let tag = ctx.dictionary_attr(vec![("shape".into(), shape), ("name".into(), name)]);
            let mut entries = ctx.dictionary_entries(ctx.op(o).attributes).to_vec();
            entries.push(("test.tag".into(), tag));
            let attrs = ctx.dictionary_attr(entries);
            ctx.op_mut(o).attributes = attrs;
        }
        let i77 = ctx.integer_type(77, tb_ir::Signedness::Signless);
        let count = ctx.integer_attr(nested.len() as i128, i77);
        let mut entries = ctx.dictionary_entries(ctx.op(op).attributes).to_vec();
        entries.push(("test.count".into(), count));
        let attrs = ctx.dictionary_attr(entries);
        ctx.op_mut(op).attributes = attrs;
        Ok(())
    }
}

/// Fails on functions marked `test.fail`, with a note at their first op.
struct FailMarked;

impl Pass for FailMarked {
    fn argument(&self) -> &'static str {
        "test-fail-marked"
    }
    fn display_name(&self) -> &'static str {
        "TestFailMarked"
    }
    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if ctx.op_attr(op, "test.fail").is_none() {
            return Ok(());
        }
        let mut first = None;
        ctx.walk_nested(op, &mut |o| {
            first.get_or_insert(o);
        });
        let name = tb_ir::symbol_table::symbol_name(ctx, op)
            .unwrap_or("")
            .to_string();
        let note_loc = first.map_or(ctx.op(op).loc, |o| ctx.op(o).loc);
        Err(
            Diagnostic::error(ctx.op(op).loc, format!("@{name} is marked to fail"))
                .with_note(note_loc, "first op here"),
        )
    }
}

fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    for (argument, create) in [
        (
            "test-fold",
            (|_: &PassOptions| Box::new(Fold) as Box<dyn Pass>)
                as fn(&PassOptions) -> Box<dyn Pass>,
        ),
        ("test-tag", |_| Box::new(Tag)),
        ("test-fail-marked", |_| Box::new(FailMarked)),
    ] {
        r.register(PassInfo {
            argument,
            description: "test",
            options: &[],
            create,
        });
    }
    r
}

/// A message and the line it points at.
type Message = (String, Option<u32>);

/// What a run leaves: the IR (with locations), the IR dumps, the error with its notes.
#[derive(Debug, PartialEq)]
struct Outcome {
    ir: String,
    log: String,
    error: Option<(String, Option<u32>, Vec<Message>)>,
}

fn run(text: &str, pipeline: &str, threads: usize, instr: &Instrumentation) -> Outcome {
    run_counting_threads(text, pipeline, threads, instr).0
}

/// [`run`], and how many threads ran `test-fold`.
fn run_counting_threads(
    text: &str,
    pipeline: &str,
    threads: usize,
    instr: &Instrumentation,
) -> (Outcome, usize) {
    let _serial = serial();
    *THREADS.lock().unwrap() = None;
    let mut ctx = context();
    let top = parse(&mut ctx, text);
    let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry()).unwrap();
    pm.set_threads(threads);
    let result = pm.run(&mut ctx, top, instr);
    let line = |ctx: &Context, d: &Diagnostic| file_position(ctx, d.loc).map(|(_, l, _)| l);
    let error = result.err().map(|d| {
        let notes = d
            .notes
            .iter()
            .map(|n| (n.message.clone(), line(&ctx, n)))
            .collect();
        (d.message.clone(), line(&ctx, &d), notes)
    });
    let print = PrintOptions {
        debug_info: true,
        ..PrintOptions::default()
    };
    let outcome = Outcome {
        ir: print_operation(&ctx, top, print),
        log: pm.log,
        error,
    };
    let used = THREADS.lock().unwrap().take().map_or(0, |s| s.len());
    (outcome, used)
}

fn verify_each() -> Instrumentation {
    Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    }
}

#[test]
fn threaded_run_prints_what_a_sequential_run_prints() {
    let text = module(24, &[]);
    let pipeline = "builtin.module(test.func(test-fold,test-tag))";
    let (threaded, used) = run_counting_threads(&text, pipeline, 4, &verify_each());
    assert!(used > 1, "the passes ran on {used} thread(s)");
    let (sequential, used) = run_counting_threads(&text, pipeline, 1, &verify_each());
    assert_eq!(used, 1);
    assert_eq!(threaded, sequential);
    assert_eq!(threaded.error, None);
    // The casts folded, and what the workers created made it back.
    assert!(!threaded.ir.contains("(f32) -> i32"), "{}", threaded.ir);
    assert!(
        threaded.ir.contains("test.count = 5 : i77"),
        "{}",
        threaded.ir
    );
    assert!(
        threaded.ir.contains("shape = tensor<2001x?xf32>"),
        "{}",
        threaded.ir
    );
}

#[test]
fn ir_dumps_come_in_op_order() {
    let text = module(12, &[]);
    let pipeline = "builtin.module(test.func(test-fold,test-tag))";
    let instr = Instrumentation {
        print_before: vec!["test-tag".into()],
        print_after: vec!["*".into()],
        print_after_change: false,
        verify_each: true,
        ..Instrumentation::default()
    };
    let threaded = run(&text, pipeline, 3, &instr);
    let sequential = run(&text, pipeline, 1, &instr);
    assert_eq!(threaded, sequential);
    let first = threaded.log.find("sym_name = \"f0\"").unwrap();
    let last = threaded.log.find("sym_name = \"f11\"").unwrap();
    assert!(first < last);
}

#[test]
fn the_first_failure_in_program_order_is_reported() {
    // f3 fails first in program order; f9 and f17 fail too, maybe on other threads first.
    let text = module(20, &[3, 9, 17]);
    let pipeline = "builtin.module(test.func(test-tag,test-fail-marked,test-fold))";
    let instr = Instrumentation {
        print_after_failure: true,
        verify_each: true,
        ..Instrumentation::default()
    };
    for threads in [2, 4, 8] {
        let threaded = run(&text, pipeline, threads, &instr);
        let sequential = run(&text, pipeline, 1, &instr);
        assert_eq!(threaded, sequential, "with {threads} threads");
        let (message, line, notes) = threaded.error.expect("the run fails");
        assert!(message.starts_with("@f3 is marked to fail"), "{message}");
        // Each function takes 12 lines, after the `module {` line.
        assert_eq!(line, Some(2 + 3 * 12));
        assert_eq!(notes, vec![("first op here".to_string(), Some(4 + 3 * 12))]);
        assert!(threaded.log.contains("IR Dump After TestFailMarked Failed"));
    }
}

#[test]
fn symbols_of_the_enclosing_module_are_visible_to_the_verifier() {
    // `test.call` verifies against its module's symbols, also inside a worker.
    let text = module(6, &[]);
    let outcome = run(
        &text,
        "builtin.module(test.func(test-fold))",
        3,
        &verify_each(),
    );
    assert_eq!(outcome.error, None);
    // A callee that is not there is reported the same way with or without threads.
    let broken = text.replace("callee = @f2", "callee = @nowhere");
    let threaded = run(
        &broken,
        "builtin.module(test.func(test-fold))",
        3,
        &verify_each(),
    );
    let sequential = run(
        &broken,
        "builtin.module(test.func(test-fold))",
        1,
        &verify_each(),
    );
    assert_eq!(threaded, sequential);
    let message = threaded.error.expect("fails").0;
    assert!(
        message.contains("callee @nowhere is not a test.func"),
        "{message}"
    );
}

#[test]
fn timing_sums_the_passes_of_every_thread() {
    let text = module(8, &[]);
    let mut ctx = context();
    let top = parse(&mut ctx, &text);
    let pipeline = Pipeline::parse("builtin.module(test.func(test-fold,test-tag))").unwrap();
    let mut pm = PassManager::new(&pipeline, &registry()).unwrap();
    pm.set_threads(4);
    let _serial = serial();
    let instr = Instrumentation {
        timing: true,
        ..Instrumentation::default()
    };
    pm.run(&mut ctx, top, &instr).unwrap();
    let nested = &pm.timing.children[0];
    assert_eq!(nested.name, "'test.func' Pipeline");
    let names: Vec<&str> = nested.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["TestFold", "TestTag"]);
    // Eight functions sleep 1 ms each in TestFold, whichever thread ran them.
    assert!(nested.children[0].time >= std::time::Duration::from_millis(8));
}

#[test]
fn ops_that_are_not_isolated_run_sequentially() {
    // `x.plain` is not registered as isolated: same result, on the calling thread.
    let text = module(4, &[]).replace("\"test.func\"", "\"x.plain\"");
    let pipeline = "builtin.module(x.plain(test-fold))";
    let mut ctx = context();
    let top = parse(&mut ctx, &text);
    let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry()).unwrap();
    pm.set_threads(4);
    let _serial = serial();
    *THREADS.lock().unwrap() = None;
    pm.run(&mut ctx, top, &Instrumentation::default()).unwrap();
    let seen = THREADS.lock().unwrap().take().unwrap_or_default();
    assert_eq!(seen, HashSet::from([std::thread::current().id()]));
}

// ---- forks and copies ----

#[test]
fn a_fork_shares_interned_ids_and_keeps_its_own() {
    let mut parent = context();
    let i32 = parent.integer_type(32, tb_ir::Signedness::Signless);
    let hello = parent.string_attr("hello");
    let mut child = parent.fork();
    assert_eq!(child.integer_type(32, tb_ir::Signedness::Signless), i32);
    assert_eq!(child.string_attr("hello"), hello);
    assert!(child.op_info("test.func").is_some() && child.allow_unregistered_dialects);
    let i5 = child.integer_type(5, tb_ir::Signedness::Signless);
    // The parent interns something else under the same id: ids past the fork are private.
    let f16 = parent.float_type(tb_ir::FloatKind::F16);
    assert_eq!(i5, f16);
    assert_eq!(
        child.type_kind(i5),
        &TypeKind::Integer {
            width: 5,
            signedness: tb_ir::Signedness::Signless
        }
    );
    let mut importer = Importer::new(&parent, &child);
    let back = importer.import_type(&mut parent, &child, i5);
    assert_ne!(back, f16);
    assert_eq!(parent.type_kind(back), child.type_kind(i5));
    assert_eq!(importer.import_type(&mut parent, &child, i32), i32);
}

#[test]
fn import_copies_structure_between_unrelated_contexts() {
    let text = r#"module {
  "test.func"() <{sym_name = "g"}> ({
  ^bb0(%a: i32 loc("arg.mlir":1:1)):
    %0:2 = "x.two"(%a) {d = {k = [1 : i9, dense<[1, 2]> : tensor<2xi3>]}} : (i32) -> (i32, memref<4xf32, strided<[2]>>)
    "x.graph"() ({
      "x.use"(%1) : (i64) -> ()
      %1 = "x.def"() : () -> i64
    }) : () -> ()
    "x.cfg"() ({
      "x.br"(%0#0)[^bb1] : (i32) -> ()
    ^bb1(%b: i32):
      "x.use"(%b, %0#0, %0#1) : (i32, i32, memref<4xf32, strided<[2]>>) -> ()
    }) : () -> ()
  }) : () -> () loc(fused["a.mlir":3:4, "b"])
}
"#;
    let mut src = context();
    let top = parse(&mut src, text);
    let func = src
        .block_ops(src.region(src.op(top).regions[0]).blocks[0])
        .next()
        .unwrap();
    let mut dst = context();
    // Intern other things first, so that no id means the same by accident.
    dst.integer_type(7, tb_ir::Signedness::Unsigned);
    dst.string_attr("unrelated");
    let copy = dst.import_op(&src, func).expect("copies");
    let print = PrintOptions {
        debug_info: true,
        generic: true,
        ..PrintOptions::default()
    };
    assert_eq!(
        print_operation(&dst, copy, print),
        print_operation(&src, func, print)
    );
    // Use lists keep their order: %0#0 is used by the branch first, then by x.use.
    let uses = |ctx: &Context, f: OpId| {
        let first = ctx
            .block_ops(ctx.region(ctx.op(f).regions[0]).blocks[0])
            .next()
            .unwrap();
        let v = ctx.op(first).results[0];
        ctx.value(v)
            .uses
            .iter()
            .map(|u| (ctx.op_name(u.op).to_string(), u.index))
            .collect::<Vec<_>>()
    };
    assert_eq!(uses(&dst, copy), uses(&src, func));
    assert_eq!(uses(&src, func)[0].0, "x.br");
}

#[test]
fn import_refuses_an_op_that_uses_outer_values() {
    let text = r#"module {
  %0 = "x.def"() : () -> i32
  "x.wrap"() ({
    "x.use"(%0) : (i32) -> ()
  }) : () -> ()
}
"#;
    let mut src = context();
    let top = parse(&mut src, text);
    let wrap = src
        .block_ops(src.region(src.op(top).regions[0]).blocks[0])
        .nth(1)
        .unwrap();
    let err = context().import_op(&src, wrap).unwrap_err();
    assert!(
        err.contains("'x.use' uses a value defined outside"),
        "{err}"
    );
}

#[test]
fn a_fork_is_adopted_without_copying_and_its_ids_translated() {
    let mut parent = context();
    let top = parse(&mut parent, &module(2, &[]));
    let funcs: Vec<OpId> = parent
        .block_ops(parent.region(parent.op(top).regions[0]).blocks[0])
        .collect();
    let before = print_operation(&parent, funcs[1], PrintOptions::default());
    let mut child = parent.fork();
    let mut importer = Importer::new(&child, &parent);
    let copy = importer.import_op(&mut child, &parent, funcs[0]).unwrap();
    Tag.run(&mut child, copy).unwrap();
    let tagged = print_operation(&child, copy, PrintOptions::default());
    let mut back = Importer::new(&parent, &child);
    back.translate_in_place(&mut parent, &mut child, copy);
    assert!(parent.adopt(child));
    parent.take_body(funcs[0], copy).unwrap();
    assert_eq!(
        print_operation(&parent, funcs[0], PrintOptions::default()),
        tagged
    );
    assert_eq!(
        print_operation(&parent, funcs[1], PrintOptions::default()),
        before
    );
    assert!(parent.op(copy).erased);
    tb_ir::verifier::verify(&parent, top).unwrap();
    // An unrelated context is not adopted, nor a parent by its fork.
    assert!(!parent.adopt(context()));
    let mut fork = parent.fork();
    assert!(!fork.adopt(parent));
}
