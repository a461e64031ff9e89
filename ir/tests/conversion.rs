//! Dialect conversion: legality, type conversion with casts at the boundaries, and the
//! located report of ops left illegal.

use tb_ir::diagnostics::file_position;
use tb_ir::operation::OperationState;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::rewrite::Rewriter;
use tb_ir::rewrite::conversion::{
    ConversionMode, ConversionPattern, ConversionTarget, Legality, TypeConverter, apply_conversion,
    replace_op_converted,
};
use tb_ir::{Context, OpId, Signedness, TypeKind, Value};

/// `t.old` on i32 becomes `t.new` on i64.
struct OldToNew;

impl ConversionPattern for OldToNew {
    fn root(&self) -> Option<&'static str> {
        Some("t.old")
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut Rewriter,
        types: &TypeConverter,
    ) -> bool {
        let old_types: Vec<_> = rewriter
            .ctx()
            .op(op)
            .results
            .iter()
            .map(|&r| rewriter.ctx().value_type(r))
            .collect();
        let result_types = old_types
            .into_iter()
            .map(|t| types.convert_type(rewriter.ctx_mut(), t))
            .collect();
        let name = rewriter.ctx_mut().intern_op_name("t.new");
        let loc = rewriter.ctx().op(op).loc;
        let new = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: operands.to_vec(),
                result_types,
                successors: vec![],
                num_regions: 0,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        let values = rewriter.ctx().op(new).results.to_vec();
        replace_op_converted(rewriter, op, &values, types);
        true
    }
}

fn i32_to_i64() -> TypeConverter {
    let mut types = TypeConverter::new();
    types.add_rule(Box::new(|ctx: &mut Context, ty| {
        matches!(ctx.type_kind(ty), TypeKind::Integer { width: 32, .. })
            .then(|| ctx.integer_type(64, Signedness::Signless))
    }));
    types
}

fn setup(text: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    ctx.allow_unregistered_dialects = true;
    let top =
        parse_source(&mut ctx, text, "c.mlir", &ParseOptions::default()).expect("input parses");
    (ctx, top)
}

fn target() -> ConversionTarget {
    let mut target = ConversionTarget::new();
    target
        .add_op("t.old", Legality::Illegal)
        .add_op("t.new", Legality::Legal)
        .add_op("t.src", Legality::Legal)
        .add_op("t.sink", Legality::Legal);
    target
}

#[test]
fn converted_ops_meet_unconverted_ones_through_casts() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.old"(%0) : (i32) -> i32
           "t.sink"(%1) : (i32) -> ()"#,
    );
    apply_conversion(
        &mut ctx,
        top,
        &target(),
        &[Box::new(OldToNew)],
        &i32_to_i64(),
        ConversionMode::Full,
    )
    .expect("converts");
    let printed = print_operation(&ctx, top, PrintOptions::default());
    let expected = r#"  %0 = "t.src"() : () -> i32
  %1 = "builtin.unrealized_conversion_cast"(%0) : (i32) -> i64
  %2 = "t.new"(%1) : (i64) -> i64
  %3 = "builtin.unrealized_conversion_cast"(%2) : (i64) -> i32
  "t.sink"(%3) : (i32) -> ()"#;
    assert!(printed.contains(expected), "{printed}");
}

#[test]
fn full_conversion_reports_every_op_left_illegal_with_its_location() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.unknown"(%0) : (i32) -> i32
           %2 = "t.other"(%1) : (i32) -> i32"#,
    );
    let err = apply_conversion(
        &mut ctx,
        top,
        &target(),
        &[Box::new(OldToNew)],
        &i32_to_i64(),
        ConversionMode::Full,
    )
    .unwrap_err();
    assert_eq!(err.message, "failed to legalize operation 't.unknown'");
    assert_eq!(
        file_position(&ctx, err.loc).map(|(_, line, _)| line),
        Some(2)
    );
    assert_eq!(err.notes.len(), 1);
    assert_eq!(
        err.notes[0].message,
        "failed to legalize operation 't.other'"
    );
}

#[test]
fn partial_conversion_leaves_unknown_ops_but_not_illegal_ones() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.unknown"(%0) : (i32) -> i32"#,
    );
    assert!(
        apply_conversion(
            &mut ctx,
            top,
            &target(),
            &[],
            &i32_to_i64(),
            ConversionMode::Partial
        )
        .is_ok()
    );
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
                                  %1 = "t.old"(%0) : (i32) -> i32"#,
    );
    let err = apply_conversion(
        &mut ctx,
        top,
        &target(),
        &[],
        &i32_to_i64(),
        ConversionMode::Partial,
    )
    .unwrap_err();
    assert_eq!(err.message, "failed to legalize operation 't.old'");
}
