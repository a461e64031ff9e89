//! The rewriter's structural edits: attributes, properties, moving and cloning ops, and
//! merging blocks and regions. Each result is verified and printed.

use std::collections::HashMap;

use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::rewrite::Rewriter;
use tb_ir::verifier::verify;
use tb_ir::{Context, OpId};

fn parse(ctx: &mut Context, text: &str) -> OpId {
    ctx.allow_unregistered_dialects = true;
    parse_source(ctx, text, "input.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

fn print(ctx: &Context, op: OpId) -> String {
    verify(ctx, op).unwrap_or_else(|d| panic!("{}", d.message));
    print_operation(ctx, op, PrintOptions::default())
}

/// The first op named `name` in `root`.
fn find(ctx: &Context, root: OpId, name: &str) -> OpId {
    let mut found = None;
    ctx.walk_nested(root, &mut |op| {
        if found.is_none() && ctx.op_name(op) == name {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn set_attr_adds_and_replaces_an_attribute() {
    let mut ctx = Context::new();
    let module = parse(&mut ctx, "\"t.op\"() {a = 1 : i64} : () -> ()");
    let op = find(&ctx, module, "t.op");
    let mut rewriter = Rewriter::new(&mut ctx);
    let unit = rewriter.ctx_mut().unit_attr();
    rewriter.set_attr(op, "b", unit);
    let i64 = rewriter
        .ctx_mut()
        .integer_type(64, tb_ir::types::Signedness::Signless);
    let two = rewriter.ctx_mut().integer_attr(2, i64);
    rewriter.set_attr(op, "a", two);
    assert!(print(&ctx, module).contains("\"t.op\"() {a = 2 : i64, b} : () -> ()"));
}

#[test]
fn remove_attr_returns_the_removed_value() {
    let mut ctx = Context::new();
    let module = parse(&mut ctx, "\"t.op\"() {a = 1 : i64, b} : () -> ()");
    let op = find(&ctx, module, "t.op");
    let mut rewriter = Rewriter::new(&mut ctx);
    assert!(rewriter.remove_attr(op, "a").is_some());
    assert!(rewriter.remove_attr(op, "missing").is_none());
    assert!(print(&ctx, module).contains("\"t.op\"() {b} : () -> ()"));
}

#[test]
fn set_property_creates_the_property_dictionary() {
    let mut ctx = Context::new();
    let module = parse(&mut ctx, "\"t.op\"() : () -> ()");
    let op = find(&ctx, module, "t.op");
    let mut rewriter = Rewriter::new(&mut ctx);
    let unit = rewriter.ctx_mut().unit_attr();
    rewriter.set_property(op, "p", unit);
    assert!(print(&ctx, module).contains("\"t.op\"() <{p}> : () -> ()"));
}

#[test]
fn move_op_before_reorders_ops() {
    let mut ctx = Context::new();
    let module = parse(&mut ctx, "\"t.a\"() : () -> ()\n\"t.b\"() : () -> ()");
    let (a, b) = (find(&ctx, module, "t.a"), find(&ctx, module, "t.b"));
    Rewriter::new(&mut ctx).move_op_before(b, a);
    let printed = print(&ctx, module);
    assert!(
        printed.find("t.b").unwrap() < printed.find("t.a").unwrap(),
        "{printed}"
    );
}

#[test]
fn inline_block_before_replaces_arguments_and_erases_the_block() {
    let mut ctx = Context::new();
    let module = parse(
        &mut ctx,
        r#"%c = "t.c"() : () -> i32
"t.wrap"() ({
^bb0(%x: i32):
  "t.use"(%x) : (i32) -> ()
}) : () -> ()"#,
    );
    let (c, wrap) = (find(&ctx, module, "t.c"), find(&ctx, module, "t.wrap"));
    let value = ctx.op(c).results[0];
    let region = ctx.op(wrap).regions[0];
    let block = ctx.region(region).blocks[0];
    let mut rewriter = Rewriter::new(&mut ctx);
    rewriter.inline_block_before(block, wrap, &[value]);
    rewriter.erase_op(wrap);
    let printed = print(&ctx, module);
    assert!(printed.contains("\"t.use\"(%0) : (i32) -> ()"), "{printed}");
    assert!(!printed.contains("t.wrap"), "{printed}");
}

#[test]
fn inline_region_before_moves_every_block() {
    let mut ctx = Context::new();
    let module = parse(
        &mut ctx,
        r#""t.from"() ({
  "t.first"() : () -> ()
}, {
}) : () -> ()"#,
    );
    let from = find(&ctx, module, "t.from");
    let (source, dest) = (ctx.op(from).regions[0], ctx.op(from).regions[1]);
    Rewriter::new(&mut ctx).inline_region_before(source, dest, None);
    assert!(ctx.region(source).blocks.is_empty());
    let printed = print(&ctx, module);
    assert!(
        printed.contains("\"t.from\"() ({\n  }, {\n    \"t.first\"()"),
        "{printed}"
    );
}

#[test]
fn clone_op_before_remaps_operands() {
    let mut ctx = Context::new();
    let module = parse(
        &mut ctx,
        r#"%a = "t.a"() : () -> i32
%b = "t.b"() : () -> i32
"t.use"(%a) : (i32) -> ()"#,
    );
    let (a, b, user) = (
        find(&ctx, module, "t.a"),
        find(&ctx, module, "t.b"),
        find(&ctx, module, "t.use"),
    );
    let mut mapping = HashMap::from([(ctx.op(a).results[0], ctx.op(b).results[0])]);
    Rewriter::new(&mut ctx).clone_op_before(user, user, &mut mapping);
    let printed = print(&ctx, module);
    assert!(
        printed.contains("\"t.use\"(%1) : (i32) -> ()\n  \"t.use\"(%0) : (i32) -> ()"),
        "{printed}"
    );
}
