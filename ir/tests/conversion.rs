//! Dialect conversion: legality decided on the input, patterns found by op name, type
//! conversion with casts at the boundaries, and all-or-nothing application: a failed
//! conversion restores the IR exactly and reports every op it could not convert, each at
//! its location, in program order.

use std::cell::Cell;
use std::rc::Rc;

use tb_ir::diagnostics::file_position;
use tb_ir::operation::OperationState;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::rewrite::conversion::{
    ConversionMode, ConversionPattern, ConversionRewriter, ConversionTarget, Legality,
    PatternRoots, TypeConverter, apply_conversion, op_failure,
};
use tb_ir::{Context, Diagnostic, OpId, Signedness, TypeKind, Value};

/// `t.old` becomes `t.new` with converted result types; fails on ops carrying `t.refuse`.
struct OldToNew;

impl ConversionPattern for OldToNew {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec!["t.old"])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let new = create(rewriter, op, "t.new", operands);
        if rewriter.ctx().op_attr(op, "t.refuse").is_some() {
            // Fails after building something: the framework must take it back.
            return Err(op_failure(rewriter.ctx(), op, "is refused"));
        }
        let values = rewriter.ctx().op(new).results.to_vec();
        rewriter.replace_op_with_casts(op, &values);
        Ok(())
    }
}

/// A `name` op before `op` with `operands` and `op`'s result types converted.
fn create(rewriter: &mut ConversionRewriter, op: OpId, name: &str, operands: &[Value]) -> OpId {
    let old_types: Vec<_> = rewriter
        .ctx()
        .op(op)
        .results
        .iter()
        .map(|&r| rewriter.ctx().value_type(r))
        .collect();
    let result_types = old_types
        .into_iter()
        .map(|t| rewriter.convert_type(t))
        .collect();
    let name = rewriter.ctx_mut().intern_op_name(name);
    let loc = rewriter.ctx().op(op).loc;
    let state = OperationState {
        name,
        operands: operands.to_vec(),
        result_types,
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    };
    let new = rewriter.ctx_mut().create_op(state);
    rewriter.ctx_mut().insert_op_before(op, new);
    new
}

/// `t.inplace` changes its operands' producers in place: the type of its operand, the
/// properties of the op, and one operand, then fails when asked to.
struct InPlace;

impl ConversionPattern for InPlace {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec!["t.inplace"])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let operand = rewriter.ctx().op(op).operands[0];
        let i64_ty = rewriter.ctx_mut().i64();
        rewriter.set_value_type(operand, i64_ty);
        let unit = rewriter.ctx_mut().unit_attr();
        let props = rewriter
            .ctx_mut()
            .dictionary_attr(vec![("changed".into(), unit)]);
        rewriter.set_properties(op, Some(props));
        let second = rewriter.ctx().op(op).operands[1];
        rewriter.set_operand(op, 0, second);
        if rewriter.ctx().op_attr(op, "t.refuse").is_some() {
            return Err(op_failure(rewriter.ctx(), op, "is refused"));
        }
        rewriter.erase_op(op);
        Ok(())
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
        .add_op("t.inplace", Legality::Illegal)
        .add_op("t.new", Legality::Legal)
        .add_op("t.src", Legality::Legal)
        .add_op("t.sink", Legality::Legal);
    target
}

fn convert(
    ctx: &mut Context,
    top: OpId,
    patterns: Vec<Box<dyn ConversionPattern>>,
    mode: ConversionMode,
) -> Result<(), Diagnostic> {
    apply_conversion(ctx, top, &target(), &patterns, &i32_to_i64(), mode)
}

fn print(ctx: &Context, top: OpId) -> String {
    let options = PrintOptions {
        debug_info: true,
        ..PrintOptions::default()
    };
    print_operation(ctx, top, options)
}

fn line_of(ctx: &Context, diag: &Diagnostic) -> Option<u32> {
    file_position(ctx, diag.loc).map(|(_, line, _)| line)
}

#[test]
fn converted_ops_meet_unconverted_ones_through_casts() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.old"(%0) : (i32) -> i32
           "t.sink"(%1) : (i32) -> ()"#,
    );
    convert(
        &mut ctx,
        top,
        vec![Box::new(OldToNew)],
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
    let err = convert(
        &mut ctx,
        top,
        vec![Box::new(OldToNew)],
        ConversionMode::Full,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "'t.unknown' op failed to legalize: no conversion pattern for it"
    );
    assert_eq!(line_of(&ctx, &err), Some(2));
    assert_eq!(err.notes.len(), 1);
    assert_eq!(
        err.notes[0].message,
        "'t.other' op failed to legalize: no conversion pattern for it"
    );
    assert_eq!(line_of(&ctx, &err.notes[0]), Some(3));
}

#[test]
fn partial_conversion_leaves_unknown_ops_but_not_illegal_ones() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.unknown"(%0) : (i32) -> i32"#,
    );
    assert!(convert(&mut ctx, top, vec![], ConversionMode::Partial).is_ok());
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.old"(%0) : (i32) -> i32"#,
    );
    let err = convert(&mut ctx, top, vec![], ConversionMode::Partial).unwrap_err();
    assert_eq!(
        err.message,
        "'t.old' op failed to legalize: no conversion pattern for it"
    );
}

#[test]
fn a_failed_conversion_restores_the_input_exactly() {
    let text = r#"%0 = "t.src"() : () -> i32 loc("a.mlir":1:1)
           %1 = "t.old"(%0) : (i32) -> i32 loc("a.mlir":2:1)
           %2 = "t.old"(%1) {t.refuse} : (i32) -> i32 loc("a.mlir":3:1)
           %3 = "t.src"() : () -> i32 loc("a.mlir":4:1)
           "t.inplace"(%3, %0) : (i32, i32) -> () loc("a.mlir":5:1)
           %4 = "t.old"(%2) : (i32) -> i32 loc("a.mlir":6:1)
           "t.inplace"(%3, %4) {t.refuse} : (i32, i32) -> () loc("a.mlir":7:1)
           "t.sink"(%4) : (i32) -> () loc("a.mlir":8:1)"#;
    let (mut ctx, top) = setup(text);
    let before = print(&ctx, top);
    let patterns: Vec<Box<dyn ConversionPattern>> = vec![Box::new(OldToNew), Box::new(InPlace)];
    let err = convert(&mut ctx, top, patterns, ConversionMode::Partial).unwrap_err();
    // Ops converted before and after the failing ones (with casts, an op replaced, a type,
    // an operand and properties changed in place) are all back as they were.
    assert_eq!(print(&ctx, top), before);
    let failures: Vec<(String, Option<u32>)> = std::iter::once(&err)
        .chain(&err.notes)
        .map(|d| (d.message.clone(), line_of(&ctx, d)))
        .collect();
    assert_eq!(
        failures,
        vec![
            ("'t.old' op is refused".to_string(), Some(3)),
            ("'t.inplace' op is refused".to_string(), Some(7)),
        ]
    );
    // Every failure is an error of its own.
    assert!(
        err.notes
            .iter()
            .all(|n| n.severity == tb_ir::diagnostics::Severity::Error)
    );
    // The module still verifies and converts once the refusals are gone.
    assert!(tb_ir::verifier::verify(&ctx, top).is_ok());
}

#[test]
fn a_successful_conversion_erases_the_replaced_ops() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.src"() : () -> i32
           "t.inplace"(%0, %1) : (i32, i32) -> ()
           %2 = "t.old"(%1) : (i32) -> i32"#,
    );
    let patterns: Vec<Box<dyn ConversionPattern>> = vec![Box::new(OldToNew), Box::new(InPlace)];
    convert(&mut ctx, top, patterns, ConversionMode::Partial).expect("converts");
    let printed = print_operation(&ctx, top, PrintOptions::default());
    assert!(!printed.contains("t.old"), "{printed}");
    assert!(!printed.contains("t.inplace"), "{printed}");
    // The in-place type change stays.
    assert!(
        printed.contains(r#"%0 = "t.src"() : () -> i64"#),
        "{printed}"
    );
}

/// A pattern that counts how often it is asked, and declines.
struct Counting {
    root: PatternRoots,
    calls: Rc<Cell<usize>>,
    benefit: u16,
}

impl ConversionPattern for Counting {
    fn roots(&self) -> PatternRoots {
        match &self.root {
            PatternRoots::Any => PatternRoots::Any,
            PatternRoots::Ops(names) => PatternRoots::Ops(names.clone()),
        }
    }

    fn benefit(&self) -> u16 {
        self.benefit
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        self.calls.set(self.calls.get() + 1);
        Err(op_failure(
            rewriter.ctx(),
            op,
            format!("declined by the pattern of benefit {}", self.benefit),
        ))
    }
}

#[test]
fn patterns_are_selected_by_op_name_and_tried_by_benefit() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.old"(%0) : (i32) -> i32"#,
    );
    let (other, fallback, specific) = (
        Rc::new(Cell::new(0)),
        Rc::new(Cell::new(0)),
        Rc::new(Cell::new(0)),
    );
    let patterns: Vec<Box<dyn ConversionPattern>> = vec![
        Box::new(Counting {
            root: PatternRoots::Ops(vec!["t.inplace"]),
            calls: Rc::clone(&other),
            benefit: 9,
        }),
        Box::new(Counting {
            root: PatternRoots::Any,
            calls: Rc::clone(&fallback),
            benefit: 1,
        }),
        Box::new(Counting {
            root: PatternRoots::Ops(vec!["t.old"]),
            calls: Rc::clone(&specific),
            benefit: 2,
        }),
    ];
    let err = convert(&mut ctx, top, patterns, ConversionMode::Partial).unwrap_err();
    assert_eq!(
        (other.get(), specific.get(), fallback.get()),
        (0, 1, 1),
        "only the patterns for t.old (and for any op) are asked"
    );
    // The first pattern tried (the highest benefit) gives the reason.
    assert_eq!(
        err.message,
        "'t.old' op declined by the pattern of benefit 2"
    );
    // Legal ops are never offered to a pattern, even one for any op.
    assert_eq!(fallback.get(), 1);
}

#[test]
fn a_failure_names_the_node_of_a_named_location() {
    let (mut ctx, top) = setup(
        r#"%0 = "t.src"() : () -> i32
           %1 = "t.old"(%0) : (i32) -> i32 loc("my_gemm"("m.onnx":3:1))"#,
    );
    let err = convert(&mut ctx, top, vec![], ConversionMode::Partial).unwrap_err();
    assert_eq!(
        err.message,
        "'t.old' op (node \"my_gemm\") failed to legalize: no conversion pattern for it"
    );
    assert_eq!(line_of(&ctx, &err), Some(3));
}

/// `t.wrap` (one region) becomes `t.box`, which receives its region's blocks: the ops in
/// them are converted where they land.
struct WrapToBox;

impl ConversionPattern for WrapToBox {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec!["t.wrap"])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let name = rewriter.ctx_mut().intern_op_name("t.box");
        let loc = rewriter.ctx().op(op).loc;
        let state = OperationState {
            name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 1,
            properties: None,
            attributes: vec![],
            loc,
        };
        let new = rewriter.create_op_before(op, state);
        let from = rewriter.ctx().op(op).regions[0];
        let to = rewriter.ctx().op(new).regions[0];
        rewriter.move_blocks(from, to);
        rewriter.erase_op(op);
        Ok(())
    }
}

fn wrap_target() -> ConversionTarget {
    let mut target = target();
    target
        .add_op("t.wrap", Legality::Illegal)
        .add_op("t.box", Legality::Legal);
    target
}

#[test]
fn moved_blocks_are_converted_where_they_land() {
    let (mut ctx, top) = setup(
        r#""t.wrap"() ({
             %0 = "t.src"() : () -> i32
             %1 = "t.old"(%0) : (i32) -> i32
             "t.sink"(%1) : (i32) -> ()
           }) : () -> ()"#,
    );
    let patterns: Vec<Box<dyn ConversionPattern>> = vec![Box::new(WrapToBox), Box::new(OldToNew)];
    apply_conversion(
        &mut ctx,
        top,
        &wrap_target(),
        &patterns,
        &i32_to_i64(),
        ConversionMode::Partial,
    )
    .unwrap_or_else(|d| panic!("{}", d.message));
    let text = print(&ctx, top);
    assert!(text.contains("\"t.box\"() ({"), "{text}");
    assert!(text.contains("\"t.new\""), "{text}");
    assert!(
        !text.contains("t.wrap") && !text.contains("t.old"),
        "{text}"
    );
    assert!(tb_ir::verifier::verify(&ctx, top).is_ok());
}

#[test]
fn a_failure_after_moving_blocks_moves_them_back() {
    let text = r#""t.wrap"() ({
             %0 = "t.src"() : () -> i32
             %1 = "t.old"(%0) {t.refuse} : (i32) -> i32
             "t.sink"(%1) : (i32) -> ()
           }) : () -> ()"#;
    let (mut ctx, top) = setup(text);
    let before = print(&ctx, top);
    let patterns: Vec<Box<dyn ConversionPattern>> = vec![Box::new(WrapToBox), Box::new(OldToNew)];
    let err = apply_conversion(
        &mut ctx,
        top,
        &wrap_target(),
        &patterns,
        &i32_to_i64(),
        ConversionMode::Partial,
    )
    .unwrap_err();
    assert_eq!(err.message, "'t.old' op is refused");
    // The region's ops are back in the t.wrap, and the t.box is gone.
    assert_eq!(print(&ctx, top), before);
    assert!(tb_ir::verifier::verify(&ctx, top).is_ok());
}
