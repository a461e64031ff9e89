//! The typed layer of the dialects: op kinds agree with the registered definitions in both
//! directions, kinds are found from ops, typed views read their ops, and typed dialect
//! attributes parse, print, intern and reject malformed bodies.

use tb_dialects::arith::{
    ArithOp, BinaryOp, CmpFPredicate, CmpIOp, CmpIPredicate, FastMathFlags, OverflowFlags,
};
use tb_dialects::cf::CfOp;
use tb_dialects::func::FuncOp;
use tb_dialects::graph::{
    GraphOp, MatmulOp, ReduceCombiner, ReduceKind, ReduceOp, Unary, UnaryOfOp,
};
use tb_dialects::loop_::LoopOp;
use tb_dialects::math::MathOp;
use tb_dialects::memref::MemRefOp;
use tb_dialects::te::{Combiner, ComputeOp, ReadOp, TeOp};
use tb_ir::ods::OpKind;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, attr_to_string, print_operation};
use tb_ir::{Context, OpId};

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> OpId {
    parse_source(ctx, text, "input.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

/// Every variant names a registered op, every registered op of the dialect has a variant,
/// and the names are distinct.
fn check_kinds<K: OpKind>(ctx: &Context) {
    let prefix = format!("{}.", K::DIALECT);
    let mut registered: Vec<&str> = ctx
        .registered_op_infos()
        .map(|i| i.name)
        .filter(|n| n.starts_with(&prefix))
        .collect();
    registered.sort_unstable();
    let mut kinds: Vec<&str> = K::ALL.iter().map(|k| k.name()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, registered, "kinds of '{}'", K::DIALECT);
    for (i, k) in K::ALL.iter().enumerate() {
        assert_eq!(k.index(), i);
        assert_eq!(K::from_name(k.name()), Some(*k));
    }
}

#[test]
fn op_kinds_match_the_registered_ops() {
    let ctx = context();
    check_kinds::<ArithOp>(&ctx);
    check_kinds::<MathOp>(&ctx);
    check_kinds::<FuncOp>(&ctx);
    check_kinds::<CfOp>(&ctx);
    check_kinds::<MemRefOp>(&ctx);
    check_kinds::<GraphOp>(&ctx);
    check_kinds::<TeOp>(&ctx);
    check_kinds::<LoopOp>(&ctx);
}

tb_ir::op_kinds! {
    /// A stale enum: one op that does not exist, and `te.read_at`/`te.extract`/`te.yield`
    /// missing.
    enum StaleTeOp in "te" {
        Compute = "te.compute",
        Read = "te.read",
        Gather = "te.gather",
    }
}

#[test]
fn registering_drifted_kinds_names_every_difference() {
    let mut ctx = context();
    let err = ctx.register_op_kinds::<StaleTeOp>().unwrap_err();
    assert_eq!(
        err,
        "dialect 'te': op kinds without a registered op: te.gather; \
         registered ops without an op kind: te.extract, te.read_at, te.yield"
    );
}

const PROGRAM: &str = r#"
func.func @f(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %x: f32, %i: i32) -> tensor<4x8xf32> {
  %m = graph.matmul %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %r = graph.reduce_l2 %m {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %e = graph.elu %m {alpha = 2.500000e-01 : f32} : tensor<4x8xf32>
  %s = arith.addf %x, %x fastmath<nnan,contract> : f32
  %t = arith.addi %i, %i overflow<nsw> : i32
  %c = arith.cmpi ult, %i, %t : i32
  %k = te.compute (%a) [%p] reduce [%q] in [16] combiner = max {
    %v = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x16xf32>
    te.yield %v : f32
  } : (tensor<4x16xf32>) -> tensor<4xf32>
  return %m : tensor<4x8xf32>
}
"#;

/// The first function's body block.
fn body(ctx: &Context, module: OpId) -> tb_ir::BlockId {
    let top = ctx.entry_block(ctx.op(module).regions[0]).unwrap();
    let func = ctx.block_ops(top).next().unwrap();
    ctx.entry_block(ctx.op(func).regions[0]).unwrap()
}

#[test]
fn kinds_and_views_of_parsed_ops() {
    let mut ctx = context();
    let module = parse(&mut ctx, PROGRAM);
    let block = body(&ctx, module);
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let [matmul, reduce, elu, addf, addi, cmpi, compute, ret] = ops[..] else {
        panic!("unexpected body: {ops:?}");
    };
    assert_eq!(GraphOp::of(&ctx, matmul), Some(GraphOp::Matmul));
    assert_eq!(ArithOp::of(&ctx, matmul), None);
    let m = MatmulOp::cast(&ctx, matmul).unwrap();
    assert_eq!(m.lhs(&ctx), ctx.block(block).args[0]);
    assert_eq!(m.rhs(&ctx), ctx.block(block).args[1]);
    assert!(MatmulOp::cast(&ctx, reduce).is_none());

    let r = ReduceOp::cast(&ctx, reduce).unwrap();
    assert_eq!(r.kind, ReduceKind::L2);
    assert_eq!(r.kind.combiner(), Combiner::Sum);
    assert_eq!(
        Unary::of(&ctx, elu).unwrap(),
        Some(Unary::Elu { alpha: 0.25 })
    );
    assert_eq!(Unary::of(&ctx, matmul).unwrap(), None);

    let add = BinaryOp::cast(&ctx, addf).unwrap();
    assert_eq!(add.kind, ArithOp::AddF);
    assert_eq!(
        add.fastmath(&ctx),
        FastMathFlags::NNAN | FastMathFlags::CONTRACT
    );
    assert_eq!(
        OverflowFlags::of(&ctx, addi),
        OverflowFlags {
            nsw: true,
            nuw: false
        }
    );
    assert_eq!(
        CmpIOp::cast(&ctx, cmpi).unwrap().predicate(&ctx),
        Some(CmpIPredicate::Ult)
    );

    let c = ComputeOp::cast(&ctx, compute).unwrap();
    assert_eq!(c.combiner(&ctx), Some(Combiner::Max));
    assert_eq!(c.domain(&ctx), vec![4, 16]);
    let read = ctx.block_ops(c.body(&ctx).unwrap()).next().unwrap();
    assert_eq!(
        ReadOp::cast(&ctx, read).unwrap().input(&ctx),
        c.inputs(&ctx)[0]
    );
    assert_eq!(TeOp::of(&ctx, ret), None);
    assert_eq!(FuncOp::of(&ctx, ret), Some(FuncOp::Return));
}

#[test]
fn typed_attributes_print_canonically_and_intern_by_value() {
    let mut ctx = context();
    let attr = |ctx: &mut Context, text: &str| {
        tb_ir::parser::parse_attribute_text(ctx, text).unwrap_or_else(|d| panic!("{}", d.message))
    };
    let a = attr(&mut ctx, "#arith.fastmath<ninf, nnan>");
    assert_eq!(attr_to_string(&ctx, a), "#arith.fastmath<nnan,ninf>");
    assert_eq!(
        ctx.typed_attr::<FastMathFlags>(a),
        Some(&(FastMathFlags::NNAN | FastMathFlags::NINF))
    );
    let b = ctx.typed_attr_of(FastMathFlags::NINF | FastMathFlags::NNAN);
    assert_eq!(a, b, "equal values intern to one attribute");
    let fast = attr(
        &mut ctx,
        "#arith.fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn>",
    );
    assert_eq!(attr_to_string(&ctx, fast), "#arith.fastmath<fast>");
    let none = attr(&mut ctx, "#arith.overflow<none>");
    assert_eq!(
        ctx.typed_attr::<OverflowFlags>(none),
        Some(&OverflowFlags::default())
    );
    let both = attr(&mut ctx, "#arith.overflow<nuw, nsw>");
    assert_eq!(attr_to_string(&ctx, both), "#arith.overflow<nsw, nuw>");
    let sum = attr(&mut ctx, "#te.combiner<prod>");
    assert_eq!(ctx.typed_attr::<Combiner>(sum), Some(&Combiner::Prod));
    assert_eq!(attr_to_string(&ctx, sum), "#te.combiner<prod>");
    // A fastmath value is no overflow value, though both are arith attributes.
    assert_eq!(ctx.typed_attr::<OverflowFlags>(a), None);
}

#[test]
fn malformed_typed_attributes_are_parse_errors() {
    let mut ctx = context();
    for (text, message) in [
        (
            "#arith.fastmath<nnan, fastest>",
            "expected #arith.fastmath flags to be one of: none, reassoc, nnan, ninf, nsz, arcp, contract, afn, fast",
        ),
        ("#arith.fastmath", "expected '<' after #arith.fastmath"),
        (
            "#te.combiner<mean>",
            "unknown combiner 'mean'; expected one of sum, max, min, prod",
        ),
        (
            "#te.combiner<sum, max>",
            "expected #te.combiner<sum|max|min|prod>",
        ),
        (
            "#arith.overflow<nsw> : i32",
            "#arith.overflow does not take a type",
        ),
    ] {
        let err = tb_ir::parser::parse_attribute_text(&mut ctx, text).unwrap_err();
        assert_eq!(err.message, message, "for {text}");
    }
}

#[test]
fn combiner_semantics() {
    assert_eq!(Combiner::Max.int_identity(8, false), -128);
    assert_eq!(Combiner::Min.int_identity(8, false), 127);
    assert_eq!(Combiner::Min.int_identity(8, true), -1);
    assert_eq!(Combiner::Max.int_identity(1, false), 1);
    assert_eq!(Combiner::Prod.float_identity(), 1.0);
    assert!(Combiner::Max.combine_floats(1.0, f64::NAN).is_nan());
    // 200 > 100 as unsigned bytes, though -56 < 100 signed.
    assert_eq!(Combiner::Max.combine_ints(-56, 100, 8, true), -56);
    assert_eq!(Combiner::Max.combine_ints(-56, 100, 8, false), 100);
    assert_eq!(Combiner::Min.arith_op(false, true), ArithOp::MinUI);
    assert_eq!(Combiner::Sum.arith_op(true, false), ArithOp::AddF);
    assert_eq!(CmpFPredicate::from_i64(3), Some(CmpFPredicate::Oge));
    assert_eq!(CmpFPredicate::from_i64(16), None);
    assert_eq!(CmpIPredicate::Uge.keyword(), "uge");
}

#[test]
fn generic_form_spells_typed_attributes() {
    let mut ctx = context();
    let module = parse(&mut ctx, PROGRAM);
    let generic = print_operation(
        &ctx,
        module,
        PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    );
    assert!(
        generic.contains("<{fastmath = #arith.fastmath<nnan,contract>}>"),
        "{generic}"
    );
    assert!(
        generic.contains("<{overflowFlags = #arith.overflow<nsw>}>"),
        "{generic}"
    );
    assert!(
        generic.contains("combiner = #te.combiner<max>"),
        "{generic}"
    );
    let again = parse(&mut ctx, &generic);
    let custom = print_operation(&ctx, again, PrintOptions::default());
    assert!(
        custom.contains("arith.addf %arg2, %arg2 fastmath<nnan,contract> : f32"),
        "{custom}"
    );
    assert!(custom.contains("combiner = max"), "{custom}");
}
