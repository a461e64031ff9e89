//! The greedy rewrite driver with hand-written patterns.

use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::rewrite::{GreedyConfig, PatternSet, RewritePattern, Rewriter, apply_patterns_greedily};
use tb_ir::{OpId, Value};

/// `t.forward(%x)` is replaced by `%x`.
struct Forward;

impl RewritePattern for Forward {
    fn debug_name(&self) -> &'static str {
        "forward"
    }
    fn root(&self) -> Option<&'static str> {
        Some("t.forward")
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let operand: Value = rewriter.ctx().op(op).operands[0];
        rewriter.replace_op(op, &[operand]);
        true
    }
}

/// Never applies, but claims a higher benefit: it must be tried first.
struct Refuses(std::rc::Rc<std::cell::Cell<u32>>);

impl RewritePattern for Refuses {
    fn debug_name(&self) -> &'static str {
        "refuses"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn benefit(&self) -> u16 {
        5
    }
    fn match_and_rewrite(&self, _: OpId, _: &mut Rewriter) -> bool {
        self.0.set(self.0.get() + 1);
        false
    }
}

fn parse(ctx: &mut Context, text: &str) -> OpId {
    ctx.allow_unregistered_dialects = true;
    parse_source(ctx, text, "t.mlir", &ParseOptions::default()).expect("test input parses")
}

#[test]
fn patterns_apply_until_a_fixed_point() {
    let mut ctx = Context::new();
    let top = parse(
        &mut ctx,
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.forward"(%0) : (i32) -> i32
           %2 = "t.forward"(%1) : (i32) -> i32
           "t.sink"(%2) : (i32) -> ()"#,
    );
    let tries = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut patterns = PatternSet::new();
    patterns.add(Box::new(Forward));
    patterns.add(Box::new(Refuses(tries.clone())));
    let result = apply_patterns_greedily(&mut ctx, top, &patterns, &GreedyConfig::default());
    assert!(result.converged && result.changed);
    let printed = print_operation(&ctx, top, PrintOptions::default());
    assert!(!printed.contains("t.forward"), "{printed}");
    assert!(printed.contains(r#""t.sink"(%0)"#), "{printed}");
    assert!(
        tries.get() >= 2,
        "the higher-benefit pattern is tried before the others"
    );
}

#[test]
fn an_iteration_limit_is_reported_as_not_converged() {
    let mut ctx = Context::new();
    let top = parse(
        &mut ctx,
        r#"%0 = "t.src"() : () -> i32
                                 %1 = "t.forward"(%0) : (i32) -> i32
                                 "t.sink"(%1) : (i32) -> ()"#,
    );
    let mut patterns = PatternSet::new();
    patterns.add(Box::new(Forward));
    let config = GreedyConfig {
        max_iterations: 1,
        ..GreedyConfig::default()
    };
    let result = apply_patterns_greedily(&mut ctx, top, &patterns, &config);
    assert_eq!(
        (result.converged, result.iterations, result.changed),
        (false, 1, true)
    );
}
