//! Registers every dialect and round-trips small `te` and `loop` programs through the
//! printer and parser, in custom and generic form; checks the loop-like queries.

use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};

const TE: &str = r#"
func.func @matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [16] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
    te.yield %x : f32
  } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
"#;

const LOOP: &str = r#"
func.func @kernel(%a: memref<64x64xf32>, %n: index) {
  %m = loop.alloc() : memref<64x64xf32>
  loop.parallel (%i) = (0) to (64) {
    loop.for %j = 0 to 64 step 8 vectorize = 8 {
      %v = loop.vector_load %a[%i, %j] : memref<64x64xf32>, vector<8xf32>
      %s = loop.load %a[(d0, d1) -> (d1, d0)](%i, %j) : memref<64x64xf32>
      %w = loop.broadcast %s : f32 to vector<8xf32>
      %r = loop.fma %v, %w, %v : vector<8xf32>
      loop.vector_store %r, %m[%i, %j] : memref<64x64xf32>, vector<8xf32>
    }
  }
  loop.for %t = 0 to %n step 4 unroll = 4 {
  }
  loop.dealloc %m : memref<64x64xf32>
  return
}
"#;

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> tb_ir::OpId {
    let module = parse_source(ctx, text, "test.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("parse error: {}", d.message));
    tb_ir::verifier::verify(ctx, module).unwrap_or_else(|d| panic!("verify error: {}", d.message));
    module
}

fn round_trip(text: &str) {
    let mut ctx = context();
    let module = parse(&mut ctx, text);
    let custom = print_operation(&ctx, module, PrintOptions::default());
    let generic = print_operation(
        &ctx,
        module,
        PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    );
    for printed in [&custom, &generic] {
        let mut again = context();
        let reparsed = parse(&mut again, printed);
        assert_eq!(
            print_operation(&again, reparsed, PrintOptions::default()),
            custom,
            "round trip of\n{printed}"
        );
    }
}

#[test]
fn register_all_succeeds() {
    let mut ctx = Context::new();
    assert_eq!(tb_dialects::register_all(&mut ctx), Ok(()));
    for name in [
        "te.compute",
        "te.read",
        "te.yield",
        "loop.for",
        "loop.parallel",
        "loop.fma",
    ] {
        assert!(ctx.op_info(name).is_some(), "{name} is registered");
    }
}

#[test]
fn te_round_trips() {
    round_trip(TE);
}

#[test]
fn loop_round_trips() {
    round_trip(LOOP);
}

#[test]
fn loop_like_queries() {
    let mut ctx = context();
    let module = parse(&mut ctx, LOOP);
    let mut loops = Vec::new();
    ctx.walk_nested(module, &mut |op| {
        if tb_dialects::loop_::is_loop(&ctx, op) {
            loops.push(op);
        }
    });
    assert_eq!(loops.len(), 3);
    let parallel = tb_dialects::loop_::loop_dims(&ctx, loops[0]).unwrap();
    assert_eq!(parallel.len(), 1);
    assert_eq!(parallel[0].constant_trip_count(), Some(64));
    assert!(tb_dialects::loop_::is_parallel(&ctx, loops[0]));
    let inner = tb_dialects::loop_::loop_dims(&ctx, loops[1]).unwrap();
    assert_eq!(inner[0].step, 8);
    assert_eq!(inner[0].constant_trip_count(), Some(8));
    assert_eq!(tb_dialects::loop_::vector_width(&ctx, loops[1]), Some(8));
    let dynamic = tb_dialects::loop_::loop_dims(&ctx, loops[2]).unwrap();
    assert_eq!(dynamic[0].upper.operands.len(), 1);
    assert_eq!(dynamic[0].constant_trip_count(), None);
    assert_eq!(tb_dialects::loop_::unroll_factor(&ctx, loops[2]), Some(4));
}

#[test]
fn te_queries() {
    let mut ctx = context();
    let module = parse(&mut ctx, TE);
    let mut computes = Vec::new();
    ctx.walk_nested(module, &mut |op| {
        if ctx.op_name(op) == tb_dialects::te::COMPUTE {
            computes.push(op);
        }
    });
    let c = computes[0];
    assert_eq!(tb_dialects::te::domain(&ctx, c), vec![4, 8, 16]);
    assert_eq!(tb_dialects::te::combiner(&ctx, c), Some("sum"));
    assert_eq!(tb_dialects::te::indices(&ctx, c).len(), 3);
}
